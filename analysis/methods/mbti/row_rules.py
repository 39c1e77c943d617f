"""What an MBTI row from outside (a report file) must hold beyond its column types (``Table.rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.methods.mbti.scoring import WEIGHTS
from analysis.runs.row_checks import first_broken, flags, within


def answer_rules(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """An option among the seven, its weight the option's (+3 .. -3), a direction of +1 or -1, flags 0 or 1."""
    if row["direction"] not in (None, 1, -1):
        return "direction", f"{row['direction']} is not +1 or -1"
    if row["option_index"] is not None and row["weight"] is not None and 0 <= row["option_index"] < len(WEIGHTS) \
            and row["weight"] != WEIGHTS[row["option_index"]]:
        return "weight", f"{row['weight']} is not option {row['option_index']}'s weight {WEIGHTS[row['option_index']]}"
    return first_broken(flags(row, "valid", "truncated"),
                        within(row, "option_index", 0, len(WEIGHTS) - 1, "the options"),
                        within(row, "weight", min(WEIGHTS), max(WEIGHTS), "the weights"))
