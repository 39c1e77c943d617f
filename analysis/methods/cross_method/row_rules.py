"""What a cross-method row from outside (a report file) must hold beyond its column types (``Table.rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError


def part_rules(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """A campaign's part row belongs to a run whose plan is a campaign plan (the report reads its personas there)."""
    from analysis.methods.cross_method.plan import CampaignPlan

    try:
        CampaignPlan.model_validate(run.get("plan"))
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in error["loc"])
        return "run_id", f"its run's plan is not a campaign plan ({where}: {error['msg']})"
    return None
