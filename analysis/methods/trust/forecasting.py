"""Individual-level self-consistency (paper Sec. 5.2): forecast vs enacted sends, on DataFrames.

For persona i against archetype T_k with forecasts f_{i,h} (made before play) and actions a_{i,h}
in rounds h = 1..R:
    MAE_h = mean_i |f_{i,h} − a_{i,h}|          (per horizon h, over personas with both valid)
    MAE   = mean over all valid (i, h) pairs of |f_{i,h} − a_{i,h}|
Rounds that were not played (an earlier round failed or was invalid) and invalid forecasts have
no pair. When several runs hold the same (persona, archetype, round), the latest run's row counts.
The CI of MAE resamples personas (``analysis.stats`` bootstrap helpers): replicate =
Σ_i w_i S_i / Σ_i w_i C_i with S_i, C_i the persona's sum of absolute errors and pair count.
Forecasts are made per round from a crafted state summary (the default) or all up front; the pairs
are the same either way. ``trajectories`` lays out the paper's Tables 6–8 (forecast, explanation,
play per round) for every persona and archetype.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from analysis import stats
from analysis.stats import json_number


def latest_rounds(rounds: pd.DataFrame) -> pd.DataFrame:
    """One row per (persona, archetype, round): the latest run's when ``_order`` is present."""
    df = rounds.sort_values("_order") if "_order" in rounds else rounds
    return df.drop_duplicates(["persona_id", "archetype", "round"], keep="last")


def forecast_pairs(rounds: pd.DataFrame) -> pd.DataFrame:
    """Valid (forecast, action) pairs with their absolute error, one per (persona, archetype, round)."""
    df = latest_rounds(rounds)
    df = df[(df["valid"] == 1) & df["forecast"].notna() & df["sent"].notna()].copy()
    df["abs_error"] = (df["forecast"].astype(float) - df["sent"].astype(float)).abs()
    return df.reset_index(drop=True)


def archetype_mae(pairs: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95) -> dict[str, Any]:
    """MAE by horizon and overall (with a persona-bootstrap CI) for the pairs of one archetype."""
    if pairs.empty:
        return {"mae_by_round": [], "mae": None, "mae_ci": [None, None], "n_personas": 0, "n_pairs": 0}
    horizon = int(pairs["round"].max())
    by_round = pairs.groupby("round")["abs_error"].mean()
    per = pairs.groupby("persona_id")["abs_error"].agg(["sum", "count"])
    s, c = per["sum"].to_numpy(float), per["count"].to_numpy(float)
    mae = float(s.sum() / c.sum())
    w = stats.counts_from_indices(stats.resample_indices(len(per), n_boot, seed), len(per)) if n_boot else np.zeros((0, len(per)))
    ci = stats.percentile_ci(mae, (w @ s) / (w @ c), level)
    return {"mae_by_round": [json_number(by_round.get(h, np.nan)) for h in range(1, horizon + 1)], "mae": json_number(mae),
            "mae_ci": [json_number(ci.lo), json_number(ci.hi)], "n_personas": int(len(per)), "n_pairs": int(len(pairs))}


def individual_consistency(rounds: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95) -> dict[str, Any]:
    """``{"archetypes": {k: archetype_mae(...)}}`` for every archetype in ``rounds`` (keys are str(k))."""
    pairs = forecast_pairs(rounds)
    ks = sorted({int(k) for k in rounds["archetype"].dropna()})
    return {"archetypes": {str(k): archetype_mae(pairs[pairs["archetype"] == k], n_boot=n_boot, seed=seed, level=level)
                           for k in ks}}


def _explanations(forecasts: pd.DataFrame) -> dict[tuple[str, int], list[Any]]:
    """(persona, archetype) -> the up-front forecast's explanations per round (latest valid row)."""
    if forecasts is None or forecasts.empty:
        return {}
    df = forecasts[forecasts["valid"] == 1]
    df = df.sort_values("_order") if "_order" in df else df
    out = {}
    for r in df.to_dict("records"):
        value = r.get("explanations")
        out[(r["persona_id"], int(r["archetype"]))] = json.loads(value) if isinstance(value, str) else (value or [])
    return out


def trajectories(rounds: pd.DataFrame, forecasts: pd.DataFrame | None = None) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """The paper's Tables 6–8 for every persona: ``{str(k): {persona: [{"round", "forecast", "explanation", "sent",
    "returned", "valid", "reason"}, ...]}}`` in round order. The explanation is the per-round forecast's, else the
    up-front forecast's for that round; invalid or unplayed rounds keep their reason."""
    if rounds.empty:
        return {}
    upfront = _explanations(forecasts) if forecasts is not None else {}
    df = latest_rounds(rounds).sort_values(["archetype", "persona_id", "round"])
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in df.to_dict("records"):
        k, pid, t = int(r["archetype"]), str(r["persona_id"]), int(r["round"])
        explanation = r.get("forecast_explanation")
        if not isinstance(explanation, str):
            listed = upfront.get((pid, k)) or []
            explanation = listed[t - 1] if t - 1 < len(listed) else None
        reason = r.get("forecast_reason") if pd.notna(r.get("forecast_valid")) and r.get("forecast_valid") == 0 else None
        out.setdefault(str(k), {}).setdefault(pid, []).append({
            "round": t, "forecast": _int(r.get("forecast")), "explanation": explanation, "sent": _int(r.get("sent")),
            "returned": _int(r.get("returned")), "valid": bool(r.get("valid") == 1),
            "reason": r.get("reason") if isinstance(r.get("reason"), str) else None,
            "forecast_reason": reason if isinstance(reason, str) else None})
    return out


def _int(x: Any) -> int | None:
    return int(x) if x is not None and pd.notna(x) else None
