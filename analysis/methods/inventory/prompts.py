"""The item prompt of Serapio-García et al. (2023): persona instruction and description, then the item between its
preamble and its postamble, which lists the response scale with its numbers. Each item is asked on its own (no
history); the answer is one number.

Option orders: ``ascending`` is the paper's (1 = the scale's first label … k = its last); ``descending`` numbers the
same labels the other way (1 = the last label), so that a model that prefers a position rather than a meaning is
seen: its scores move between the two orders.
"""

from __future__ import annotations

from typing import Literal

OrderMode = Literal["ascending", "descending"]
ORDERS: tuple[OrderMode, ...] = ("ascending", "descending")
PERSONA_INSTRUCTION = "For the following task, respond in a way that matches this description:"
ITEM_PREAMBLE = "Considering the statement,"
POSTAMBLE = "please rate how accurately this describes you on a scale from 1 to {k} ({listing}):"


def numbered(labels: list[str], order: OrderMode) -> list[str]:
    """The labels in the order their numbers 1..k are given."""
    return list(labels) if order == "ascending" else list(reversed(labels))


def scale_listing(labels: list[str], order: OrderMode) -> str:
    """'where 1 = "very inaccurate", 2 = …, and 5 = "very accurate"'."""
    shown = [f'{n} = "{label.lower()}"' for n, label in enumerate(numbered(labels, order), 1)]
    return "where " + ", ".join(shown[:-1]) + f", and {shown[-1]}"


def item_statement(text: str) -> str:
    """The item as quoted: its text without the final full stop (the sentence goes on after the quote)."""
    return text.strip().rstrip(".")


#: ``--answer-format json``: the rating as one JSON object (``analysis.methods.inventory.schemas``).
JSON_RATING = 'Reply with one JSON object only: {{"answer": N}}, where N is your rating from 1 to {k}.'


def item_prompt(description: str | None, item: str, labels: list[str], order: OrderMode,
                answer_format: str = "text") -> str:
    """The one user message of an item (``answer_format`` 'json': the rating asked as one JSON object)."""
    postamble = POSTAMBLE.format(k=len(labels), listing=scale_listing(labels, order))
    question = f'{ITEM_PREAMBLE} "{item_statement(item)}", {postamble}'
    if answer_format == "json":
        question = f"{question}\n\n{JSON_RATING.format(k=len(labels))}"
    if not description:
        return question
    return f'{PERSONA_INSTRUCTION} "{description}"\n\n{question}'


def option_of_number(number: int, n_options: int, order: OrderMode) -> int:
    """The canonical option index (0 = the first label) a number 1..k names in ``order``."""
    return number - 1 if order == "ascending" else n_options - number
