"""The MBTI reply reader as ``python -m analysis parse mbti-verdict`` offers it: the session's ``parse_correctness``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ConfigDict, Field, create_model

from analysis.methods.base import Reader, Reading
from analysis.methods.mbti.parse import parse_correctness


def _verdict(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    parsed = parse_correctness(reply, context.get("statement"))
    return Reading(parsed.valid, parsed.option, parsed.reason or None)


#: The statement asked (its subject words help read a reply that names them), as text: at most 2,000 characters.
CONTEXT = create_model("VerdictContext", __config__=ConfigDict(extra="ignore"),
                       statement=(str | None, Field(None, max_length=2000)))

READERS = (Reader("mbti-verdict", "the option (0 = Correct … 6 = Wrong) a reply names for a statement", _verdict,
                  defaults={"statement": None}, context=CONTEXT),)
