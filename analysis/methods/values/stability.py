"""Rank-order and ipsative stability of value expression across contexts, with bootstrap CIs.

Input: the long table from ``analysis.methods.values.scores.value_scores`` (one model; contexts may
use different instruments — the SVS context is compared with PVQ contexts on its ipsatised
value scores, as the reference code does). Formulas (Kovač et al. 2024, "Stick to Your Role!";
reference ``compute_rank_order_stability`` / ``compute_ipsative_stability``):

- Rank-Order stability: for each context pair (a, b) and value v, Spearman's rho across
  personas of the ipsatised v scores in a and in b. Mean over pairs per value, then mean
  over values (the headline). The context × context matrix is the mean over values.
- Ipsative stability: for each persona and context pair, Spearman's rho over the 10 values
  of its ipsatised scores in a and in b; mean over personas and pairs.

Missing data: a persona (or value) without a score in one context of a pair is dropped for
that pair only. A constant side (or fewer than 2 complete entries) gives NaN (the reference
turns scipy's ConstantInputWarning into NaN). Means skip NaN by default; ``skipna=False``
propagates NaN like the reference's ``np.mean``.

CIs: percentile bootstrap over personas (``analysis.stats``), vectorised with multiset ranks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from analysis import stats
from analysis.methods.values import VALUES

BLOCK = 16  # resamples processed at once (bounds memory: BLOCK × contexts × values × personas)


def pair_label(a: str, b: str) -> str:
    """The key of a context pair in tables and JSON: ``"a|b"``."""
    return f"{a}|{b}"


@dataclass(frozen=True)
class ScoreCube:
    """Scores as an array ``x[context, value, persona]`` (NaN = missing)."""

    contexts: list[str]
    values: list[str]
    personas: np.ndarray
    x: np.ndarray

    @property
    def pairs(self) -> list[tuple[int, int]]:
        return list(combinations(range(len(self.contexts)), 2))


def score_cube(scores: pd.DataFrame, *, column: str = "ipsatised", contexts: Sequence[str] | None = None) -> ScoreCube:
    """Arrange one model's value scores as ``[context, value, persona]``.

    Contexts in ``contexts`` order (default: order of first appearance); values in ``VALUES``
    order (those present); personas = sorted union over contexts.
    """
    if "model" in scores and scores["model"].nunique(dropna=False) > 1:
        raise ValueError(f"scores hold several models {sorted(map(str, scores['model'].unique()))}: filter one model first")
    if "instrument" in scores:
        per_ctx = scores.groupby("context")["instrument"].nunique()
        if (per_ctx > 1).any():
            raise ValueError(f"context(s) {list(per_ctx[per_ctx > 1].index)} hold several instruments: filter one")
    ctx = list(contexts) if contexts is not None else list(dict.fromkeys(scores["context"]))
    present = set(scores["value"])
    values = [v for v in VALUES if v in present] + sorted(present - set(VALUES))
    personas = np.sort(scores["persona_id"].unique())
    table = scores.pivot_table(index=["context", "value"], columns="persona_id", values=column, aggfunc="mean", dropna=False)
    full = pd.MultiIndex.from_product([ctx, values], names=["context", "value"])
    arr = table.reindex(index=full, columns=personas).to_numpy(dtype=float)
    return ScoreCube(ctx, values, personas, arr.reshape(len(ctx), len(values), len(personas)))


# -- vectorised cores (w: (B, n) persona multiplicities) ------------------------------------------
def _drop_corrections(x: np.ndarray, valid: np.ndarray, ctx: np.ndarray, vv: np.ndarray, shared: np.ndarray):
    """For cells k = (context ctx[k], value vv[k]): the personas i ranked there but not shared,
    and their step rows H[e, j] = 1 if x_i < x_j, ½ if tied (the rank mass each one adds)."""
    kk, ii = np.nonzero(valid[ctx, vv] & ~shared)
    xk = x[ctx[kk], vv[kk]]  # (E, n)
    xi = xk[np.arange(kk.size), ii][:, None]
    keys, starts = np.unique(kk, return_index=True)
    return keys, starts, ii, (xi < xk) + 0.5 * (xi == xk)


def _rank_order_rho(cube: ScoreCube, w: np.ndarray) -> np.ndarray:
    """rho[B, pair, value] for persona multiplicities ``w`` (B, n).

    Each context × value is ranked once among its own personas; one batched product gives
    every pair's weighted rank covariance, exact where both contexts have the same personas.
    In the other (pair, value) cells, each persona missing from the other context is
    removed from the ranks by subtracting its step row (rank = Σ_i w_i H(x_j − x_i) + ½),
    or, when many are missing, both sides are re-ranked on the shared personas.
    """
    x, pairs = cube.x, cube.pairs
    n_pairs, n_values = len(pairs), x.shape[1]
    out = np.full((w.shape[0], n_pairs, n_values), np.nan)
    if not pairs:
        return out
    valid = np.isfinite(x)  # (C, V, n)
    t = stats.ties(x)
    ia, ib = (np.array(side) for side in zip(*pairs))
    pp, vv = np.nonzero(~np.all(valid[ia] == valid[ib], axis=-1))  # cells whose persona sets differ
    shared = valid[ia[pp], vv] & valid[ib[pp], vv]  # (K, n)
    fixes = [_drop_corrections(x, valid, side[pp], vv, shared) for side in (ia, ib)]
    rerank = sum(f[2].size for f in fixes) > 4 * pp.size  # many drops per cell: re-ranking is cheaper
    if rerank:
        subs = [stats.Ties(*(f[side[pp], vv] for f in (t.order, t.inverse, t.start, t.end))) for side in (ia, ib)]
    for lo in range(0, w.shape[0], BLOCK):
        wb = w[lo:lo + BLOCK]
        wc = wb[:, None, None, :] * valid[None]  # (b, C, V, n)
        ranks = stats.multiset_ranks(t, wc)
        dv = np.swapaxes(ranks - (wc.sum(axis=-1, keepdims=True) + 1.0) / 2.0, 1, 2)  # (b, V, C, n)
        cov = np.matmul(dv * np.swapaxes(wc, 1, 2), np.swapaxes(dv, 2, 3))  # (b, V, C, C)
        var = np.diagonal(cov, axis1=2, axis2=3)  # (b, V, C)
        sab, saa, sbb = cov[:, :, ia, ib], var[:, :, ia], var[:, :, ib]  # (b, V, P)
        with np.errstate(invalid="ignore", divide="ignore"):
            rho = np.where((saa > 0) & (sbb > 0), sab / np.sqrt(saa * sbb), np.nan)
        out[lo:lo + BLOCK] = np.swapaxes(rho, 1, 2)
        if pp.size and rerank:
            wp = wb[:, None, :] * shared
            ra, rb = (stats.multiset_ranks(sub, wp) for sub in subs)
            out[lo:lo + BLOCK, pp, vv] = stats.weighted_rank_correlation(ra, rb, wp)
        elif pp.size:
            sides = []
            for side, (keys, starts, ii, steps) in zip((ia, ib), fixes):
                r = ranks[:, side[pp], vv]  # (b, K, n)
                if ii.size:
                    r[:, keys] -= np.add.reduceat(wb[:, ii, None] * steps[None], starts, axis=1)
                sides.append(r)
            wp = wb[:, None, :] * shared
            out[lo:lo + BLOCK, pp, vv] = stats.weighted_rank_correlation(sides[0], sides[1], wp)
    return out


def _mean(x: np.ndarray, skipna: bool) -> np.ndarray:
    return stats.nanmean_last(x) if skipna else np.mean(x, axis=-1)


def _rank_order_stat(cube: ScoreCube, skipna: bool) -> Callable[[np.ndarray], np.ndarray]:
    def stat(w: np.ndarray) -> np.ndarray:
        rho = _rank_order_rho(cube, w)  # (B, P, V)
        per_value = _mean(np.swapaxes(rho, 1, 2), skipna)  # mean over pairs -> (B, V)
        return _mean(per_value, skipna)
    return stat


def _ipsative_rho(cube: ScoreCube) -> np.ndarray:
    """rho[pair, persona]: Spearman over values of the persona's scores in the two contexts."""
    if not cube.pairs:
        return np.empty((0, len(cube.personas)))
    ia, ib = map(list, zip(*cube.pairs))
    xa = np.swapaxes(cube.x[ia], 1, 2)  # (P, n, V)
    xb = np.swapaxes(cube.x[ib], 1, 2)
    return stats.spearman(xa, xb)


