"""The MBTI reply reader as ``python -m analysis parse mbti-verdict`` offers it: the session's ``parse_correctness``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.methods.base import Reader, Reading
from analysis.methods.mbti.parse import parse_correctness


def _verdict(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    parsed = parse_correctness(reply, context.get("statement"))
    return Reading(parsed.valid, parsed.option, parsed.reason or None)


READERS = (Reader("mbti-verdict", "the option (0 = Correct … 6 = Wrong) a reply names for a statement", _verdict,
                  defaults={"statement": None}),)
