"""Comparing two models on the inventory: the headlines as their reports hold them, and per domain of the main
inventory the mean score difference with a paired bootstrap CI over the personas both answered (percentile
interval, ``analysis.stats``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis import stats
from analysis.methods.base import Difference, Side, difference, too_few_units

N_BOOT = 1000


def persona_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """persona_id × domain scores of a model's main inventory (from its report's profile figure)."""
    from analysis.methods.base import doc_frame

    frame = doc_frame((doc.get("figures") or {}).get("profiles"))
    if frame is None or frame.empty:
        return pd.DataFrame()
    return frame.pivot_table(index="persona_id", columns="domain", values="score", aggfunc="first")


def compare_inventory(a: Side, b: Side, *, n_boot: int = N_BOOT) -> list[Difference]:
    out = [difference("inventory", label, (a.doc["headlines"][key] or {}).get("value"),
                      (b.doc["headlines"][key] or {}).get("value"), key=key)
           for key, label in (("inventory_shaping", "Shaping ρ, mean over domains"),
                              ("inventory_alpha", "α, mean over domains"))]
    if a.doc.get("inventory") != b.doc.get("inventory"):
        return out
    pa, pb = persona_frame(a.doc), persona_frame(b.doc)
    shared = sorted(set(pa.index) & set(pb.index))
    for d in [c for c in pa.columns if c in pb.columns]:
        x, y = pa.loc[shared, d].to_numpy(float), pb.loc[shared, d].to_numpy(float)
        ok = np.isfinite(x) & np.isfinite(y)
        why = too_few_units(int(ok.sum()), "personas")
        label = f"{d} score, mean over shared personas"
        if why:
            out.append(difference("inventory", label, np.nanmean(x) if ok.any() else None,
                                  np.nanmean(y) if ok.any() else None, note=why))
            continue
        diff = x[ok] - y[ok]
        idx = stats.resample_indices(len(diff), n_boot, seed=0)
        ci = stats.percentile_ci(float(diff.mean()), diff[idx].mean(axis=1))
        out.append(difference("inventory", label, float(x[ok].mean()), float(y[ok].mean()), ci,
                              note=f"paired over {int(ok.sum())} personas"))
    return out