def _ipsative_stat(cube: ScoreCube, skipna: bool) -> Callable[[np.ndarray], np.ndarray]:
    rho = _ipsative_rho(cube)  # (P, n)
    finite = np.isfinite(rho)
    sums, counts = np.where(finite, rho, 0.0).sum(axis=0), finite.sum(axis=0).astype(float)
    any_nan = (~finite).sum(axis=0).astype(float)

    def stat(w: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (w @ sums) / (w @ counts)
        if not skipna:
            mean = np.where(w @ any_nan > 0, np.nan, mean)
        return mean
    return stat


# -- rank-order: tables ---------------------------------------------------------------------------
def rank_order_table(scores: pd.DataFrame, *, column: str = "ipsatised", contexts: Sequence[str] | None = None) -> pd.DataFrame:
    """Per value × context pair: columns value, context_a, context_b, pair, rho, n_personas."""
    cube = score_cube(scores, column=column, contexts=contexts)
    rho = _rank_order_rho(cube, np.ones((1, len(cube.personas))))[0]  # (P, V)
    valid = np.isfinite(cube.x)
    rows = []
    for p, (a, b) in enumerate(cube.pairs):
        for v, value in enumerate(cube.values):
            ca, cb = cube.contexts[a], cube.contexts[b]
            rows.append({"value": value, "context_a": ca, "context_b": cb, "pair": pair_label(ca, cb),
                         "rho": float(rho[p, v]), "n_personas": int((valid[a, v] & valid[b, v]).sum())})
    return pd.DataFrame(rows, columns=["value", "context_a", "context_b", "pair", "rho", "n_personas"])


def _table_mean(table: pd.DataFrame, by: str, skipna: bool) -> pd.Series:
    grouped = table.groupby(by, sort=False)["rho"]
    return grouped.mean() if skipna else grouped.apply(lambda s: float(np.mean(s.to_numpy())))


def pairwise_rank_order(scores: pd.DataFrame, *, skipna: bool = True, contexts: Sequence[str] | None = None) -> pd.Series:
    """Rank-order stability per context pair (mean over values), indexed ``"a|b"``."""
    return _table_mean(rank_order_table(scores, contexts=contexts), "pair", skipna).rename("rank_order")


def rank_order_matrix(scores: pd.DataFrame, *, skipna: bool = True, contexts: Sequence[str] | None = None) -> pd.DataFrame:
    """Context × context rank-order stability (mean over values); symmetric, diagonal 1."""
    table = rank_order_table(scores, contexts=contexts)
    ctx = list(contexts) if contexts is not None else list(dict.fromkeys(scores["context"]))
    mat = pd.DataFrame(np.eye(len(ctx)), index=ctx, columns=ctx)
    for (a, b), rho in table.groupby(["context_a", "context_b"], sort=False)["rho"]:
        m = float(rho.mean()) if skipna else float(np.mean(rho.to_numpy()))
        mat.loc[a, b] = mat.loc[b, a] = m
    return mat


def rank_order_by_value(scores: pd.DataFrame, *, skipna: bool = True, contexts: Sequence[str] | None = None) -> pd.Series:
    """Rank-order stability per value (mean over context pairs), in ``VALUES`` order."""
    return _table_mean(rank_order_table(scores, contexts=contexts), "value", skipna).rename("rank_order")


def rank_order_stability(scores: pd.DataFrame, *, skipna: bool = True) -> float:
    """Headline Rank-Order stability: mean over pairs per value, then mean over values."""
    cube = score_cube(scores)
    return float(_rank_order_stat(cube, skipna)(np.ones((1, len(cube.personas))))[0])


# -- ipsative -------------------------------------------------------------------------------------
def ipsative_table(scores: pd.DataFrame, *, column: str = "ipsatised", contexts: Sequence[str] | None = None) -> pd.DataFrame:
    """Per persona × context pair: columns persona_id, context_a, context_b, pair, rho."""
    cube = score_cube(scores, column=column, contexts=contexts)
    rho = _ipsative_rho(cube)
    rows = [{"persona_id": pid, "context_a": cube.contexts[a], "context_b": cube.contexts[b],
             "pair": pair_label(cube.contexts[a], cube.contexts[b]), "rho": float(rho[p, j])}
            for p, (a, b) in enumerate(cube.pairs) for j, pid in enumerate(cube.personas)]
    return pd.DataFrame(rows, columns=["persona_id", "context_a", "context_b", "pair", "rho"])


def ipsative_stability(scores: pd.DataFrame, *, skipna: bool = True) -> float:
    """Ipsative stability: mean over personas and context pairs of the per-persona Spearman over values."""
    cube = score_cube(scores)
    return float(_ipsative_stat(cube, skipna)(np.ones((1, len(cube.personas))))[0])


# -- bootstrap CIs --------------------------------------------------------------------------------
def rank_order_ci(scores: pd.DataFrame, *, n_boot: int = 1000, level: float = 0.95, seed: int = 0,
                  skipna: bool = True) -> stats.CI:
    """Headline rank-order stability with its percentile bootstrap CI over personas (seeded).

    Same resamples as ``stats.bootstrap(scores, rank_order_stability, seed=seed)``, computed
    without pandas: ranks from one sort per context × value, multiplicities per resample.
    """
    cube = score_cube(scores)
    return stats.bootstrap_counts(_rank_order_stat(cube, skipna), len(cube.personas), n_boot=n_boot, level=level, seed=seed)


def ipsative_ci(scores: pd.DataFrame, *, n_boot: int = 1000, level: float = 0.95, seed: int = 0,
                skipna: bool = True) -> stats.CI:
    """Ipsative stability with its percentile bootstrap CI over personas (seeded)."""
    cube = score_cube(scores)
    return stats.bootstrap_counts(_ipsative_stat(cube, skipna), len(cube.personas), n_boot=n_boot, level=level, seed=seed)


def stability_diff_ci(scores_a: pd.DataFrame, scores_b: pd.DataFrame, *, metric: str = "rank_order",
                      n_boot: int = 1000, level: float = 0.95, seed: int = 0, skipna: bool = True) -> stats.CI:
    """Paired bootstrap CI of (model A − model B) for ``metric`` 'rank_order' or 'ipsative'.

    Both models are restricted to the personas they share, resampled together; contexts are
    each model's own (compare models run on the same contexts).
    """
    shared = np.intersect1d(scores_a["persona_id"].unique(), scores_b["persona_id"].unique())
    if shared.size == 0:
        raise ValueError("the two models share no persona")
    builders = {"rank_order": _rank_order_stat, "ipsative": _ipsative_stat}
    if metric not in builders:
        raise ValueError(f"metric must be one of {sorted(builders)}")
    cube_a = score_cube(scores_a[scores_a["persona_id"].isin(shared)])
    cube_b = score_cube(scores_b[scores_b["persona_id"].isin(shared)])
    return stats.paired_bootstrap_counts(builders[metric](cube_a, skipna), builders[metric](cube_b, skipna), len(shared),
                                         n_boot=n_boot, level=level, seed=seed)


def rank_order_by_value_ci(scores: pd.DataFrame, *, n_boot: int = 1000, level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Per value: rank-order stability (mean over context pairs of Spearman across personas) and its
    percentile bootstrap CI over personas. Columns value, rank_order, lo, hi (``VALUES`` order).

    Same estimate as ``rank_order_by_value``; resamples as ``stability.rank_order_ci``.
    """
    cube = score_cube(scores)
    n = len(cube.personas)
    cols = ["value", "rank_order", "lo", "hi"]
    if n == 0 or len(cube.contexts) < 2:
        return pd.DataFrame(columns=cols)

    def per_value(w: np.ndarray) -> np.ndarray:
        rho = _rank_order_rho(cube, w)  # (B, pairs, values)
        return stats.nanmean_last(np.swapaxes(rho, 1, 2))  # (B, values)

    estimate = per_value(np.ones((1, n)))[0]
    reps = per_value(stats.counts_from_indices(stats.resample_indices(n, n_boot, seed), n))
    rows = []
    for v, value in enumerate(cube.values):
        ci = stats.percentile_ci(estimate[v], reps[:, v], level)
        rows.append({"value": value, "rank_order": ci.estimate, "lo": ci.lo, "hi": ci.hi})
    return pd.DataFrame(rows, columns=cols)


def ipsative_by_persona(scores: pd.DataFrame) -> pd.DataFrame:
    """Per persona: mean over context pairs of the Spearman over values (``ipsative_table``)."""
    table = ipsative_table(scores)
    if table.empty:
        return pd.DataFrame(columns=["persona_id", "ipsative", "n_pairs"])
    out = table.groupby("persona_id")["rho"].agg(ipsative="mean", n_pairs="count").reset_index()
    return out.sort_values("ipsative", kind="stable").reset_index(drop=True)
