"""The Stick to Your Role! leaderboard over any set of models: columns, Cardinal, Ordinal, diversity, sensitivity.

Columns (reference ``Leaderboard/data_analysis/rank_models.py``): per model, the pairwise
rank-order stability of every context pair (``RO:a|b``) and per context ``1-Stress:ctx``,
``CFI:ctx``, ``1-SRMR:ctx``, ``1-RMSEA:ctx`` (higher is better everywhere).

Failed CFA fits: the report holds no index for a failed fit (undefined, with its reason). The
reference's leaderboard scores one CFI 0, TLI 0, RMSEA 1, SRMR 1 and averages the four
magnifying-glass models of a context; so do these columns, and only they (``scored_fit``,
``FAILURE_SCORES``; the document says so in ``failure_scoring``, the page marks the columns).

- Cardinal score = mean of the model's columns.
- Ordinal win rate = mean over columns of #(models strictly lower in the column)/(M − 1)
  (reference ``compute_win_rates``).
- Diversity = 1 − Kendall's W of the columns' model rankings (columns are the raters,
  models the items; ``analysis.stats.kendall_w``, with the tie correction). benchbench's
  ``utils.metric.get_kendall_w`` (which already returns 1 − W) casts average ranks to int and
  has no tie correction; both agree when no column has ties. Per-column win rates are a
  strictly monotone transform of the column, so the ordinal ranking has the same diversity.
- Sensitivity = max rank change (MRC; Zhang & Hardt 2024, "Inherent Trade-Offs between
  Diversity and Stability in Multi-Task Benchmarks", package ``benchbench`` 1.0.1). benchbench
  installs (pip) but pulls torch + CUDA wheels, wandb and ``zarth_utils``, so it is not a
  dependency; its two definitions are re-implemented here (see each function).

Missing values (a model without some column): Cardinal and Ordinal use the columns the model
has (``n_columns`` tells how many); a column's win rates are computed among the models that
have it, over (M_col − 1). Diversity and sensitivity use the complete columns only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from analysis import stats
from analysis.methods.values.cfa import not_fitted

#: The reference leaderboard's scores of a failed CFA fit: used in its columns only, never shown as a fit's indices.
FAILURE_SCORES: dict[str, float] = {"cfi": 0.0, "tli": 0.0, "rmsea": 1.0, "srmr": 1.0}
#: The mark the leaderboard carries wherever those scores enter (its CFI / SRMR / RMSEA columns and the Cardinal).
FAILURE_NOTE = ("failed CFA fit scored CFI 0, TLI 0, RMSEA 1, SRMR 1 as the reference's leaderboard does, in the "
                "leaderboard's columns only (elsewhere a failed fit is undefined, with its reason)")
VALIDITY = (("stress", "1-Stress", True), ("cfi", "CFI", False), ("srmr", "1-SRMR", True), ("rmsea", "1-RMSEA", True))
RO = "RO"
MAX_EXHAUSTIVE = 16  # ordinal sensitivity: all subsets up to 2**16 of the irrelevant models


def canonical_pair(key: str) -> str:
    """``"b|a"`` and ``"a|b"`` name the same pair: sort the two context names."""
    a, sep, b = key.partition("|")
    if not sep:
        raise ValueError(f"context pair '{key}' is not 'ctxA|ctxB'")
    return "|".join(sorted((a, b)))


def _num(x: Any) -> float:
    return float("nan") if x is None else float(x)


def scored_fit(groups: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """One context's CFA as the reference's leaderboard scores it: the mean over its magnifying-glass models of
    CFI, TLI, RMSEA, SRMR, a failed model (``converged`` false; its indices undefined) counting ``FAILURE_SCORES``.
    ``groups`` is the report's ``contexts[ctx]["cfa"]``."""
    if not groups:
        return dict(FAILURE_SCORES)
    rows = [FAILURE_SCORES if not g.get("converged") else {k: _num(g.get(k)) for k in FAILURE_SCORES}
            for g in groups.values()]
    table = pd.DataFrame(rows, columns=list(FAILURE_SCORES), dtype=float)
    return {k: float(table[k].mean()) for k in FAILURE_SCORES}


