"""The values reply reader as ``python -m analysis parse values-option`` offers it: the questionnaire's text readers
(``analysis.llm.options``): ``parse_option_text`` for a text reply, ``parse_after_marker`` for a chain of thought."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.errors import InputError
from analysis.llm.options import parse_after_marker, parse_option_text
from analysis.methods.base import Reader, Reading


def _option(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    labels = context["options"]
    if not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels):
        raise InputError("'options' must be the list of option labels as shown, in their order")
    mode = context.get("mode", "text")
    if mode not in ("text", "cot"):
        raise InputError(f"'mode' {mode!r}: text or cot (logprob answers are read from logprobs, not text)")
    parsed = (parse_after_marker if mode == "cot" else parse_option_text)(reply, labels)
    return Reading(parsed.valid, parsed.index, parsed.reason or None)


READERS = (Reader("values-option", "the option (0-based position in 'options') a questionnaire reply names", _option,
                  ("options",), {"mode": "text"}),)
