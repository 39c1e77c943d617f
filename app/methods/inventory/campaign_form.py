"""The inventory part of a composite campaign's Run form (the cross-method campaign): its own options, by name."""

from __future__ import annotations

from typing import Any

from app import state


def options(container: Any) -> dict[str, Any]:
    """Draw the inventory's campaign options in ``container``; returns {option of ``InventoryOptions``: value}. The
    inventory is IPIP-NEO-120 when it is on this machine, else RoleScope's short form; items in the paper's ascending
    order only."""
    from analysis.methods.inventory.inventory import NAMES, available

    here = available()
    inventory = next((n for n in NAMES if here.get(n)), "rolescope-mini")
    c = container.columns(3)
    mode = state.selectbox("Inventory: answer mode", ["logprob", "text"], key="run_xm_inventory_mode", container=c[0],
                           help="logprob: the likeliest number (the paper's scoring); text: a short reply, read.")
    items = state.number_input("Inventory: items (0 = all)", 0, 300, 0, key="run_xm_inventory_items", container=c[1],
                               help="The first K items of the inventory (norms need all).")
    c[2].metric("Inventory", inventory, help="IPIP-NEO-120 when it is on this machine (ROLESCOPE_IPIP_NEO), else "
                                             "RoleScope's short form.")
    return {"answer_mode": mode, "inventory": inventory, "order": "ascending",
            **({"limit_items": int(items)} if items else {})}
