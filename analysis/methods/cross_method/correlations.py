"""Correlations across personas, their bootstrap CIs and their chance bands: pure functions on arrays.

- ``weighted_r``: Pearson's r of two persona-level scores under resampling weights, each persona counted as often
  as a bootstrap draw holds it; personas missing either score are left out (pairwise complete). With weights all 1 it
  is the plain Pearson r (checked against ``scipy.stats.pearsonr``). Undefined (NaN) with fewer than
  ``MIN_PERSONAS`` (5) distinct personas or a constant score.
- Bootstrap CIs: the percentile interval of r over persona resamples (``analysis.stats.resample_indices``).
- Chance: a permutation null. Each draw shuffles the personas within each method (one shuffle per method: the
  persona's answers to that method go to another persona), which keeps every score's distribution and the
  correlations within a method and breaks every link across methods. A cell's band is the central 95 % of its draws
  and its p-value is two-sided, ``(1 + #{|r*| ≥ |r|}) / (1 + n)`` (Davison & Hinkley 1997, eq. 4.11).
- Multiple comparisons. The heatmap's cells across methods are one family: each draw's largest |r| over them is the
  max-|r| null (Westfall & Young 1993, single-step maxT), and a cell reads "beyond chance" only when its |r| beats
  that family-wise null (``family_band``; its own uncorrected p is kept beside). The theory pairs are another family:
  their permutation p-values are Holm-adjusted (``holm``, statsmodels), and a pair's verdict reads the adjusted p.
- ``pattern_r``: Westen & Rosenthal's (2003) r_alerting-CV, the correlation between the predicted correlations of a
  set of pairs and the obtained ones (Fisher z-transformed), over the pairs where both are defined; discriminant
  pairs enter as |r| (a link of either sign breaks "no link").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from analysis.chance import ALPHA, MIN_VERDICT_SIMS
from analysis.methods.base import MIN_PAIRED_UNITS

#: Fewer personas scored by both methods and r is undefined: with 3 or 4 points an r of ±1 is common (three points
#: line up) and a bootstrap over them takes a handful of distinct values (the paired-CI rule of ``analysis.methods.base``).
MIN_PERSONAS = MIN_PAIRED_UNITS


def weighted_r(x: np.ndarray, y: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``(B,)`` Pearson r of ``x``, ``y`` (``(n,)``, NaN = not scored) under weights ``W`` (``(B, n)``)."""
    m = np.isfinite(x) & np.isfinite(y)
    x0, y0 = np.where(m, x, 0.0), np.where(m, y, 0.0)
    w = W * m
    sw = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx, my = (w @ x0) / sw, (w @ y0) / sw
        dx, dy = (x0[None, :] - mx[:, None]) * m, (y0[None, :] - my[:, None]) * m
        cov = (w * dx * dy).sum(axis=1)
        vx, vy = (w * dx * dx).sum(axis=1), (w * dy * dy).sum(axis=1)
        r = cov / np.sqrt(vx * vy)
    distinct = (w > 0).sum(axis=1)
    scale = np.maximum(np.abs(x0).max(initial=0.0), np.abs(y0).max(initial=0.0)) or 1.0
    tiny = 1e-24 * scale ** 2 * np.maximum(sw, 1.0)
    r[(distinct < MIN_PERSONAS) | (vx <= tiny) | (vy <= tiny)] = np.nan
    return np.clip(r, -1.0, 1.0)


def r_reason(x: np.ndarray, y: np.ndarray, a: str, b: str) -> str | None:
    """Why r of ``a`` and ``b`` is undefined on these scores, or None when it is defined."""
    m = np.isfinite(x) & np.isfinite(y)
    if m.sum() < MIN_PERSONAS:
        return f"{int(m.sum())} persona(s) scored on both {a} and {b}; r needs at least {MIN_PERSONAS}"
    for name, v in ((a, x), (b, y)):
        if np.ptp(v[m]) == 0:
            return f"{name} is the same for every persona scored on both (no variance)"
    return None


def fisher_z(r: np.ndarray) -> np.ndarray:
    return np.arctanh(np.clip(r, -0.999999, 0.999999))


def pattern_r(observed: np.ndarray, predicted: np.ndarray, discriminant: np.ndarray | None = None) -> np.ndarray:
    """r_alerting-CV per row of ``observed`` (``(B, k)`` pair correlations) against ``predicted`` (``(k,)``): the
    Pearson correlation of ``predicted`` with the Fisher z of the observed r, over the pairs defined in that row
    (Westen & Rosenthal 2003, r_alerting-CV = corr(λ, z_r)); NaN with fewer than 3 such pairs or a constant side.

    The pairs flagged ``discriminant`` (``(k,)`` bool) are scored on |r| against |prediction|: their prediction is
    "no link", which an r of −0.9 breaks as much as one of +0.9. Compared signed, a strongly negative discriminant r
    would sit far below every convergent r and *raise* the pattern (every discriminant r at −0.9 gave a shuffled model
    0.985); on |r| it lowers it."""
    obs = np.atleast_2d(np.asarray(observed, dtype=float))
    lam = np.asarray(predicted, dtype=float)
    if discriminant is not None:
        flag = np.asarray(discriminant, dtype=bool)
        obs = np.where(flag[None, :], np.abs(obs), obs)
        lam = np.where(flag, np.abs(lam), lam)
    out = np.full(obs.shape[0], np.nan)
    for i, row in enumerate(obs):
        m = np.isfinite(row) & np.isfinite(lam)
        if m.sum() < 3 or np.ptp(lam[m]) == 0 or np.ptp(row[m]) == 0:
            continue
        out[i] = float(np.corrcoef(fisher_z(row[m]), lam[m])[0, 1])
    return out


