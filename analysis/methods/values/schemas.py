"""The JSON schemas of a values answer with ``--answer-format json`` (``analysis.llm.structured``), and the reading of
their answer field: an item's answer is the letter of one of the options shown; an SVS pick names one value of the
list as shown. A chain of thought (``cot``) writes its reasoning in a field before the answer."""

from __future__ import annotations

from typing import Any

from analysis.llm.options import LETTERS, ParsedOption
from analysis.llm.structured import ANSWER, enum, obj, response_format

#: A chain of thought's reasoning: bounded (a small model that loops inside the string is closed by the grammar), as
#: long as the history keeps of it (``ValuesSession._answer_in_history``).
REASONING = {"type": "string", "maxLength": 4000}
#: A text answer's reply limit with JSON: the protocol's 10 tokens hold "(X)", not always a JSON object around it.
JSON_TEXT_MAX_TOKENS = 24


def _answer(answer: dict[str, Any], mode: str) -> dict[str, Any]:
    return obj({"reasoning": REASONING, ANSWER: answer} if mode == "cot" else {ANSWER: answer})


def item(n_options: int, mode: str) -> str:
    """An item: the letter of one of its ``n_options`` options as shown (after the reasoning in ``cot``)."""
    return response_format("values_item", _answer(enum(list(LETTERS[:n_options])), mode), in_order=True)


def pick(names: list[str], mode: str) -> str:
    """An SVS pick: the name of one value of the list as shown (after the reasoning in ``cot``)."""
    return response_format("values_pick", _answer(enum(names), mode), in_order=True)


def option_of(value: Any, labels: list[str]) -> ParsedOption:
    """The shown option a JSON answer names: its letter ("B", "(B)") or its label as shown (any case); invalid with the
    reason when it names none."""
    text = str(value).strip() if isinstance(value, str) else ""
    letter = text.strip("()").strip().upper()
    if len(letter) == 1 and letter in LETTERS[:len(labels)]:
        return ParsedOption(LETTERS.index(letter))
    named = [i for i, label in enumerate(labels) if label.strip().casefold() == text.casefold()]
    if text and len(named) == 1:
        return ParsedOption(named[0])
    return ParsedOption(None, f'"{ANSWER}" {str(value)[:40]!r} is not one of the options shown')
