"""What an inventory row from outside (a report file) must hold beyond its column types (``Table.rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.runs.row_checks import first_broken, flags, within

#: The points of a scale when a plan does not list its inventory's options (the five of every bundled inventory).
DEFAULT_POINTS = 5


def points_of(plan: Any) -> int:
    """The number of response options of the run's inventory (its plan lists them)."""
    inventory = plan.get("inventory") if isinstance(plan, Mapping) else None
    options = inventory.get("options") if isinstance(inventory, Mapping) else None
    return len(options) if isinstance(options, list) and options else DEFAULT_POINTS


def answer_rules(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """The number, score and keyed score on the inventory's scale 1..k, the option among its k, flags 0 or 1."""
    k = points_of(run.get("plan"))
    return first_broken(flags(row, "reverse", "valid", "truncated"),
                        *(within(row, field, 1, k, "the scale") for field in ("number", "score", "keyed")),
                        within(row, "option_index", 0, k - 1, "the options"))