def band(observed: float | None, draws: np.ndarray, *, two_sided: bool = True) -> dict[str, float | int | str | None]:
    """A cell's chance entry: the central 95 % of the finite ``draws`` (``lo``, ``hi``), their mean, ``n_sims``, the
    Monte-Carlo p-value (two-sided on |r|, else one-sided "higher") and the verdict (``analysis.chance``'s rule)."""
    d = np.asarray(draws, dtype=float)
    d = d[np.isfinite(d)]
    if len(d) == 0:
        return {"lo": None, "hi": None, "mean": None, "n_sims": 0, "p": None, "verdict": None}
    lo, hi = np.percentile(d, [2.5, 97.5])
    p = verdict = None
    if observed is not None and np.isfinite(observed):
        hits = np.sum(np.abs(d) >= abs(observed) - 1e-12) if two_sided else np.sum(d >= observed - 1e-12)
        p = float((1 + hits) / (1 + len(d)))
        verdict = "not enough draws" if len(d) < MIN_VERDICT_SIMS else "beyond chance" if p < ALPHA else "chance-like"
    return {"lo": float(lo), "hi": float(hi), "mean": float(d.mean()), "n_sims": int(len(d)), "p": p, "verdict": verdict}


def holm(p: Sequence[float | None]) -> list[float | None]:
    """Holm's (1979) step-down adjusted p-values of the defined entries of ``p`` (None or NaN stays None), the family
    being those m entries: the i-th smallest p becomes max_{j ≤ i} min(1, (m − j + 1) · p_(j)). Computed by
    ``statsmodels.stats.multitest.multipletests(method="holm")``. Holm controls the family-wise error rate under any
    dependence between the tests (the theory pairs share constructs, so their r are dependent)."""
    from statsmodels.stats.multitest import multipletests

    idx = [k for k, v in enumerate(p) if v is not None and np.isfinite(v)]
    out: list[float | None] = [None] * len(p)
    if idx:
        for k, v in zip(idx, multipletests([float(p[k]) for k in idx], method="holm")[1]):  # type: ignore[arg-type]
            out[k] = float(v)
    return out


def family_verdict(p: float | None, family_size: int, n_sims: int) -> str | None:
    """The verdict of a p-value adjusted over a family of ``family_size`` tests (``analysis.chance``'s rule, α = 0.05),
    "not enough draws" when no adjusted p could fall below α: with n draws the smallest Monte-Carlo p is 1/(n+1), so
    Holm's smallest adjusted p is m/(n+1), and a family of m pairs needs n ≥ m/α draws for a verdict (300 for 15)."""
    if p is None:
        return None
    if n_sims < MIN_VERDICT_SIMS or family_size / (n_sims + 1) >= ALPHA:
        return "not enough draws"
    return "beyond chance" if p < ALPHA else "chance-like"


def family_maxima(sims: np.ndarray) -> np.ndarray:
    """``(n,)`` the largest |r| of each null draw over a family of cells (``sims``: draws × cells; undefined cells
    left out, NaN for a draw with none): the max-|r| null of Westfall & Young's (1993) single-step maxT procedure."""
    a = np.abs(np.asarray(sims, dtype=float))
    out = np.full(a.shape[0], np.nan)
    some = np.isfinite(a).any(axis=1)
    out[some] = np.nanmax(a[some], axis=1)
    return out


def family_band(observed: float | None, maxima: np.ndarray, family_size: int) -> dict[str, float | int | str | None]:
    """A cell against the family-wise null: ``family_hi`` the 95th percentile of the per-draw maximum |r| (a cell is
    beyond chance only with |r| above it), ``p_family`` = (1 + #{max* ≥ |r|}) / (1 + n), controlling the family-wise
    error rate over the ``family_size`` cells (Westfall & Young 1993, single-step maxT), and its verdict."""
    d = np.asarray(maxima, dtype=float)
    d = d[np.isfinite(d)]
    out: dict[str, float | int | str | None] = {"family_hi": None, "p_family": None, "family_size": family_size,
                                                "family_verdict": None}
    if len(d) == 0:
        return out
    out["family_hi"] = float(np.percentile(d, 95))
    if observed is not None and np.isfinite(observed):
        p = float((1 + np.sum(d >= abs(observed) - 1e-12)) / (1 + len(d)))
        out["p_family"] = p
        out["family_verdict"] = "not enough draws" if len(d) < MIN_VERDICT_SIMS else \
            "beyond chance" if p < ALPHA else "chance-like"
    return out


def shuffled(scores: np.ndarray, blocks: Mapping[str, Sequence[int]], rng: np.random.Generator) -> np.ndarray:
    """``scores`` (personas × constructs) with the personas shuffled within each method's block of columns."""
    out = scores.copy()
    n = scores.shape[0]
    for cols in blocks.values():
        out[:, list(cols)] = scores[rng.permutation(n)][:, list(cols)]
    return out
