"""Effect sizes and rankings (paper Sec. 4.1), plain and multiplicity-weighted (for the bootstrap).

η² (Girden 1992): for values x grouped by the levels of one attribute, one-way ANOVA
    SS_between = Σ_l n_l (x̄_l − x̄)²,  SS_total = Σ_i (x_i − x̄)²,  η² = SS_between / SS_total
(NaN when SS_total = 0). Equivalently η² = F·df_b / (F·df_b + df_w) with scipy's f_oneway F.

Belief η² for Ctx+$ (the model gives a mean m_l and SD s_l per level, no data): assume every level
has the same group size n (``ASSUMED_GROUP_SIZE`` = 10 unless given), with s_l the sample SD, so
    SS_between = n Σ_l (m_l − m̄)²,  SS_within = (n − 1) Σ_l s_l²,  η² = SS_between / (SS_between + SS_within).
n matters: η² = B / (B + (n−1)/n · W) with B = Σ(m_l − m̄)², W = Σ s_l², which falls towards
B / (B + W) as n grows (small groups inflate η², as they do for the simulated behaviour). NoCtx+Tr
and Ctx+Tr state η² directly.

Rankings: the belief ranking lists levels from most to least; its score for level l is
L − position (higher = more). The behavioural ranking orders levels by mean transfer, ties
sharing their average rank. Consistency ρ = Spearman(belief score, behaviour mean) over the
levels present in both, which equals Spearman between the two rankings, ties included
(``analysis.stats.spearman``: Pearson on average ranks; NaN when either side is constant).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from analysis import stats

ASSUMED_GROUP_SIZE = 10


def eta_squared(values: Sequence[float], groups: Sequence[object]) -> float:
    """η² = SS_between / SS_total of ``values`` grouped by ``groups`` (NaN if fewer than 2 values or no variance)."""
    x = np.asarray(values, dtype=float)
    g = np.asarray(groups, dtype=object)
    if x.size < 2:
        return float("nan")
    grand = x.mean()
    ss_total = float(((x - grand) ** 2).sum())
    if ss_total <= 0:
        return float("nan")
    ss_between = sum(float((g == lv).sum()) * (float(x[g == lv].mean()) - grand) ** 2 for lv in dict.fromkeys(g.tolist()))
    return ss_between / ss_total


def eta_squared_from_summary(means: Sequence[float], sds: Sequence[float], n: int = ASSUMED_GROUP_SIZE) -> float:
    """η² of equal groups of size ``n`` with the given means and sample SDs (NaN when everything is 0)."""
    m = np.asarray(means, dtype=float)
    s = np.asarray(sds, dtype=float)
    if n < 2 or m.size < 2:
        raise ValueError("need at least 2 groups of at least 2")
    ss_between = n * float(((m - m.mean()) ** 2).sum())
    ss_within = (n - 1) * float((s ** 2).sum())
    total = ss_between + ss_within
    return ss_between / total if total > 0 else float("nan")


def ranking_scores(ranking: Sequence[str], levels: Sequence[str]) -> np.ndarray:
    """Score per level (in ``levels`` order) from a most-to-least ranking: L − position; NaN if unranked."""
    place = {level: k for k, level in enumerate(ranking)}
    return np.array([len(ranking) - place[lv] if lv in place else np.nan for lv in levels], dtype=float)


def behaviour_ranking(means: Sequence[float], levels: Sequence[str]) -> list[str]:
    """Levels with data ordered by mean transfer, highest first (ties keep level order)."""
    m = np.asarray(means, dtype=float)
    present = [k for k in range(len(levels)) if np.isfinite(m[k])]
    return [levels[k] for k in sorted(present, key=lambda k: -m[k])]


def codes(values: Sequence[str], levels: Sequence[str]) -> np.ndarray:
    """Level index of each value (−1 for a value that is not a level)."""
    index = {lv: k for k, lv in enumerate(levels)}
    return np.array([index.get(v, -1) for v in values], dtype=np.int64)


def weighted_group_stats(x: np.ndarray, code: np.ndarray, n_levels: int, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-resample level means ``(B, L)`` (NaN for empty levels) and η² ``(B,)`` of ``x`` with multiplicities ``w`` (B, n).

    Units whose code is −1 are left out. With all weights 1 these are the plain means and ``eta_squared``.
    """
    x = np.asarray(x, dtype=float)
    keep = code >= 0
    x, code, w = x[keep], code[keep], np.asarray(w, dtype=float)[..., keep]
    onehot = np.zeros((x.size, n_levels))
    onehot[np.arange(x.size), code] = 1.0
    counts = w @ onehot                       # (B, L)
    sums = w @ (onehot * x[:, None])          # (B, L)
    total_n = w.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / counts, np.nan)
        grand = (w @ x) / total_n
        ss_total = (w * (x - grand[:, None]) ** 2).sum(axis=-1)
        dev = np.where(counts > 0, means - grand[:, None], 0.0)
        ss_between = (counts * dev ** 2).sum(axis=-1)
        eta2 = np.where(ss_total > 1e-12 * np.maximum(1.0, w @ (x ** 2)), ss_between / ss_total, np.nan)
    return means, eta2


def rank_consistency(belief_scores: np.ndarray, behaviour_means: np.ndarray) -> np.ndarray:
    """Spearman ρ between belief scores (L,) and behaviour means (..., L), levels with NaN on either side dropped."""
    scores = np.broadcast_to(np.asarray(belief_scores, dtype=float), np.shape(behaviour_means))
    return stats.spearman(scores, behaviour_means)
