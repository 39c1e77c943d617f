"""Shared statistics: rank helpers, Kendall's W, seeded percentile bootstrap over personas.

Bootstrap (Efron & Tibshirani 1993, ch. 13, percentile interval): draw ``n`` unit ids
(personas) with replacement ``n_boot`` times, recompute the statistic on each resample, and
report the statistic on the original data with the ``(1−level)/2`` and ``(1+level)/2``
percentiles (linear interpolation) of the finite replicates. A persona drawn twice counts as
two personas. Two equivalent entry points draw the *same* resamples for the same seed:

- ``bootstrap(frame, statistic)``: general; the statistic is a callable on a resampled
  DataFrame (slow: one pandas call per resample);
- ``bootstrap_counts(statistic, n)``: fast; the statistic receives a ``(B, n)`` matrix of
  multiplicities (how often each unit was drawn) and returns ``B`` values at once.

Multiset ranks make rank statistics vectorisable: sort the data once (``Ties``), and the
average rank of unit ``j`` in a resample where unit ``i`` appears ``w_i`` times is
``L_j + (E_j + 1)/2`` (``L_j`` = total weight strictly below ``x_j``, ``E_j`` = total weight
tied with it) — a cumulative sum, no re-sorting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd


class CI(NamedTuple):
    """A point estimate with its bootstrap percentile interval."""

    estimate: float
    lo: float
    hi: float


# -- ranks -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ties:
    """Sort order and tie groups of ``x`` along its last axis (NaN sorts last, each NaN alone)."""

    order: np.ndarray    # argsort of x
    inverse: np.ndarray  # argsort of order: sorted position of each element
    start: np.ndarray    # sorted position where each sorted element's tie group starts
    end: np.ndarray      # sorted position where it ends (inclusive)


def json_number(x: float | None, digits: int = 6) -> float | None:
    """``x`` rounded to ``digits`` for a JSON document, or None when missing or not finite (JSON has no NaN)."""
    return None if x is None or not np.isfinite(x) else round(float(x), digits)


def ties(x: np.ndarray) -> Ties:
    """Sort ``x`` once along its last axis and record its tie groups (exact equality)."""
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, axis=-1, kind="stable")
    xs = np.take_along_axis(x, order, axis=-1)
    n = x.shape[-1]
    pos = np.broadcast_to(np.arange(n), x.shape)
    differs = xs[..., 1:] != xs[..., :-1]  # NaN != NaN: every NaN is its own group
    first = np.concatenate([np.ones(x.shape[:-1] + (1,), bool), differs], axis=-1)
    last = np.concatenate([differs, np.ones(x.shape[:-1] + (1,), bool)], axis=-1)
    start = np.maximum.accumulate(np.where(first, pos, 0), axis=-1)
    end = np.flip(np.minimum.accumulate(np.flip(np.where(last, pos, n), -1), axis=-1), -1)
    return Ties(order, np.argsort(order, axis=-1), start, end)


def multiset_ranks(t: Ties, w: np.ndarray) -> np.ndarray:
    """Average ranks (1-based) of each unit in the multiset where unit ``j`` appears ``w[..., j]`` times.

    ``w`` broadcasts against the sorted data (extra leading axes = resamples). With all
    weights 1 this is ``scipy.stats.rankdata(x, method="average")``. Units with weight 0
    get a rank that carries no meaning (weight it out).
    """
    w = np.asarray(w, dtype=float)
    k = t.order.ndim
    shape = np.broadcast_shapes(w.shape, t.order.shape)
    trail, n = shape[len(shape) - k:], shape[-1]
    rows = int(np.prod(trail[:-1], dtype=int))
    offset = (np.arange(rows) * n)[:, None]

    def flat(a: np.ndarray) -> np.ndarray:  # per-row positions -> positions in the flattened trail
        return (np.broadcast_to(a, trail).reshape(rows, n) + offset).ravel()

    wf = np.broadcast_to(w, shape).reshape(-1, rows * n)
    ws = np.take(wf, flat(t.order), axis=1)
    cs = np.cumsum(ws.reshape(-1, rows, n), axis=-1).reshape(ws.shape)
    below = np.take(cs - ws, flat(t.start), axis=1)
    upto = np.take(cs, flat(t.end), axis=1)
    ranks = np.take((below + upto + 1.0) / 2.0, flat(t.inverse), axis=1)
    return ranks.reshape(shape)


def weighted_rank_correlation(rx: np.ndarray, ry: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Pearson correlation of multiset ranks ``rx``, ``ry`` (from ``multiset_ranks`` with ``w``).

    This is Spearman's rho of the multiset. NaN when fewer than 2 units or either side is
    constant (zero rank variance).
    """
    # Σw·r = N(N+1)/2 for multiset ranks, so Σw(r−mid)(s−mid) = Σw·r·s − N·mid²; with half-integer
    # ranks and integer weights every term is exact in float64 (no cancellation).
    n = np.sum(w, axis=-1)
    c = n * (n + 1.0) ** 2 / 4.0
    wrx = w * rx
    sxy = np.sum(wrx * ry, axis=-1) - c
    sxx = np.sum(wrx * rx, axis=-1) - c
    syy = np.sum(w * ry * ry, axis=-1) - c
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = sxy / np.sqrt(sxx * syy)
    return np.where((sxx > 0) & (syy > 0), rho, np.nan)


def spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho along the last axis over pairwise-complete entries (NaN dropped pairwise).

    NaN when fewer than 2 complete pairs or one side is constant (like scipy, which warns).
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    w = (np.isfinite(x) & np.isfinite(y)).astype(float)
    return weighted_rank_correlation(multiset_ranks(ties(x), w), multiset_ranks(ties(y), w), w)


def average_ranks(x: np.ndarray, *, descending: bool = False, tol: float = 0.0) -> np.ndarray:
    """Average ranks (1 = smallest, or largest with ``descending``) along the last axis.

    Values closer than ``tol`` to their sorted neighbour are tied (``tol=1e-8`` is benchbench's
    ``utils.base.rankdata``, which ranks chained near-equal values together).
    """
    a = np.asarray(x, dtype=float)
    a = -a if descending else a
    if tol == 0.0:
        return multiset_ranks(ties(a), np.ones(a.shape))
    order = np.argsort(a, axis=-1, kind="stable")
    xs = np.take_along_axis(a, order, axis=-1)
    codes = np.cumsum(np.concatenate([np.zeros(a.shape[:-1] + (1,)), np.abs(np.diff(xs, axis=-1)) > tol], -1), -1)
    return multiset_ranks(ties(np.take_along_axis(codes, np.argsort(order, axis=-1), axis=-1)), np.ones(a.shape))


def kendall_w(ranks: np.ndarray) -> float:
    """Kendall's coefficient of concordance W with the tie correction (Kendall & Babington Smith 1939).

    ``ranks``: (m raters, n items) average ranks. With R_i the rank sum of item i,
    S = Σ_i (R_i − m(n+1)/2)² and T_j = Σ_groups (t³ − t) over rater j's tie groups::

        W = 12 S / (m² (n³ − n) − m Σ_j T_j)

    (without ties this is 12 S / (m² (n³ − n))). NaN when m < 1, n < 2, or every rater ties all items.
    """
    r = np.asarray(ranks, dtype=float)
    if r.ndim != 2 or r.shape[0] < 1 or r.shape[1] < 2:
        return float("nan")
    m, n = r.shape
    s = float(np.sum((r.sum(axis=0) - m * (n + 1) / 2.0) ** 2))
    t_sum = 0.0
    for row in r:
        _, counts = np.unique(row, return_counts=True)
        t_sum += float(np.sum(counts.astype(float) ** 3 - counts))
    denom = m * m * (n ** 3 - n) - m * t_sum
    return 12.0 * s / denom if denom > 0 else float("nan")


