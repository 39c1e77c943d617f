"""The inventory parts of the demo campaign (``analysis.demo``): IPIP-NEO-120 (all items: norms) and RoleScope's
short form (MTMM) to personas shaped on a few domains at three levels."""

from __future__ import annotations

from functools import partial
from typing import Any

from analysis.demo_config import DemoConfig, DemoPart, Size

SIZES: dict[Size, dict[str, Any]] = {
    "full": {"domains": ["E", "A", "N"], "levels": [1, 5, 9], "items": None,
             # the cross-method campaign: IPIP-NEO-120's first 60 items, every facet twice
             "campaign_items": 60},
    "reduced": {"domains": ["E"], "levels": [1, 9], "items": 4, "campaign_items": 2},
}
TEXT_TOKENS = 8


def plan(config: DemoConfig, size: Size, inventory: str = "ipip-neo-120") -> dict[str, Any]:
    from analysis.methods.inventory.options import InventoryOptions
    from analysis.methods.inventory.plan import build_plan

    s = SIZES[size]
    options = InventoryOptions(inventory=inventory, domains=s["domains"], levels=s["levels"], biographies=1,
                               limit_items=s["items"], answer_mode=config.answer_mode, max_tokens=TEXT_TOKENS,
                               prefix_reuse=True)
    return build_plan(options, config.spec()).model_dump()


def campaign_settings(config: DemoConfig, size: Size) -> list[str]:
    """This method's options in the demo's cross-method campaign (``METHOD.FIELD=VALUE``; the paper's ascending
    order only)."""
    items = SIZES[size]["campaign_items"]
    return [f"inventory.answer_mode={config.answer_mode}", "inventory.order=ascending",
            f"inventory.max_tokens={TEXT_TOKENS}", "inventory.prefix_reuse=true",
            *([f"inventory.limit_items={items}"] if items else [])]


PARTS = (DemoPart("inventory", "inventory", plan),
         DemoPart("inventory-mini", "inventory", partial(plan, inventory="rolescope-mini")))
