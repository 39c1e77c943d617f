"""Population-level belief–behaviour consistency and conditioning (paper Sec. 4.1–4.3), on DataFrames.

For one strategy and attribute a (levels l = 1..L):
- belief: a ranking of the levels (score L − position; Ctx+$: the predicted means) and its η²
  (stated for NoCtx+Tr / Ctx+Tr; from the predicted means and SDs with an assumed equal group
  size for Ctx+$, see ``analysis.methods.trust.effects``);
- behaviour: the valid single-round transfers of the personas, grouped by their level of a:
  the mean per level (behavioural ranking) and η² = SS_between / SS_total. A persona whose value of a is
  not one of a's levels (a GenAgents persona of the paper's set whose religion is Catholic or whose work
  status is a train-split level) is left out of a's groups only — it still counts for every other
  attribute — and is counted: ``n_grouped``, ``n_outside_levels`` and ``outside_levels`` (value -> count);
- consistency: ρ = Spearman(belief, behavioural ranking) over the levels with data (ties share
  average ranks; NaN when either side is constant) and |η²_belief − η²_behaviour|;
- summary: the medians of ρ and of |Δη²| over attributes (NaN attributes left out; Table 3), and the
  effect-size consistency MAE = mean over attributes of |η²_belief − η²_behaviour| (Sec. 4.3, Table 4's
  second metric).

Bootstrap CIs (``analysis.stats``): personas are resampled with replacement (``resample_indices``
/ ``counts_from_indices`` with the given seed: the same resamples for every attribute and for the
medians), beliefs held fixed; each replicate recomputes the level means, η², ρ and the medians
from multiplicity weights; ``percentile_ci`` gives the interval of the finite replicates.

Conditioning: for a run whose role prompts carried rankings (own, or perturbed to ρ = 0.8 / 0.2),
ρ of the behaviour with the *imposed* ranking and with the *original* elicited ranking, the prior's
achieved ρ with the original and whether it reached its target (|achieved − target| ≤ 0.05,
``TARGET_TOLERANCE``: on 2- and 3-level attributes 0.8 / 0.2 cannot be reached and the closest
ranking — often the original itself — was imposed); the medians over all attributes and over the
reached ones, with their counts; and the MAE of |η²_belief (the original belief) − η²_behaviour|.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis import stats
from analysis.stats import json_number
from analysis.methods.trust import DOLLAR_STRATEGY
from analysis.methods.trust.effects import (
    ASSUMED_GROUP_SIZE, behaviour_ranking, codes, eta_squared_from_summary, rank_consistency, ranking_scores,
    weighted_group_stats,
)
from analysis.methods.trust.personas import BY_KEY


@dataclass(frozen=True)
class Belief:
    """One belief about one attribute: a score per level (higher = more trust / dollars) and its η²."""

    attribute: str
    levels: tuple[str, ...]
    ranking: tuple[str, ...]
    scores: np.ndarray
    eta2: float


def _load(value: Any) -> Any:
    """A JSON column's value (None for SQL NULL / pandas NaN)."""
    if isinstance(value, float) and np.isnan(value):
        return None
    return json.loads(value) if isinstance(value, str) else value


def belief_from_row(row: Mapping[str, Any], assumed_group_size: int = ASSUMED_GROUP_SIZE) -> Belief:
    """A Belief from a valid ``trust_beliefs`` row (Ctx+$: scores = predicted means, η² from means and SDs)."""
    levels = tuple(_load(row["levels"]) or BY_KEY[row["attribute"]].levels)
    ranking = tuple(_load(row["ranking"]))
    if row["strategy"] == DOLLAR_STRATEGY:
        groups = _load(row["groups"])
        means = [float(groups[lv][0]) for lv in levels]
        sds = [float(groups[lv][1]) for lv in levels]
        eta2 = eta_squared_from_summary(means, sds, assumed_group_size)
        return Belief(row["attribute"], levels, ranking, np.array(means), eta2)
    eta2 = row.get("effect_size")
    return Belief(row["attribute"], levels, ranking, ranking_scores(ranking, levels),
                  float(eta2) if eta2 is not None and pd.notna(eta2) else float("nan"))


def _ci(ci: stats.CI) -> list[float | None]:
    return [json_number(ci.lo), json_number(ci.hi)]


