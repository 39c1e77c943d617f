"""The inventory replies as samples (``analysis.samples``): one per persona × item × option order."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis.samples import build, concat, is_one, reply_or_note


def samples(store, run_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Each answer: persona, item, order; the option read by its label (numbers differ between orders)."""
    rows = store.table("inventory_answers", run_ids)
    if rows.empty:
        return concat([])
    return build(
        rows, method="inventory", kind="answer", table="inventory_answers",
        key=("run_id", "persona_id", "order_mode", "item_id"), persona_id="persona_id",
        item=lambda r: r["inventory"].astype(str) + " " + r["item_id"].astype(str) + " · " + r["item"].fillna("").astype(str),
        context=lambda r: r["order_mode"].astype(str),
        parsed="option", reply=reply_or_note, valid=is_one("valid"), scored=True, truncated="truncated")

