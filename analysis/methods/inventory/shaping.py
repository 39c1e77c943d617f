"""The shaping effect of one domain on the design's unit, with CIs that resample the unit (``design``).

- **d on units** (the headline): Cohen's d of the unit means, units shaped high (level > 5) against units shaped low
  (level < 5), pooled SD ((n₁−1)s₁² + (n₂−1)s₂²)/(n₁+n₂−2) over units (Cohen 1988; ``psychometrics.shaping_d``).
- **d on sheets** (only when units repeat; PersonaLLM's published figure): the same over personas (sheets), every
  repeat counted: it reproduces the authors' d but treats repeats of one prompt as independent.
- **ρ**: Spearman ρ(target level, score) over the personas shaped on the domain (``psychometrics.shaping``).
- **CIs**: 95 % percentile intervals (Efron & Tibshirani 1993, ch. 13) of ``N_BOOT`` resamples of the units, drawn
  within each target level (``design.unit_indices``); a unit drawn m times brings its personas m times. When every
  persona is its own unit and nothing repeats, d keeps its analytic CI (``psychometrics.shaping_d_ci``: the units are
  independent, and the t-based interval is what pingouin and R's effsize give).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from analysis.methods.inventory import psychometrics as pm
from analysis.methods.inventory.design import repeated_units, unit_indices, unit_means, units
from analysis.methods.inventory.scoring import Sheets
from analysis.stats import multiset_ranks, percentile_ci, ties, weighted_rank_correlation

N_BOOT = 2000
SEED = 57


def _val(x: float) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def weighted_d(values: np.ndarray, high: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Cohen's d of ``values`` (high group ``high`` against the rest) in each resample, a row of ``w`` giving each
    value's multiplicity: the d of the expanded sample (NaN where a group has < 2 or no variance)."""
    def moments(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        wm = w * mask
        n = wm.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (wm * values).sum(axis=1) / n
        ss = (wm * (values - mean[:, None]) ** 2).sum(axis=1)
        return n, mean, ss

    n1, m1, ss1 = moments(high)
    n2, m2, ss2 = moments(~high)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt((ss1 + ss2) / (n1 + n2 - 2))
        d = (m1 - m2) / sd
    return np.where((n1 >= 2) & (n2 >= 2) & (sd > 0), d, np.nan)


def _multiplicities(unit_of: np.ndarray, drawn: np.ndarray, n_units: int) -> np.ndarray:
    """Per resample, each persona's multiplicity: how often its unit was drawn."""
    counts = np.zeros((drawn.shape[0], n_units))
    np.add.at(counts, (np.arange(drawn.shape[0])[:, None], drawn), 1.0)
    return counts[:, unit_of]


def shaping_effect(s: Sheets, levels: np.ndarray, score: np.ndarray, *, n_boot: int = N_BOOT,
                   seed: int = SEED) -> dict[str, Any]:
    """A domain's shaping entries (module docstring): ``shaping_d`` on units with its CI and group sizes,
    ``shaping_d_unit``; ``shaping_d_sheets`` with its clustered CI when units repeat; ``shaping_rho_lo/hi``."""
    out: dict[str, Any] = {}
    repeated = repeated_units(s)
    unit_score, unit_level, _ = unit_means(s, score, levels)
    shaped = np.isfinite(unit_level) & (unit_level != pm.MIDDLE_LEVEL)
    d, why = pm.shaping_d(unit_level, unit_score)
    high, low = pm.shaping_groups(unit_level, unit_score)
    noun = "persona types" if repeated else "personas"
    out |= {"shaping_d": _val(d), "shaping_n_high": len(high), "shaping_n_low": len(low),
            "shaping_d_unit": f"{noun} ({len(high)} high, {len(low)} low)"}
    if out["shaping_d"] is None:
        out["shaping_d_reason"] = why
    elif not repeated:
        out["shaping_d_lo"], out["shaping_d_hi"] = pm.shaping_d_ci(d, len(high), len(low))
        out["shaping_d_ci_unit"] = "analytic (independent personas)"
    else:
        values, is_high = unit_score[shaped], unit_level[shaped] > pm.MIDDLE_LEVEL
        idx = unit_indices(is_high, n_boot, seed)
        w = np.zeros((n_boot, len(values)))
        np.add.at(w, (np.arange(n_boot)[:, None], idx), 1.0)
        ci = percentile_ci(d, weighted_d(values, is_high, w))
        out |= {"shaping_d_lo": _val(ci.lo), "shaping_d_hi": _val(ci.hi),
                "shaping_d_ci_unit": f"bootstrap over {len(values)} persona types"}
    if repeated:
        out |= sheet_level(s, levels, score, n_boot=n_boot, seed=seed)
    out |= rho_ci(s, levels, score, n_boot=n_boot, seed=seed)
    return out


def _persona_design(s: Sheets, levels: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The personas with a level and a score: their positions, their unit's index, and the number of units."""
    ok = np.flatnonzero(np.isfinite(levels) & np.isfinite(score))
    names = np.asarray(units(s), dtype=object)[ok]
    index = {u: k for k, u in enumerate(dict.fromkeys(names))}
    return ok, np.array([index[u] for u in names], dtype=int), len(index)


def _unit_strata(unit_of: np.ndarray, levels: np.ndarray, n_units: int) -> np.ndarray:
    strata = np.zeros(n_units)
    strata[unit_of] = levels
    return strata


def sheet_level(s: Sheets, levels: np.ndarray, score: np.ndarray, *, n_boot: int = N_BOOT,
                seed: int = SEED) -> dict[str, Any]:
    """d over the sheets (every repeat a sheet) with its CI resampling units, within high and low."""
    d, why = pm.shaping_d(levels, score)
    high, low = pm.shaping_groups(levels, score)
    out: dict[str, Any] = {"shaping_d_sheets": _val(d), "shaping_d_sheets_n_high": len(high),
                           "shaping_d_sheets_n_low": len(low)}
    if out["shaping_d_sheets"] is None:
        out["shaping_d_sheets_reason"] = why
        return out
    ok, unit_of, n_units = _persona_design(s, np.where(levels == pm.MIDDLE_LEVEL, np.nan, levels), score)
    drawn = unit_indices(_unit_strata(unit_of, levels[ok] > pm.MIDDLE_LEVEL, n_units), n_boot, seed)
    ci = percentile_ci(d, weighted_d(score[ok], levels[ok] > pm.MIDDLE_LEVEL, _multiplicities(unit_of, drawn, n_units)))
    return out | {"shaping_d_sheets_lo": _val(ci.lo), "shaping_d_sheets_hi": _val(ci.hi)}


def rho_ci(s: Sheets, levels: np.ndarray, score: np.ndarray, *, n_boot: int = N_BOOT, seed: int = SEED) -> dict[str, Any]:
    """The CI of the shaping ρ over personas, resampling units within target levels (``shaping_rho_ci_unit`` names
    the unit); nothing when ρ has fewer than 3 personas."""
    ok, unit_of, n_units = _persona_design(s, levels, score)
    if len(ok) < 3 or len(set(levels[ok])) < 2:
        return {}
    drawn = unit_indices(_unit_strata(unit_of, levels[ok], n_units), n_boot, seed + 1)
    w = _multiplicities(unit_of, drawn, n_units)
    rho = weighted_rank_correlation(multiset_ranks(ties(levels[ok]), w), multiset_ranks(ties(score[ok]), w), w)
    estimate = weighted_rank_correlation(multiset_ranks(ties(levels[ok]), np.ones(len(ok))),
                                         multiset_ranks(ties(score[ok]), np.ones(len(ok))), np.ones(len(ok)))
    ci = percentile_ci(float(estimate), rho)
    noun = "persona types" if repeated_units(s) else "personas"
    return {"shaping_rho_lo": _val(ci.lo), "shaping_rho_hi": _val(ci.hi),
            "shaping_rho_ci_unit": f"bootstrap over {n_units} {noun} within target levels"}
