"""The values part of a composite campaign's Run form (the cross-method campaign): its own options, by name."""

from __future__ import annotations

from typing import Any

from app import state


def options(container: Any) -> dict[str, Any]:
    """Draw the PVQ's campaign options in ``container``; returns {option of ``ValuesOptions``: value}."""
    c = container.columns(2)
    mode = state.selectbox("Values: answer mode", ["logprob", "text"], key="run_xm_values_mode", container=c[0],
                           help="logprob: the likeliest option (the protocol's scoring); text: a short reply, read.")
    items = state.number_input("Values: PVQ items (0 = all)", 0, 300, 0, key="run_xm_values_items", container=c[1],
                               help="The first K items of the PVQ.")
    return {"answer_mode": mode, **({"limit_items": int(items)} if items else {})}
