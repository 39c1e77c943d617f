"""The JSON schema of an inventory answer with ``--answer-format json`` (``analysis.llm.structured``): the rating, one
of the scale's numbers 1..k as the prompt numbers them, and the reading of its answer field (the number, or a label of
the scale as shown)."""

from __future__ import annotations

from typing import Any

from analysis.llm.structured import ANSWER, obj, response_format, whole
from analysis.methods.inventory.parse import ReadNumber
from analysis.methods.inventory.prompts import OrderMode, numbered


def rating(n_options: int) -> str:
    """One whole number from 1 to ``n_options``."""
    return response_format("inventory_rating", obj({ANSWER: whole(1, n_options)}))


def number_of(value: Any, labels: list[str], order: OrderMode) -> ReadNumber:
    """The number a JSON answer gives: a whole number of the scale (or its digits as text), or a label of the scale
    (any case) as its number in ``order``; invalid with the reason otherwise."""
    k = len(labels)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return ReadNumber(value) if 1 <= value <= k else ReadNumber(None, f'"{ANSWER}" {value} is not on the scale 1-{k}')
    text = " ".join(value.split()).casefold() if isinstance(value, str) else None
    shown = [label.casefold() for label in numbered(labels, order)]
    if text in shown:
        return ReadNumber(shown.index(text) + 1)
    return ReadNumber(None, f'"{ANSWER}" {str(value)[:40]!r} is not a number or label of the scale')