def column_table(models: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """Models × columns from per-model dicts shaped like ``metrics values --json``.

    ``{model: {"pairwise_rank_order": {"a|b": rho}, "contexts": {ctx: {"stress", "cfa": {group: fit}}}}}``.
    Columns: ``RO:a|b`` (pairs sorted), then ``1-Stress:``, ``CFI:``, ``1-SRMR:``, ``1-RMSEA:`` per context
    (contexts sorted). The CFA columns are ``scored_fit`` of the context's ``cfa`` groups (a failed fit scored
    ``FAILURE_SCORES``); a context without ``cfa`` groups gives its own ``cfi``, ``srmr``, ``rmsea``. A value absent
    (or None) for a model is NaN. A context whose value structure is undefined (``stress`` None: fewer than
    ``structure.MDS_MIN_PERSONAS`` personas, or correlations undefined) gives no validity column at all: its CFA
    cannot have *failed* (the reference's CFI 0 / RMSEA 1 rule applies to fits that were attempted on data that
    support one), it was never possible. Likewise a context with a magnifying-glass model not fitted for too few
    personas (``cfa.not_fitted``, ``cfa.MIN_PERSONAS``) gives no CFA columns, only its Stress. A model with no column
    has an undefined Cardinal and Ordinal.
    """
    data: dict[str, dict[str, float]] = {}
    for name, m in models.items():
        row: dict[str, float] = {}
        for key, rho in (m.get("pairwise_rank_order") or {}).items():
            row[f"{RO}:{canonical_pair(key)}"] = _num(rho)
        for ctx, metrics in (m.get("contexts") or {}).items():
            if metrics.get("stress") is None:  # structure undefined (too few personas, no correlations): no validity
                continue                          # columns — undefined, never the failed-fit score
            values = {**metrics, **scored_fit(metrics["cfa"])} if "cfa" in metrics else metrics
            if "cfa" in metrics and not_fitted(metrics["cfa"]):  # too few personas for a CFA: never possible, not
                values = {"stress": metrics.get("stress")}           # failed — no fit columns, Stress kept
            for key, label, invert in VALIDITY:
                if values.get(key) is not None:
                    row[f"{label}:{ctx}"] = 1.0 - float(values[key]) if invert else float(values[key])
        data[name] = row
    cols = sorted({c for row in data.values() for c in row})
    order = {label: i for i, (_, label, _) in enumerate(VALIDITY, start=1)} | {RO: 0}
    cols.sort(key=lambda c: (order[c.split(":", 1)[0]], c.split(":", 1)[1]))
    return pd.DataFrame.from_dict(data, orient="index").reindex(columns=cols).astype(float)


# -- scores -----------------------------------------------------------------------------------------
def cardinal_scores(table: pd.DataFrame) -> pd.Series:
    """Cardinal score: mean of each model's (available) columns."""
    return table.mean(axis=1, skipna=True).rename("cardinal")


def win_rates(table: pd.DataFrame) -> pd.DataFrame:
    """Per column: #(models with a strictly lower value)/(M_col − 1) among the M_col models that have it."""
    x = table.to_numpy(dtype=float)
    have = np.isfinite(x)
    lower = (x[None, :, :] < x[:, None, :]) & have[None, :, :]  # [i, j, col]: j strictly below i
    m_col = have.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = lower.sum(axis=1) / (m_col - 1)
    rates = np.where(have & (m_col >= 2), rates, np.nan)
    return pd.DataFrame(rates, index=table.index, columns=table.columns)


def ordinal_scores(table: pd.DataFrame) -> pd.Series:
    """Ordinal score: mean over columns of the model's win rate."""
    return win_rates(table).mean(axis=1, skipna=True).rename("ordinal")


def _complete(table: pd.DataFrame) -> pd.DataFrame:
    return table.loc[:, table.notna().all(axis=0)]


def kendall_w_columns(table: pd.DataFrame) -> float:
    """Kendall's W (tie-corrected) of the complete columns' rankings of the models (rank 1 = best)."""
    full = _complete(table)
    if full.shape[0] < 2 or full.shape[1] < 1:
        return float("nan")
    ranks = stats.average_ranks(full.to_numpy(dtype=float).T, descending=True)
    return stats.kendall_w(ranks)


def diversity(table: pd.DataFrame) -> float:
    """Diversity = 1 − Kendall's W of the columns' model rankings."""
    return 1.0 - kendall_w_columns(table)


# -- sensitivity (benchbench definitions) ---------------------------------------------------------
def _bb_rank(scores: np.ndarray) -> np.ndarray:
    """benchbench ``utils.base.rankdata(-scores)``: rank 1 = best, ties within 1e-8."""
    return stats.average_ranks(scores, descending=True, tol=1e-8)


def rank_change(new_rank: np.ndarray, old_rank: np.ndarray) -> tuple[float, float]:
    """benchbench ``utils.metric.get_rank_diff``: ((1 − Kendall tau-b)/2, max |Δrank|/(n − 1)); (0, 0) if equal."""
    new_rank, old_rank = np.asarray(new_rank, float), np.asarray(old_rank, float)
    if np.sum(np.abs(new_rank - old_rank)) <= 1e-8:
        return 0.0, 0.0
    tau = (1.0 - float(kendalltau(new_rank, old_rank).statistic)) / 2.0
    return tau, float(np.max(np.abs(new_rank - old_rank)) / (len(new_rank) - 1))


def _cardinal_run(orig: np.ndarray, weighted: bool, min_value: float = 0.01, lr: float = 1.0,
                  num_steps: int = 1000, stop_threshold: float = 1e-5) -> tuple[float, float]:
    """One ``benchbench.measures.cardinal.get_sensitivity`` run (given loss), in numpy.

    Columns are z-scored; weights ``nw = normalize(softmax(w))`` (each ≥ min_value/k after
    renormalising) are trained by SGD (float32 weights, like torch's) to minimise
    Σ_{j ranked above i} c_ij · max(s_j − s_i, 0) with s = mean(z · nw) and c_ij = 1 or the
    rank gap (``weighted``); the final weights (divided by the column std, scaled to max 1)
    re-score the raw columns, and the rank change against the plain mean is returned.
    """
    m, k = orig.shape
    z = (orig - orig.mean(axis=0)) / orig.std(axis=0, ddof=1)
    old_rank = _bb_rank(orig.mean(axis=1))
    ii, jj = np.nonzero(old_rank[None, :] < old_rank[:, None])  # pairs (i, j) with j ranked above i
    coef = (old_rank[ii] - old_rank[jj]) if weighted else np.ones(ii.size)
    shift = np.float32(min_value / (1 - min_value))
    w = np.ones(k, dtype=np.float32)

    def normalize(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.float32]:
        e = np.exp(v - v.max())
        w1 = e / e.sum()
        w2 = w1 + shift
        total = w2.sum()
        return w2 / total, w1, total

    last = float(0x3F3F3F3F)
    for _ in range(num_steps):
        nw, w1, total = normalize(w)
        score = (z * nw.astype(np.float64)).mean(axis=1)
        diff = score[jj] - score[ii]
        active = diff >= 0  # torch's max(d, 0.0) keeps d (with its gradient) unless 0.0 > d
        loss = float(np.sum(coef[active] * diff[active]))
        if loss <= 1e-8:
            break
        g_score = np.zeros(m)
        np.add.at(g_score, jj[active], coef[active])
        np.add.at(g_score, ii[active], -coef[active])
        g_nw = (z.T @ g_score / k).astype(np.float32)
        g_w2 = (g_nw - np.sum(g_nw * nw)) / total  # through nw = w2 / Σw2
        g_w = w1 * (g_w2 - np.sum(g_w2 * w1))  # through softmax
        w = (w - np.float32(lr) * g_w).astype(np.float32)
        if abs(loss - last) < stop_threshold:
            break
        last = loss
    nw = normalize(w)[0].astype(np.float64) / orig.std(axis=0, ddof=1)
    nw = nw / nw.max()
    return rank_change(_bb_rank((orig * nw).mean(axis=1)), old_rank)


def cardinal_sensitivity(table: pd.DataFrame) -> tuple[float, float]:
    """(tau, MRC) under re-weighting of the columns: ``benchbench.measures.cardinal.get_sensitivity`` defaults.

    Mirrors that function with ``use_weighted_loss=None``: both losses are run and the larger
    (tau, MRC) tuple is kept. Constant columns are dropped (std ≤ 1e-8), as there; only
    complete columns are used. NaN when fewer than 2 models or no informative column.
    """
    x = _complete(table).to_numpy(dtype=float)
    if x.shape[0] < 2 or x.shape[1] == 0:
        return float("nan"), float("nan")
    x = x[:, x.std(axis=0, ddof=1) > 1e-8]
    if x.shape[1] == 0:
        return float("nan"), float("nan")
    a, b = _cardinal_run(x, weighted=True), _cardinal_run(x, weighted=False)
    return b if b > a else a


def pairwise_win_matrix(table: pd.DataFrame) -> np.ndarray:
    """benchbench ``WinningRate``: [i, j] = share of the columns both have where i is strictly above j."""
    x = table.to_numpy(dtype=float)
    both = np.isfinite(x)[:, None, :] & np.isfinite(x)[None, :, :]
    wins = ((x[:, None, :] > x[None, :, :]) & both).sum(axis=2)
    total = both.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(total > 0, wins / np.maximum(total, 1), 0.0)
    np.fill_diagonal(rate, 0.0)
    return rate


def _tau_b_rows(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """Kendall tau-b of each row of ``new`` against ``old`` (vectorised; NaN if either is constant)."""
    i, j = np.triu_indices(old.size, 1)
    sn, so = np.sign(new[:, i] - new[:, j]), np.sign(old[i] - old[j])
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sn * so).sum(axis=1) / np.sqrt(np.abs(sn).sum(axis=1) * np.abs(so).sum())


def ordinal_sensitivity(table: pd.DataFrame, relevant: Sequence[str] | None = None, *,
                        max_exhaustive: int = MAX_EXHAUSTIVE, seed: int = 0) -> tuple[float, float]:
    """(tau, MRC) of the relevant models' win-rate ranking when irrelevant models are added.

    Reference: ``benchbench/measures/ordinal.py`` ``get_sensitivity`` (socialfoundations/benchbench),
    called by value_stability's ``Leaderboard/data_analysis/plot_utils.py:116`` as
    ``ordinal.get_sensitivity(data_df, cols)``, i.e. with its default split.

    - Split (ordinal.py:86-87): L = ``np.arange(len(data) // 5)``, the first M//5 rows of the table *in its row
      order* (value_stability's rows follow its hand-written ``models`` list, ``rank_models.py:8-62, 107-154``:
      neither a score nor a name order). ``relevant=None`` does the same here: the first M//5 rows of ``table``.
    - Formula: R = the pairwise win-rate matrix (``pairwise_win_matrix``: share of the shared columns where i is
      strictly above j; diagonal 0). Before (ordinal.py:92-93): each l in L scores mean_{j in L} R[l, j] (diagonal
      included, so divided by |L|); after adding T: mean_{j in L ∪ T} R[l, j] (ordinal.py:111-117). Ranks:
      rank 1 = best, ties within 1e-8 averaged. rank_change = ((1 − Kendall tau-b)/2, max |Δrank|/(|L| − 1)).
    - Statistic (ordinal.py:134-143): the (tau, MRC) of the subset T with the largest tau; the reference keeps
      the first such subset its search met (its final one if that has a larger (tau, MRC)), here the one with
      the largest MRC among them; MRC is therefore not the largest MRC over all subsets. Its search (Bernoulli
      mask, Adam, torch seed 0) sees only some subsets, and stops without recording the one it sampled when every
      pair of L is reversed by more than 0.01 (``appr_rank_diff`` turns into the Python float -0.01, ordinal.py:29,
      103-104): with |L| = 2 a flip found at the first step is reported as (0, 0). Here every subset is
      enumerated when there are at most ``max_exhaustive`` other models (then tau is the maximum, at least the
      reference's), else 2**max_exhaustive random subsets (seeded) are tried.
    - A ``relevant`` list that is not a prefix of the table is taken at its names (the reference indexes its
      sub-matrix by position, ordinal.py:113, which agrees only for its default prefix split).

    NaN when fewer than 2 relevant models or no complete column; only complete columns are used.
    """
    full = _complete(table)
    names = list(full.index)
    rel = list(relevant) if relevant is not None else names[: len(names) // 5]
    unknown = set(rel) - set(names)
    if unknown:
        raise ValueError(f"relevant models not in the table: {sorted(unknown)}")
    if len(rel) < 2 or full.shape[1] == 0:
        return float("nan"), float("nan")
    rate = pairwise_win_matrix(full)
    li = np.array([names.index(n) for n in rel])
    others = np.array([i for i in range(len(names)) if i not in set(li)], dtype=int)
    old_rank = _bb_rank(rate[np.ix_(li, li)].mean(axis=1))
    r = others.size
    if r <= max_exhaustive:
        masks = ((np.arange(2 ** r)[:, None] >> np.arange(r)) & 1).astype(float)
    else:
        masks = np.random.default_rng(seed).integers(0, 2, size=(2 ** max_exhaustive, r)).astype(float)
    sel = np.zeros((masks.shape[0], len(names)))
    sel[:, li] = 1.0
    sel[:, others] = masks
    new_rate = (sel @ rate[li].T) / sel.sum(axis=1, keepdims=True)  # (subsets, |L|)
    new_rank = _bb_rank(new_rate)
    moved = np.abs(new_rank - old_rank).sum(axis=1) > 1e-8
    tau = np.where(moved, (1.0 - _tau_b_rows(new_rank, old_rank)) / 2.0, 0.0)
    mrc = np.where(moved, np.abs(new_rank - old_rank).max(axis=1) / (len(rel) - 1), 0.0)
    best = np.lexsort((mrc, np.nan_to_num(tau, nan=-1.0)))[-1]
    return float(tau[best]), float(mrc[best])


# -- the leaderboard ------------------------------------------------------------------------------
def aggregate_metrics(table: pd.DataFrame) -> pd.DataFrame:
    """Per model, the mean of each column group in its natural direction: rank_order, stress, cfi, srmr, rmsea."""
    out = {}
    groups = [(RO, "rank_order", False)] + [(label, key, invert) for key, label, invert in VALIDITY]
    for prefix, name, invert in groups:
        cols = [c for c in table.columns if c.split(":", 1)[0] == prefix]
        mean = table[cols].mean(axis=1, skipna=True) if cols else pd.Series(np.nan, index=table.index)
        out[name] = 1.0 - mean if invert else mean
    return pd.DataFrame(out, index=table.index)


@dataclass
class Leaderboard:
    """Rows per model plus the benchmark-level diversity and sensitivity."""

    table: pd.DataFrame
    rows: pd.DataFrame
    kendall_w: float
    diversity: float
    sensitivity: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN -> None), rows ordered by Cardinal score."""
        def clean(v: Any) -> Any:
            return None if isinstance(v, float) and not np.isfinite(v) else v
        rows = [{"model": str(name), **{k: clean(float(v)) if k != "n_columns" else int(v) for k, v in row.items()}}
                for name, row in self.rows.iterrows()]
        return {"rows": rows, "columns": list(self.table.columns), "kendall_w": clean(self.kendall_w),
                "diversity": clean(self.diversity),
                "sensitivity": {k: {kk: vv if isinstance(vv, (str, list)) or vv is None else clean(float(vv))
                                    for kk, vv in v.items()} for k, v in self.sensitivity.items()}}


def default_relevant(table: pd.DataFrame) -> list[str]:
    """The reference's split for ordinal sensitivity: L = the first M//5 rows of the table in its row order.

    benchbench ``measures/ordinal.py:86-87`` (``inv_indices = np.arange(len(data) // 5)``) on value_stability's
    ``data_df``, whose rows follow the hand-written ``models`` list of ``rank_models.py:8-62`` (not sorted by score:
    benchbench's own loaders re-rank, value_stability builds its table itself). RoleScope's table keeps the order
    its caller gives the models (``values_leaderboard``: by model name)."""
    return [str(m) for m in table.index[: len(table) // 5]]


def _sensitivity_reasons(table: pd.DataFrame, relevant: Sequence[str]) -> dict[str, str | None]:
    """Why each sensitivity is undefined (None when it is defined)."""
    complete = _complete(table)
    m = len(complete)
    cardinal = ("needs at least 2 models" if m < 2 else
                "no column that all models have and that varies between them" if complete.shape[1] == 0
                or not (complete.std(axis=0, ddof=1) > 1e-8).any() else None)
    ordinal = (f"needs at least 2 relevant models: the reference's L is the first M//5 = {len(relevant)} of {m} "
               "models in the table's order (at least 10 models)" if len(relevant) < 2 else
               "no other model to add" if len(relevant) >= m else
               "no column that all models have" if complete.shape[1] == 0 else None)
    return {"cardinal": cardinal, "ordinal": ordinal}


def leaderboard(table: pd.DataFrame, *, relevant: Sequence[str] | None = None) -> Leaderboard:
    """Cardinal, Ordinal, column coverage and group means per model (sorted by Cardinal), diversity, sensitivity.

    Ordinal sensitivity uses ``relevant`` as L, by default the reference's split (``default_relevant``: the first
    M//5 rows of ``table`` in its row order, not the top by Cardinal); a sensitivity that cannot be computed is NaN
    with its ``reason`` (never a constant 0)."""
    rows = pd.concat([cardinal_scores(table), ordinal_scores(table),
                      table.notna().sum(axis=1).rename("n_columns"), aggregate_metrics(table)], axis=1)
    rows = rows.sort_values("cardinal", ascending=False, kind="stable")
    w = kendall_w_columns(table)
    rel = list(relevant) if relevant is not None else default_relevant(table)
    reasons = _sensitivity_reasons(table, rel)
    ct, cm = cardinal_sensitivity(table) if reasons["cardinal"] is None else (float("nan"), float("nan"))
    ot, om = ordinal_sensitivity(table, rel) if reasons["ordinal"] is None else (float("nan"), float("nan"))
    sensitivity = {"cardinal": {"tau": ct, "mrc": cm, "reason": reasons["cardinal"]},
                   "ordinal": {"tau": ot, "mrc": om, "reason": reasons["ordinal"], "relevant": rel}}
    return Leaderboard(table, rows, w, 1.0 - w, sensitivity)

