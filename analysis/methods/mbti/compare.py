"""MBTI numbers the pages show beyond the report, and comparing two models (paired over shared testing indices).

- ``compare_mbti``: mean consistency over subjects with a paired bootstrap CI over testing indices; letters decided,
  robustness and fairness with paired CIs over the shared subjects (``analysis.methods.resampled``);
- ``statement_gaps``: where two models' answers differ most; ``mbti_subject_spread``: SD over testings.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis import stats
from analysis.methods.base import Difference, difference, too_few_units
from analysis.methods.mbti import DIMENSIONS
from analysis.methods.mbti.metrics import ALPHA
from analysis.methods.resampled import Resampler, resampled_difference

N_BOOT = 1000


def _f(x: Any) -> float:
    return float("nan") if x is None else float(x)


def mbti_subject_spread(testings: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Per subject, the SD over its testings (those the metrics use) of each dimension score."""
    out = {}
    for subject, frame in _chosen_testings(testings).items():
        out[subject] = {d: float(frame[d].astype(float).std(ddof=1)) if frame[d].notna().sum() > 1 else 0.0 for d in DIMENSIONS}
    return out


def _testing_units(frame: pd.DataFrame) -> np.ndarray:
    return np.sort(frame["testing"].unique())


def _chosen_testings(testings: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per subject the testings the metrics use: permuted order, else fixed (as ``analysis.methods.mbti.metrics.model_metrics``)."""
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
        if len(x) >= 2 and x.shape[1]:  # as metrics.consistency: undefined from fewer than two testings
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
    share their option permutations); letters decided, mean robustness and fairness (paired over shared subjects)."""
    out: list[Difference] = []
    ca, cb = _chosen_testings(testings_a), _chosen_testings(testings_b)
    subjects = [s for s in ca if s in cb]
    units = np.intersect1d(_testing_units(testings_a), _testing_units(testings_b)) if subjects else np.array([])
    if subjects and units.size >= 2:
        sa = _consistency_stat({s: ca[s] for s in subjects}, units)
        sb = _consistency_stat({s: cb[s] for s in subjects}, units)
        ones = np.ones((1, units.size))
        label = f"Consistency, mean over {len(subjects)} subjects"
        # the headline itself when both answered exactly these subjects and testings (its report's units)
        whole = (set(subjects) == set(ca) == set(cb)
                 and set(units) == set(_testing_units(testings_a)) == set(_testing_units(testings_b)))
        key = "mbti_consistency" if whole else None
        too_few = too_few_units(int(units.size), "testing indices")
        if too_few:
            out.append(difference("MBTI", label, sa(ones)[0], sb(ones)[0], note=too_few, key=key))
        else:
            ci = stats.bootstrap_counts(lambda w: sa(w) - sb(w), units.size, n_boot=n_boot, seed=seed)
            out.append(difference("MBTI", label, sa(ones)[0], sb(ones)[0], ci,
                                  f"paired bootstrap over {units.size} shared testing indices", key=key))
    out.append(decided_difference(doc_a, doc_b, n_boot=n_boot, seed=seed))
    for key, label in (("robustness", "Robustness"), ("fairness", "Fairness")):
        da, db = doc_a.get(key) or {}, doc_b.get(key) or {}
        common = [k for k in da if k in db and math.isfinite(_f(da[k])) and math.isfinite(_f(db[k]))]
        if common:  # the same subjects (pairs) on both sides
            what = "subjects" if key == "robustness" else "pairs of subjects"
            ra, rb = (_mean_resampler({k: _f(d[k]) for k in common}, what) for d in (da, db))
            out.append(resampled_difference("MBTI", f"{label}, mean over {len(common)} shared {what}",
                                            ra, rb, float(np.mean([_f(da[k]) for k in common])),
                                            float(np.mean([_f(db[k]) for k in common])), n_boot=n_boot, seed=seed))
    return out


def _mean_resampler(values: Mapping[str, float], noun: str) -> Resampler:
    """The mean of per-unit ``values`` on resampled units (NaN where a resample holds none)."""
    ids = list(values)
    x = np.array([values[k] for k in ids], dtype=float)

    def statistic(W: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return (W * x).sum(axis=1) / W.sum(axis=1)

    return Resampler(ids, noun, statistic)


def decided_difference(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any], *, n_boot: int = N_BOOT,
                       seed: int = 0) -> Difference:
    """``mbti_decided``, A − B: the mean decided letters over the decidable subjects (``uncertainty.decided_headline``),
    paired over the subjects both have (a subject's letters are decided by its own bootstrap over statements, so the
    subject is the unit here)."""
    def per_subject(doc: Mapping[str, Any]) -> dict[str, float]:
        return {s: float(d["uncertainty"]["n_decided"]) for s, d in (doc.get("subjects") or {}).items()
                if (d.get("uncertainty") or {}).get("decidable")}

    heads = [((d.get("headlines") or {}).get("mbti_decided") or {}).get("value") for d in (doc_a, doc_b)]
    return resampled_difference("MBTI", "Letters decided (of 4), mean over subjects",
                                _mean_resampler(per_subject(doc_a), "subjects"),
                                _mean_resampler(per_subject(doc_b), "subjects"), heads[0], heads[1],
                                key="mbti_decided", n_boot=n_boot, seed=seed)


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
