"""What an inventory row from outside (a report file) must hold beyond its column types (``Table.rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.runs.row_checks import first_broken, flags, within

def points_of(plan: Any) -> int | None:
    """The number of response options of the run's inventory (its plan lists them; the report reads them there), or
    None when the plan does not."""
    inventory = plan.get("inventory") if isinstance(plan, Mapping) else None
    options = inventory.get("options") if isinstance(inventory, Mapping) else None
    return len(options) if isinstance(options, list) and len(options) >= 2 else None


def answer_rules(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """The run's plan lists its inventory's options (the report scores on them); the number, score and keyed score
    on that scale 1..k, the option among its k, flags 0 or 1."""
    k = points_of(run.get("plan"))
    if k is None:
        return "run_id", "its run's plan lists no inventory options (plan.inventory.options): the answers cannot be scored"
    return first_broken(flags(row, "reverse", "valid", "truncated"),
                        *(within(row, field, 1, k, "the scale") for field in ("number", "score", "keyed")),
                        within(row, "option_index", 0, k - 1, "the options"))
