"""Numbers the dashboard shows that the method modules do not compute directly.

Pure functions on frames and metric documents (no store access, no LLM, no UI):

- ``rank_order_by_value_ci``: per-value rank-order stability with percentile bootstrap CIs over
  personas (the per-value means of ``analysis.methods.values.stability``, same resampling scheme);
- ``compare_values`` / ``compare_mbti`` / ``compare_personagym``: two models side by side with
  paired bootstrap CIs of the differences (shared personas / testings resampled together);
- ``item_gaps``, ``persona_gaps``, ``statement_gaps``: where two models differ most;
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis import stats
from analysis.methods.mbti import DIMENSIONS
from analysis.methods.mbti.metrics import ALPHA
from analysis.methods.personagym import TASKS
from analysis.methods.values import VALUES, stability

N_BOOT = 1000


def _f(x: Any) -> float:
    return float("nan") if x is None else float(x)


def _mean_defined(values: Iterable[Any]) -> float:
    """Mean of the defined values; NaN (shown as undefined) when none is, without numpy's empty-slice warning."""
    defined = [v for v in map(_f, values) if math.isfinite(v)]
    return sum(defined) / len(defined) if defined else float("nan")


def _none(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


# -- values: per-value stability with CIs --------------------------------------------------------
def rank_order_by_value_ci(scores: pd.DataFrame, *, n_boot: int = N_BOOT, level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Per value: rank-order stability (mean over context pairs of Spearman across personas) and its
    percentile bootstrap CI over personas. Columns value, rank_order, lo, hi (``VALUES`` order).

    Same estimate as ``stability.rank_order_by_value``; resamples as ``stability.rank_order_ci``.
    """
    cube = stability.score_cube(scores)
    n = len(cube.personas)
    cols = ["value", "rank_order", "lo", "hi"]
    if n == 0 or len(cube.contexts) < 2:
        return pd.DataFrame(columns=cols)

    def per_value(w: np.ndarray) -> np.ndarray:
        rho = stability._rank_order_rho(cube, w)  # (B, pairs, values)
        return stats.nanmean_last(np.swapaxes(rho, 1, 2))  # (B, values)

    estimate = per_value(np.ones((1, n)))[0]
    reps = per_value(stats.counts_from_indices(stats.resample_indices(n, n_boot, seed), n))
    rows = []
    for v, value in enumerate(cube.values):
        ci = stats.percentile_ci(estimate[v], reps[:, v], level)
        rows.append({"value": value, "rank_order": ci.estimate, "lo": ci.lo, "hi": ci.hi})
    return pd.DataFrame(rows, columns=cols)


def ipsative_by_persona(scores: pd.DataFrame) -> pd.DataFrame:
    """Per persona: mean over context pairs of the Spearman over values (``stability.ipsative_table``)."""
    table = stability.ipsative_table(scores)
    if table.empty:
        return pd.DataFrame(columns=["persona_id", "ipsative", "n_pairs"])
    out = table.groupby("persona_id")["rho"].agg(ipsative="mean", n_pairs="count").reset_index()
    return out.sort_values("ipsative", kind="stable").reset_index(drop=True)


def value_means(scores: pd.DataFrame, column: str = "ipsatised") -> pd.DataFrame:
    """Mean score per context x value over personas (columns context, value, mean, sd, n)."""
    if scores.empty:
        return pd.DataFrame(columns=["context", "value", "mean", "sd", "n"])
    out = scores.groupby(["context", "value"], sort=False)[column].agg(mean="mean", sd="std", n="count").reset_index()
    order = {v: i for i, v in enumerate(VALUES)}
    return out.sort_values(["context", "value"], key=lambda s: s.map(order) if s.name == "value" else s, kind="stable")


# -- MBTI -----------------------------------------------------------------------------------------
def mbti_subject_spread(testings: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Per subject, the SD over its testings (those the metrics use) of each dimension score."""
    out = {}
    for subject, frame in _chosen_testings(testings).items():
        out[subject] = {d: float(frame[d].astype(float).std(ddof=1)) if frame[d].notna().sum() > 1 else 0.0 for d in DIMENSIONS}
    return out


def values_fit_chance(store: Any, values_metrics: Mapping[str, Any], model: str, key: str, n_sims: int, *,
                      config: Any = None) -> dict[str, Any]:
    """Null bands of separability and the CFA fit for one model × context (``{metric: {kind: summary}}``)."""
    from analysis.methods.values.metrics import values_chance

    doc = values_chance(store, values_metrics, config, n_sims=n_sims, model=model, fast=False, slow=key)
    return ((doc.get(model) or {}).get("contexts") or {}).get(key, {})


# -- comparing two models -------------------------------------------------------------------------
@dataclass(frozen=True)
class Difference:
    """One headline number for models A and B, and the difference A − B with its CI (when paired)."""

    method: str
    metric: str
    a: float
    b: float
    diff: float
    lo: float = float("nan")
    hi: float = float("nan")
    note: str = ""


def _diff(method: str, metric: str, a: float, b: float, ci: stats.CI | None = None, note: str = "") -> Difference:
    a, b = _f(a), _f(b)
    if ci is None:
        return Difference(method, metric, a, b, a - b, note=note or "no CI (not bootstrapped)")
    return Difference(method, metric, a, b, ci.estimate, ci.lo, ci.hi, note)


def differences_frame(diffs: list[Difference]) -> pd.DataFrame:
    cols = ["method", "metric", "a", "b", "diff", "lo", "hi", "note"]
    return pd.DataFrame([d.__dict__ for d in diffs], columns=cols)


def _shared_contexts(scores_a: pd.DataFrame, scores_b: pd.DataFrame) -> list[str]:
    return [c for c in dict.fromkeys(scores_a["context"]) if c in set(scores_b["context"])]


def compare_values(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any], scores_a: pd.DataFrame, scores_b: pd.DataFrame,
                   board_rows: Mapping[str, Mapping[str, Any]] | None = None, names: tuple[str, str] = ("A", "B"),
                   *, n_boot: int = N_BOOT, seed: int = 0) -> list[Difference]:
    """Values headlines of two models: Cardinal (no CI), rank-order and ipsative stability (paired bootstrap
    over shared personas, on the contexts both have), mean Stress / CFI / CV separability (no CI)."""
    out: list[Difference] = []
    board_rows = board_rows or {}
    if names[0] in board_rows and names[1] in board_rows:
        out.append(_diff("Values", "Cardinal score", board_rows[names[0]].get("cardinal"), board_rows[names[1]].get("cardinal"),
                         note="leaderboard score over both models' columns; not bootstrapped"))
    shared = _shared_contexts(scores_a, scores_b)
    personas = np.intersect1d(scores_a["persona_id"].unique(), scores_b["persona_id"].unique())
    if len(shared) >= 2 and personas.size >= 3:
        sa = scores_a[scores_a["context"].isin(shared)]
        sb = scores_b[scores_b["context"].isin(shared)]
        for metric, label in (("rank_order", "Rank-order stability"), ("ipsative", "Ipsative stability")):
            try:
                ci = stability.stability_diff_ci(sa, sb, metric=metric, n_boot=n_boot, seed=seed)
            except ValueError:
                continue
            est = {"rank_order": stability.rank_order_stability, "ipsative": stability.ipsative_stability}[metric]
            a = est(sa[sa["persona_id"].isin(personas)])
            b = est(sb[sb["persona_id"].isin(personas)])
            out.append(_diff("Values", label, a, b, ci,
                             f"paired bootstrap over {personas.size} shared personas, {len(shared)} shared contexts"))
    ctx_a, ctx_b = doc_a.get("contexts") or {}, doc_b.get("contexts") or {}
    common = [c for c in ctx_a if c in ctx_b]
    for key, label in (("stress", "Stress (lower is better)"), ("cfi", "CFI"), ("separability", "Separability (CV accuracy)")):
        va = [_f(ctx_a[c].get(key)) for c in common]
        vb = [_f(ctx_b[c].get(key)) for c in common]
        if common and any(map(math.isfinite, va)) and any(map(math.isfinite, vb)):
            out.append(_diff("Values", f"{label}, mean over {len(common)} contexts", np.nanmean(va), np.nanmean(vb)))
    return out


def _testing_units(frame: pd.DataFrame) -> np.ndarray:
    return np.sort(frame["testing"].unique())


def _chosen_testings(testings: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per subject the testings the metrics use: permuted order, else fixed (as ``analysis.methods.mbti.cli``)."""
    out = {}
    for subject, mine in testings.groupby("subject", sort=False):
        permuted = mine[mine["order_mode"] == "permuted"]
        out[str(subject)] = permuted if len(permuted) else mine[mine["order_mode"] == "fixed"]
    return out


def _consistency_stat(chosen: dict[str, pd.DataFrame], units: np.ndarray, alpha: float = ALPHA):
    """Vectorised mean-over-subjects consistency for unit multiplicities W (B, n) over testing ids ``units``."""
    parts = []
    pos = {u: i for i, u in enumerate(units)}
    for frame in chosen.values():
        frame = frame[frame["testing"].isin(pos)]
        if frame.empty:
            continue
        # as analysis.methods.mbti.metrics: drop dimensions never scored, then testings with a missing dimension
        full = frame[list(DIMENSIONS)].astype(float).to_numpy()
        full = full[:, ~np.isnan(full).all(axis=0)]
        rows = ~np.isnan(full).any(axis=1)
        x = full[rows]
        idx = np.array([pos[t] for t in frame["testing"].to_numpy()[rows]], dtype=int)
        if len(x) and x.shape[1]:
            parts.append((x, idx))

    def stat(w: np.ndarray) -> np.ndarray:
        if not parts:
            return np.full(w.shape[0], np.nan)
        values = []
        for x, idx in parts:
            wr = w[:, idx]  # (B, r)
            total = wr.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = (wr @ x) / total[:, None]
                dist = np.linalg.norm(x[None, :, :] - mean[:, None, :], axis=2)
                values.append(alpha / (alpha + (wr * dist).sum(axis=1) / total))
        return stats.nanmean_last(np.stack(values, axis=1))
    return stat


def compare_mbti(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any], testings_a: pd.DataFrame, testings_b: pd.DataFrame,
                 *, n_boot: int = N_BOOT, seed: int = 0) -> list[Difference]:
    """MBTI headlines: mean consistency over subjects (paired bootstrap over shared testing indices, which
    share their option permutations), mean robustness and fairness (no CI)."""
    out: list[Difference] = []
    ca, cb = _chosen_testings(testings_a), _chosen_testings(testings_b)
    subjects = [s for s in ca if s in cb]
    units = np.intersect1d(_testing_units(testings_a), _testing_units(testings_b)) if subjects else np.array([])
    if subjects and units.size >= 2:
        sa = _consistency_stat({s: ca[s] for s in subjects}, units)
        sb = _consistency_stat({s: cb[s] for s in subjects}, units)
        ci = stats.bootstrap_counts(lambda w: sa(w) - sb(w), units.size, n_boot=n_boot, seed=seed)
        ones = np.ones((1, units.size))
        out.append(_diff("MBTI", f"Consistency, mean over {len(subjects)} subjects", sa(ones)[0], sb(ones)[0], ci,
                         f"paired bootstrap over {units.size} shared testing indices"))
    for key, label in (("robustness", "Robustness, mean over subjects"), ("fairness", "Fairness, mean over pairs")):
        va = [_f(v) for v in (doc_a.get(key) or {}).values()]
        vb = [_f(v) for v in (doc_b.get(key) or {}).values()]
        va, vb = [v for v in va if math.isfinite(v)], [v for v in vb if math.isfinite(v)]
        if va and vb:
            out.append(_diff("MBTI", label, np.mean(va), np.mean(vb)))
    return out


def compare_personagym(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any], *, n_boot: int = N_BOOT,
                       seed: int = 0) -> list[Difference]:
    """PersonaScore of two models: mean over tasks of the per-task mean over shared personas, paired bootstrap
    over those personas (per-persona task scores from the metrics document)."""
    def frame(doc: Mapping[str, Any]) -> pd.DataFrame:
        rows = [{"persona_id": name, "task": task, "score": _f(score)}
                for name, p in (doc.get("personas") or {}).items() for task, score in (p.get("tasks") or {}).items()]
        return pd.DataFrame(rows, columns=["persona_id", "task", "score"]).dropna()

    def statistic(f: pd.DataFrame) -> float:  # as PersonaScore: undefined unless every task has a score
        means = f.groupby("task")["score"].mean()
        return float(means.mean()) if len(means) == len(TASKS) else float("nan")

    fa, fb = frame(doc_a), frame(doc_b)
    shared = np.intersect1d(fa["persona_id"].unique(), fb["persona_id"].unique()) if len(fa) and len(fb) else np.array([])
    if shared.size >= 2:
        a, b = statistic(fa[fa["persona_id"].isin(shared)]), statistic(fb[fb["persona_id"].isin(shared)])
        if not math.isfinite(a - b):
            return []
        ci = stats.paired_bootstrap_diff(fa, fb, statistic, by="persona_id", n_boot=n_boot, seed=seed)
        return [_diff("PersonaGym", "PersonaScore (shared personas)", a, b, ci,
                      f"paired bootstrap over {shared.size} shared personas")]
    return []


def compare_trust(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any]) -> list[Difference]:
    """Trust headlines side by side per strategy (the trust metrics carry per-model CIs, not paired ones)."""
    out = []
    pa, pb = doc_a.get("population") or {}, doc_b.get("population") or {}
    for strategy in [s for s in pa if s in pb]:
        out.append(_diff("Trust", f"Median Spearman belief vs behaviour ({strategy})",
                         pa[strategy].get("median_spearman"), pb[strategy].get("median_spearman")))
    ia = (doc_a.get("individual") or {}).get("archetypes") or {}
    ib = (doc_b.get("individual") or {}).get("archetypes") or {}
    common = [k for k in ia if k in ib]
    if common:
        out.append(_diff("Trust", "Forecast MAE, mean over archetypes (lower is better)",
                         _mean_defined(ia[k].get("mae") for k in common), _mean_defined(ib[k].get("mae") for k in common)))
    return out


# -- where two models differ most -----------------------------------------------------------------
def item_gaps(answers_a: pd.DataFrame, answers_b: pd.DataFrame) -> pd.DataFrame:
    """Per context x item: mean valid score of each model over the personas both answered, and A − B,
    sorted by |A − B| (largest first)."""
    cols = ["context", "instrument", "item_id", "value", "a", "b", "diff", "n_personas"]

    def means(answers: pd.DataFrame) -> pd.DataFrame:
        rows = answers[(answers["stage"] == "item") & (answers["valid"] == 1)]
        return rows.groupby(["context", "instrument", "item_id", "persona_id"], as_index=False).agg(
            value=("value", "first"), score=("score", "mean"))

    ma, mb = means(answers_a), means(answers_b)
    if ma.empty or mb.empty:
        return pd.DataFrame(columns=cols)
    both = ma.merge(mb, on=["context", "instrument", "item_id", "persona_id"], suffixes=("_a", "_b"))
    if both.empty:
        return pd.DataFrame(columns=cols)
    out = both.groupby(["context", "instrument", "item_id"], as_index=False).agg(
        value=("value_a", "first"), a=("score_a", "mean"), b=("score_b", "mean"), n_personas=("persona_id", "nunique"))
    out["diff"] = out["a"] - out["b"]
    return out.reindex(out["diff"].abs().sort_values(ascending=False, kind="stable").index)[cols].reset_index(drop=True)


def persona_gaps(scores_a: pd.DataFrame, scores_b: pd.DataFrame) -> pd.DataFrame:
    """Per persona x context: mean |A − B| of the ipsatised value scores and the Spearman between the two
    models' value profiles, sorted by the mean gap (largest first)."""
    cols = ["persona_id", "context", "mean_abs_gap", "profile_spearman", "n_values"]
    keys = ["persona_id", "context", "value"]
    both = scores_a[keys + ["ipsatised"]].merge(scores_b[keys + ["ipsatised"]], on=keys, suffixes=("_a", "_b")).dropna()
    if both.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for (pid, ctx), g in both.groupby(["persona_id", "context"], sort=False):
        rho = stats.spearman(g["ipsatised_a"].to_numpy(), g["ipsatised_b"].to_numpy())
        rows.append({"persona_id": pid, "context": ctx, "mean_abs_gap": float((g["ipsatised_a"] - g["ipsatised_b"]).abs().mean()),
                     "profile_spearman": float(rho), "n_values": int(len(g))})
    out = pd.DataFrame(rows, columns=cols)
    return out.sort_values("mean_abs_gap", ascending=False, kind="stable").reset_index(drop=True)


def signed_agreement(answers: pd.DataFrame) -> pd.DataFrame:
    """Per subject x statement: mean signed option weight (+3 = fully towards the dimension's first pole)."""
    from analysis.methods.mbti.scoring import WEIGHTS

    rows = answers[(answers["valid"] == 1) & answers["option_index"].notna() & answers["dimension"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=["subject", "statement_id", "dimension", "statement", "agreement", "n"])
    signed = rows["option_index"].astype(int).map(lambda k: WEIGHTS[k]) * rows["direction"].astype(int)
    return rows.assign(signed=signed).groupby(["subject", "statement_id", "dimension"], as_index=False, sort=False).agg(
        statement=("statement", "first"), agreement=("signed", "mean"), n=("signed", "count"))


def statement_gaps(answers_a: pd.DataFrame, answers_b: pd.DataFrame) -> pd.DataFrame:
    """Per subject x statement: mean signed agreement of each model and A − B, largest |A − B| first."""
    cols = ["subject", "statement_id", "dimension", "statement", "a", "b", "diff"]
    ga, gb = signed_agreement(answers_a), signed_agreement(answers_b)
    if ga.empty or gb.empty:
        return pd.DataFrame(columns=cols)
    both = ga.merge(gb, on=["subject", "statement_id", "dimension"], suffixes=("_a", "_b"))
    both = both.rename(columns={"agreement_a": "a", "agreement_b": "b", "statement_a": "statement"})
    both["diff"] = both["a"] - both["b"]
    return both.reindex(both["diff"].abs().sort_values(ascending=False, kind="stable").index)[cols].reset_index(drop=True)
