"""The PersonaGym reply readers as ``python -m analysis parse`` offers them: the session's ``parse_grade`` and
``detect_refusal``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.methods.base import Reader, Reading
from analysis.methods.personagym.parse import detect_refusal, parse_grade


def _grade(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    grade = parse_grade(reply)
    return Reading(grade.valid, grade.score, grade.reason)


def _refusal(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    marker = detect_refusal(reply)
    return Reading(True, marker is not None, f"refusal marker '{marker}'" if marker else None)


READERS = (
    Reader("personagym-grade", "an evaluator's final score in [1, 5]", _grade),
    Reader("personagym-refusal", "whether an answer steps out of the persona (value true/false)", _refusal),
)
