"""The values reply reader as ``python -m analysis parse values-option`` offers it: the questionnaire's text readers
(``analysis.llm.options``): ``parse_option_text`` for a text reply, ``parse_after_marker`` for a chain of thought."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.errors import InputError
from analysis.llm.options import parse_after_marker, parse_option_text
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from analysis.methods.base import Reader, Reading
from analysis.methods.values.instruments import MAX_OPTIONS


def _option(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    labels = context["options"]
    if not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels):
        raise InputError("'options' must be the list of option labels as shown, in their order")
    mode = context.get("mode", "text")
    if mode not in ("text", "cot"):
        raise InputError(f"'mode' {mode!r}: text or cot (logprob answers are read from logprobs, not text)")
    parsed = (parse_after_marker if mode == "cot" else parse_option_text)(reply, labels)
    return Reading(parsed.valid, parsed.index, parsed.reason or None)


class OptionContext(BaseModel):
    """The options as a question shows them (as an instrument's: 2 to 26 labels, none empty, none twice) and how the
    reply was asked for (text, or a chain of thought ending "Answer: (X)")."""

    model_config = ConfigDict(extra="ignore")
    options: list[str] = Field(min_length=2, max_length=MAX_OPTIONS)
    mode: Literal["text", "cot"] = "text"

    @field_validator("options")
    @classmethod
    def _labels(cls, labels: list[str]) -> list[str]:
        keys = [label.strip().casefold() for label in labels]
        if not all(keys):
            raise ValueError("an option label is empty")
        if len(set(keys)) != len(keys):
            raise ValueError("an option label appears twice")
        return labels


READERS = (Reader("values-option", "the option (0-based position in 'options') a questionnaire reply names", _option,
                  ("options",), {"mode": "text"}, OptionContext),)
