"""The inventory replies as samples (``analysis.samples``): one per persona × item × option order."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis.samples import build, concat, is_one

#: Where an imported answer was bundled without its reply (someone else's text), the sample says so and how to get it.
NOT_BUNDLED = "text not bundled (the bundled demo keeps the numbers only); the full source: {command}"


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
        parsed="option", reply=_reply, valid=is_one("valid"), scored=True, truncated="truncated")


def _reply(rows: pd.DataFrame) -> pd.Series:
    """The raw reply, or for an import bundled as numbers only the note that says where its text is."""
    from analysis.methods.inventory.importer import IMPORT_COMMAND

    bare = rows["raw"].isna() & rows["source"].astype("string").str.endswith("(numbers only)").fillna(False)
    return rows["raw"].astype(object).where(~bare, NOT_BUNDLED.format(command=IMPORT_COMMAND))
