"""A campaign's samples: its parts' samples, each from its own method (``Method.samples`` of the part runs)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from analysis.methods.cross_method.session import PARTS


def samples(store: Any, run_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """The samples of the campaigns ``run_ids`` names (every part's replies). Without run ids, none: each part's
    replies are its own method's samples already, and listing them twice would count them twice."""
    from analysis import methods
    from analysis.samples import concat, empty

    if not run_ids or PARTS.name not in store.table_names():
        return empty()
    parts = store.table(PARTS.name)
    parts = parts[parts["run_id"].isin(list(run_ids)) & ~parts["part_run_id"].isin(list(run_ids))]
    if parts.empty:
        return empty()
    return concat(methods.get(m).samples(store, list(group["part_run_id"]))
                  for m, group in parts.groupby("method", sort=False) if methods.get(m).samples is not None)
