"""The PersonaGym reply readers as ``python -m analysis parse`` offers them: the session's ``parse_grade`` and
``detect_refusal``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.methods.base import Reader, Reading
from analysis.methods.personagym.parse import detect_decline, detect_refusal, parse_grade
from analysis.reading import too_long


def _grade(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    grade = parse_grade(reply)
    return Reading(grade.valid, grade.score, grade.reason)


def _refusal(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    """True when the reply steps out of the persona (``detect_refusal``); False when it answers, or declines as the
    persona (``detect_decline``, named in the reason). Its rules are its own: the shared rules of
    ``analysis.reading`` (final answer, no answer) do not apply to an agent's in-role reply; its length limit does
    (``too_long``: invalid)."""
    if (why := too_long(reply)) is not None:
        return Reading(False, None, why)
    marker = detect_refusal(reply)
    if marker:
        return Reading(True, True, f"steps out of the role: '{marker}'")
    decline = detect_decline(reply)
    return Reading(True, False, f"declines in character: '{decline}'" if decline else None)


READERS = (
    Reader("personagym-grade", "an evaluator's final score in [1, 5]", _grade),
    Reader("personagym-refusal", "whether an answer steps out of the persona (value true/false)", _refusal),
)
