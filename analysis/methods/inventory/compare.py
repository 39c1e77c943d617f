"""Comparing two models on the inventory: the headlines as their reports hold them, each A − B with a bootstrap CI
over the units both answered (``analysis.methods.resampled``: paired when they share them, else unpaired; the
statistics on resampled units: ``paired``), and per domain of the main inventory the mean score difference over the
shared personas with a CI resampling the shared design units (a persona type's repeats together)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis import stats
from analysis.methods.base import Difference, Side, difference, too_few_units
from analysis.methods.resampled import resampled_difference

N_BOOT = 1000


def persona_frame(doc: dict[str, Any]) -> pd.DataFrame:
    """persona_id × domain scores of a model's main inventory (from its report's profile figure)."""
    from analysis.methods.base import doc_frame

    frame = doc_frame((doc.get("figures") or {}).get("profiles"))
    if frame is None or frame.empty:
        return pd.DataFrame()
    return frame.pivot_table(index="persona_id", columns="domain", values="score", aggfunc="first")


def main_sheets(side: Side) -> Any:
    """The side's ``Sheets`` of its main inventory, from its store (the configuration its report chose)."""
    from analysis.methods.inventory.answers import selected_answers
    from analysis.methods.inventory.families import FAMILY
    from analysis.methods.inventory.report import n_options_of
    from analysis.methods.inventory.scoring import sheets
    from analysis.runs import comparable

    selection = comparable.select(side.store, FAMILY, model=side.model, config=side.config)
    answers = selected_answers(side.store, selection=selection)
    rows = answers[(answers["model"] == side.model) & (answers["inventory"] == side.doc["inventory"])]
    return sheets(rows, n_options_of(side.store, rows))


def compare_inventory(a: Side, b: Side, *, n_boot: int = N_BOOT) -> list[Difference]:
    from analysis.methods.inventory.design import units
    from analysis.methods.inventory.paired import alpha_resampler, shaping_resampler

    sa, sb = main_sheets(a), main_sheets(b)
    out = []
    for key, label, resampler in (("inventory_shaping", "Shaping ρ, mean over domains", shaping_resampler),
                                  ("inventory_alpha", "α, mean over domains", None)):
        ra = resampler(sa) if resampler else alpha_resampler(sa, a.doc["inventories"][a.doc["inventory"]])
        rb = resampler(sb) if resampler else alpha_resampler(sb, b.doc["inventories"][b.doc["inventory"]])
        out.append(resampled_difference("inventory", label, ra, rb, (a.doc["headlines"][key] or {}).get("value"),
                                        (b.doc["headlines"][key] or {}).get("value"), key=key, n_boot=n_boot))
    if a.doc.get("inventory") != b.doc.get("inventory"):
        return out
    pa, pb = persona_frame(a.doc), persona_frame(b.doc)
    shared = sorted(set(pa.index) & set(pb.index))
    unit_of = dict(zip(sa.personas, units(sa)))
    for d in [c for c in pa.columns if c in pb.columns]:
        x, y = pa.loc[shared, d].to_numpy(float), pb.loc[shared, d].to_numpy(float)
        ok = np.isfinite(x) & np.isfinite(y)
        cluster = [unit_of.get(p, p) for p, keep in zip(shared, ok) if keep]
        names = list(dict.fromkeys(cluster))
        noun = "personas" if len(names) == len(cluster) else "persona types"
        why = too_few_units(len(names), noun)
        label = f"{d} score, mean over shared personas"
        if why:
            out.append(difference("inventory", label, np.nanmean(x) if ok.any() else None,
                                  np.nanmean(y) if ok.any() else None, note=why))
            continue
        diff = x[ok] - y[ok]
        where = {u: k for k, u in enumerate(names)}
        counts = stats.counts_from_indices(stats.resample_indices(len(names), n_boot, seed=0), len(names))
        w = counts[:, [where[u] for u in cluster]]
        ci = stats.percentile_ci(float(diff.mean()), (w * diff).sum(axis=1) / w.sum(axis=1))
        out.append(difference("inventory", label, float(x[ok].mean()), float(y[ok].mean()), ci,
                              note=f"paired over {int(ok.sum())} personas, resampling {len(names)} {noun}"))
    return out