# -- bootstrap ---------------------------------------------------------------------------------
def resample_indices(n: int, n_boot: int, seed: int) -> np.ndarray:
    """``(n_boot, n)`` unit positions drawn with replacement by ``numpy.random.default_rng(seed)``."""
    if n < 1:
        raise ValueError("bootstrap needs at least one unit")
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def counts_from_indices(idx: np.ndarray, n: int) -> np.ndarray:
    """Multiplicity matrix ``(B, n)``: how often each unit appears in each resample."""
    b = idx.shape[0]
    flat = (idx + n * np.arange(b)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(float)


def percentile_ci(estimate: float, replicates: np.ndarray, level: float = 0.95) -> CI:
    """Percentile interval of the finite replicates (NaN bounds when there are none)."""
    reps = np.asarray(replicates, dtype=float)
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return CI(float(estimate), float("nan"), float("nan"))
    lo, hi = np.percentile(reps, [50.0 * (1 - level), 50.0 * (1 + level)])
    return CI(float(estimate), float(lo), float(hi))


def bootstrap_counts(
    statistic: Callable[[np.ndarray], np.ndarray], n: int, *, n_boot: int = 1000, level: float = 0.95, seed: int = 0,
) -> CI:
    """Percentile bootstrap of a vectorised statistic: ``statistic(W)`` maps ``(B, n)`` multiplicities to ``(B,)``.

    The estimate is ``statistic(ones((1, n)))[0]``. Same resamples as ``bootstrap`` for the same seed.
    With no unit (n = 0) everything is NaN.
    """
    if n == 0:
        return CI(float("nan"), float("nan"), float("nan"))
    estimate = float(np.asarray(statistic(np.ones((1, n))))[0])
    reps = np.asarray(statistic(counts_from_indices(resample_indices(n, n_boot, seed), n)), dtype=float)
    return percentile_ci(estimate, reps, level)


def paired_bootstrap_counts(
    statistic_a: Callable[[np.ndarray], np.ndarray], statistic_b: Callable[[np.ndarray], np.ndarray], n: int,
    *, n_boot: int = 1000, level: float = 0.95, seed: int = 0,
) -> CI:
    """Percentile bootstrap of ``statistic_a − statistic_b`` with the same resamples of the ``n`` shared units."""
    return bootstrap_counts(lambda w: np.asarray(statistic_a(w)) - np.asarray(statistic_b(w)), n,
                            n_boot=n_boot, level=level, seed=seed)


def _resampled(frame: pd.DataFrame, groups: list[np.ndarray], draw: np.ndarray, by: str) -> pd.DataFrame:
    rows = np.concatenate([groups[i] for i in draw])
    new_ids = np.concatenate([np.full(len(groups[i]), k) for k, i in enumerate(draw)])
    return frame.iloc[rows].assign(**{by: new_ids})


def _unit_groups(frame: pd.DataFrame, by: str, ids: np.ndarray) -> list[np.ndarray]:
    positions = pd.Series(np.arange(len(frame)), index=frame[by].to_numpy())
    grouped = positions.groupby(level=0).apply(lambda s: s.to_numpy()).to_dict()
    return [grouped[i] for i in ids]


def bootstrap(
    frame: pd.DataFrame, statistic: Callable[[pd.DataFrame], float], *, by: str = "persona_id",
    n_boot: int = 1000, level: float = 0.95, seed: int = 0,
) -> CI:
    """Percentile bootstrap over the units in column ``by`` (sorted unique ids are the units).

    Each resample holds the rows of the drawn units; the ``by`` column is replaced by the draw
    position (0..n−1) so a unit drawn twice is two units. ``statistic`` maps a frame to a float.
    """
    ids = np.sort(frame[by].unique())
    groups = _unit_groups(frame, by, ids)
    idx = resample_indices(len(ids), n_boot, seed)
    reps = np.array([statistic(_resampled(frame, groups, draw, by)) for draw in idx], dtype=float)
    return percentile_ci(float(statistic(frame)), reps, level)


def paired_bootstrap_diff(
    frame_a: pd.DataFrame, frame_b: pd.DataFrame, statistic: Callable[[pd.DataFrame], float], *,
    by: str = "persona_id", n_boot: int = 1000, level: float = 0.95, seed: int = 0,
) -> CI:
    """Bootstrap CI of ``statistic(a) − statistic(b)`` over the units both frames share, resampled together.

    Used to compare two models on the same personas: the pairing removes the between-persona
    variance the two share. Units present in only one frame are dropped from both.
    """
    shared = np.intersect1d(frame_a[by].unique(), frame_b[by].unique())
    if shared.size == 0:
        raise ValueError(f"the two frames share no '{by}'")
    a, b = frame_a[frame_a[by].isin(shared)], frame_b[frame_b[by].isin(shared)]
    ga, gb = _unit_groups(a, by, shared), _unit_groups(b, by, shared)
    idx = resample_indices(len(shared), n_boot, seed)
    reps = np.array([statistic(_resampled(a, ga, d, by)) - statistic(_resampled(b, gb, d, by)) for d in idx], dtype=float)
    return percentile_ci(float(statistic(a) - statistic(b)), reps, level)


def nanmean_last(x: np.ndarray) -> np.ndarray:
    """Mean over the last axis ignoring NaN (NaN, without a warning, when all are NaN)."""
    x = np.asarray(x, dtype=float)
    finite = np.isfinite(x)
    count = finite.sum(axis=-1)
    total = np.where(finite, x, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


__all__ = [
    "CI", "Ties", "ties", "multiset_ranks", "weighted_rank_correlation", "spearman", "average_ranks", "kendall_w",
    "resample_indices", "counts_from_indices", "percentile_ci", "bootstrap_counts", "paired_bootstrap_counts",
    "bootstrap", "paired_bootstrap_diff", "nanmean_last",
]