def _nanmedian(a: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmedian(a, axis=-1)


def _weights(n: int, n_boot: int, seed: int) -> np.ndarray:
    return stats.counts_from_indices(stats.resample_indices(n, n_boot, seed), n) if n and n_boot else np.zeros((0, n))


def behaviour_frame(transfers: pd.DataFrame) -> pd.DataFrame:
    """Valid transfers, one per persona (the latest run's when ``_order`` is present), with ``attributes`` as dicts."""
    df = transfers[transfers["valid"] == 1].copy()
    if "_order" in df:
        df = df.sort_values("_order")
    df = df.drop_duplicates("persona_id", keep="last").reset_index(drop=True)
    df["attributes"] = [_load(a) for a in df["attributes"]]
    df["sent"] = df["sent"].astype(float)
    return df


def outside_levels(values: list[Any], levels: tuple[str, ...]) -> dict[str, Any]:
    """How many personas have a level of the attribute that is not one of ``levels`` (a GenAgents persona whose religion
    is Catholic, whose work status is a train-split level, ...; no level at all counts as '(none)'): they are left out
    of this attribute's groups only. ``n_grouped`` / ``n_outside_levels`` and the count per outside value."""
    outside: dict[str, int] = {}
    for v in values:
        if v not in levels:
            key = "(none)" if v is None else str(v)
            outside[key] = outside.get(key, 0) + 1
    n_out = sum(outside.values())
    return {"n_grouped": len(values) - n_out, "n_outside_levels": n_out,
            "outside_levels": dict(sorted(outside.items(), key=lambda kv: (-kv[1], kv[0])))}


def _attribute_stats(belief_scores: list[np.ndarray], belief: Belief, behaviour: pd.DataFrame, w: np.ndarray) -> dict[str, Any]:
    """Point values and bootstrap replicates of ρ (one per belief score vector) and η² for one attribute; personas
    whose level is not one of the attribute's levels are left out of its groups (and counted: ``outside_levels``)."""
    x = behaviour["sent"].to_numpy(float)
    values = [a.get(belief.attribute) for a in behaviour["attributes"]]
    code = codes(values, belief.levels)
    ones = np.ones((1, x.size))
    means0, eta0 = weighted_group_stats(x, code, len(belief.levels), ones)
    meansb, etab = weighted_group_stats(x, code, len(belief.levels), w)
    no_reps = np.full(len(w), np.nan)
    return {
        "means": means0[0], "eta2": float(eta0[0]), "eta2_reps": etab,
        "rho": [float(rank_consistency(s, means0)[0]) for s in belief_scores],
        "rho_reps": [rank_consistency(s, meansb) if len(w) else no_reps for s in belief_scores],
        "n_levels": int((np.isfinite(means0[0]) & np.isfinite(belief_scores[0])).sum()),
        **outside_levels(values, belief.levels),
    }


def population_consistency(beliefs: Mapping[str, Belief], transfers: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0,
                           level: float = 0.95) -> dict[str, Any]:
    """Per-attribute ρ, η²s, |Δη²| with CIs and their medians, for one strategy's beliefs and one set of transfers."""
    behaviour = behaviour_frame(transfers)
    n = len(behaviour)
    w = _weights(n, n_boot, seed)
    out: dict[str, Any] = {}
    rho_pts, diff_pts, rho_reps, diff_reps = [], [], [], []
    for attribute, belief in beliefs.items():
        s = _attribute_stats([belief.scores], belief, behaviour, w)
        diff, diffb = abs(belief.eta2 - s["eta2"]), np.abs(belief.eta2 - s["eta2_reps"])
        rho_pts.append(s["rho"][0])
        rho_reps.append(s["rho_reps"][0])
        diff_pts.append(diff)
        diff_reps.append(diffb)
        out[attribute] = {
            "spearman": json_number(s["rho"][0]), "eta2_belief": json_number(belief.eta2),
            "eta2_behaviour": json_number(s["eta2"]),
            "abs_diff": json_number(diff),
            "spearman_ci": _ci(stats.percentile_ci(s["rho"][0], s["rho_reps"][0], level)),
            "eta2_behaviour_ci": _ci(stats.percentile_ci(s["eta2"], s["eta2_reps"], level)),
            "abs_diff_ci": _ci(stats.percentile_ci(diff, diffb, level)),
            "belief_ranking": list(belief.ranking),
            "behaviour_ranking": behaviour_ranking(s["means"], belief.levels),
            "behaviour_means": {lv: json_number(m) for lv, m in zip(belief.levels, s["means"]) if np.isfinite(m)},
            "n_levels_compared": s["n_levels"],
            "n_grouped": s["n_grouped"], "n_outside_levels": s["n_outside_levels"], "outside_levels": s["outside_levels"],
        }
    return {"attributes": out, **_medians("spearman", rho_pts, rho_reps, n_boot, level),
            **_medians("abs_diff", diff_pts, diff_reps, n_boot, level), **_mae(diff_pts, diff_reps, n_boot, level),
            "n_personas": n}


def _mae(points: list[float], reps: list[np.ndarray], n_boot: int, level: float) -> dict[str, Any]:
    """``mae_eta2``: mean of the finite |Δη²| over attributes, with the bootstrap CI of that mean."""
    pts = np.array(points, dtype=float)
    if not np.isfinite(pts).any():
        return {"mae_eta2": None, "mae_eta2_ci": [None, None]}
    point = float(np.nanmean(pts))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        rep = np.nanmean(np.stack(reps, axis=-1), axis=-1) if n_boot and reps else np.array([])
    return {"mae_eta2": json_number(point), "mae_eta2_ci": _ci(stats.percentile_ci(point, rep, level))}


def _medians(name: str, points: list[float], reps: list[np.ndarray], n_boot: int, level: float) -> dict[str, Any]:
    if not points:
        return {f"median_{name}": None, f"median_{name}_ci": [None, None]}
    point = float(_nanmedian(np.array(points, dtype=float)))
    rep = _nanmedian(np.stack(reps, axis=-1)) if n_boot else np.array([])
    return {f"median_{name}": json_number(point), f"median_{name}_ci": _ci(stats.percentile_ci(point, rep, level))}


TARGET_TOLERANCE = 0.05


def target_reached(achieved: float, target: float) -> bool | None:
    """Whether an imposed prior's achieved ρ is within ``TARGET_TOLERANCE`` of its target (None without a target)."""
    if not np.isfinite(target):
        return None
    return bool(np.isfinite(achieved) and abs(achieved - target) <= TARGET_TOLERANCE + 1e-12)


def conditioning_consistency(priors: pd.DataFrame, transfers: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0,
                             level: float = 0.95, belief_eta2: Mapping[str, float] | None = None) -> dict[str, Any]:
    """ρ of conditioned behaviour with the imposed and with the original ranking, per attribute, and medians.

    ``priors``: rows with attribute, original, imposed (rankings; rows without an imposed ranking are
    skipped), achieved (ρ between the two), target. ``belief_eta2``: attribute -> the original belief's η²
    (for the effect-size MAE; attributes without one are left out of it).
    """
    behaviour = behaviour_frame(transfers)
    w = _weights(len(behaviour), n_boot, seed)
    belief_eta2 = belief_eta2 or {}
    out: dict[str, Any] = {}
    pts: dict[str, list[float]] = {"imposed": [], "original": [], "imposed_reached": [], "original_reached": [], "diff": []}
    reps: dict[str, list[np.ndarray]] = {k: [] for k in pts}
    for row in priors.to_dict("records"):
        imposed, original = _load(row.get("imposed")), _load(row.get("original"))
        if not imposed or not original:
            continue
        levels = _prior_levels(row["attribute"], original)
        belief = Belief(row["attribute"], levels, tuple(imposed), ranking_scores(imposed, levels), float("nan"))
        s = _attribute_stats([ranking_scores(imposed, levels), ranking_scores(original, levels)], belief, behaviour, w)
        achieved, target = _float(row.get("achieved")), _float(row.get("target"))
        reached = target_reached(achieved, target)
        for k, key in enumerate(("imposed", "original")):
            pts[key].append(s["rho"][k])
            reps[key].append(s["rho_reps"][k])
            if reached:
                pts[f"{key}_reached"].append(s["rho"][k])
                reps[f"{key}_reached"].append(s["rho_reps"][k])
        eta_belief = _float(belief_eta2.get(row["attribute"]))
        diff = abs(eta_belief - s["eta2"])
        pts["diff"].append(diff)
        reps["diff"].append(np.abs(eta_belief - s["eta2_reps"]))
        out[row["attribute"]] = {
            "spearman_imposed": json_number(s["rho"][0]), "spearman_original": json_number(s["rho"][1]),
            "target_reached": reached, "n_levels": len(levels), "eta2_belief": json_number(eta_belief),
            "abs_diff": json_number(diff),
            "spearman_imposed_ci": _ci(stats.percentile_ci(s["rho"][0], s["rho_reps"][0], level)),
            "spearman_original_ci": _ci(stats.percentile_ci(s["rho"][1], s["rho_reps"][1], level)),
            "prior_spearman": json_number(_float(row.get("achieved"))), "target": json_number(_float(row.get("target"))),
            "eta2_behaviour": json_number(s["eta2"]), "imposed": list(imposed), "original": list(original),
            "behaviour_ranking": behaviour_ranking(s["means"], levels),
            "n_grouped": s["n_grouped"], "n_outside_levels": s["n_outside_levels"], "outside_levels": s["outside_levels"],
        }
    has_target = [a for a, d in out.items() if d["target_reached"] is not None]
    reached_doc: dict[str, Any] = {}
    if has_target:  # imposed priors: the medians over the attributes whose prior reached its target, and how many
        reached_doc = {**_medians("spearman_imposed_reached", pts["imposed_reached"], reps["imposed_reached"], n_boot, level),
                       **_medians("spearman_original_reached", pts["original_reached"], reps["original_reached"], n_boot,
                                  level),
                       "n_reached": sum(bool(out[a]["target_reached"]) for a in has_target), "n_with_target": len(has_target),
                       "target_tolerance": TARGET_TOLERANCE}
    return {"attributes": out, **_medians("spearman_imposed", pts["imposed"], reps["imposed"], n_boot, level),
            **_medians("spearman_original", pts["original"], reps["original"], n_boot, level), **reached_doc,
            **_mae(pts["diff"], reps["diff"], n_boot, level), "n_personas": len(behaviour)}


def _prior_levels(attribute: str, original: list[str]) -> tuple[str, ...]:
    """The levels of a prior: the rolescope15 order when the ranking is a permutation of it, else the ranking's own
    order (a level order only aligns scores with means; ρ does not depend on it)."""
    known = BY_KEY.get(attribute)
    return known.levels if known is not None and sorted(known.levels) == sorted(original) else tuple(original)


def _float(x: Any) -> float:
    return float(x) if x is not None and pd.notna(x) else float("nan")
