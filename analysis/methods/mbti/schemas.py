"""The JSON schema of an MBTI answer with ``--answer-format json`` (``analysis.llm.structured``): why, in a few
sentences, then one of the seven verdicts as the question shows them (in its order, lower case), and the reading of
its answer field."""

from __future__ import annotations

from typing import Any

from analysis.llm.structured import ANSWER, SHORT_TEXT, enum, obj, response_format
from analysis.methods.mbti import OPTIONS
from analysis.methods.mbti.parse import ParsedAnswer


def shown(order: list[int]) -> list[str]:
    """The verdicts as the question shows them, in its order."""
    return [OPTIONS[k].lower() for k in order]


def verdict(order: list[int]) -> str:
    """The reasoning (the paper's "Why?"), then the verdict: one of the seven as shown."""
    return response_format("mbti_verdict", obj({"reasoning": SHORT_TEXT, ANSWER: enum(shown(order))}), in_order=True)


def option_of(value: Any) -> ParsedAnswer:
    """The verdict a JSON answer names (any case, surrounding spaces ignored); invalid with the reason when it names
    none of the seven."""
    text = " ".join(value.split()).casefold() if isinstance(value, str) else ""
    named = [k for k, option in enumerate(OPTIONS) if option.casefold() == text]
    if named:
        return ParsedAnswer(named[0])
    return ParsedAnswer(None, f'"{ANSWER}" {str(value)[:40]!r} is not one of the seven options')
