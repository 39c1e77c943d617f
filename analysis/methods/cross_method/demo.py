"""The cross-method part of the demo campaign (``analysis.demo``): the first personas of the bundled set through every
method that takes them, each on its protocol with the options its own ``demo.campaign_settings`` gives."""

from __future__ import annotations

import importlib
from typing import Any

from analysis.demo_config import DemoConfig, DemoPart, Size

SIZES: dict[Size, dict[str, Any]] = {
    "full": {"personas": 16, "methods": None},
    # the fewest personas a correlation needs; the two part methods with the cheapest calls (one-token answers)
    "reduced": {"personas": 5, "methods": ["values", "inventory"]},
}


def plan(config: DemoConfig, size: Size) -> dict[str, Any]:
    from analysis.methods.cross_method.options import CrossMethodOptions
    from analysis.methods.cross_method.plan import build_plan, campaign_methods

    methods = SIZES[size]["methods"]
    settings: list[str] = []
    for name in methods or campaign_methods():
        settings += importlib.import_module(f"analysis.methods.{name}.demo").campaign_settings(config, size)
    options = CrossMethodOptions(personas=str(SIZES[size]["personas"]), methods=methods, set=settings)
    return build_plan(options, config.spec()).model_dump()


PARTS = (DemoPart("cross-method", "cross_method", plan, dated_first=True),)
