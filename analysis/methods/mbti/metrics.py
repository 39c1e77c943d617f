"""Consistency, robustness and fairness of MBTI assessments (Rao et al. 2023, Eq. 2-5), α = 100.

X_i ∈ [0,100]^5 is testing i's score vector (E, N, T, J, A), X̄ the mean over N testings:

    s_c = α / (α + (1/N) Σ_i ‖X_i − X̄‖₂)
    s_r = α / (α + ‖X̄_fixed − X̄_permuted‖₂)
    s_f = α · s_c^M · s_c^F / (α + ‖X̄_M − X̄_F‖₂)     for (Men, Women) and (Boys, Girls)

Dimensions without any value (never asked, e.g. with --limit-statements; for s_r and s_f: in
either set) are left out of the distances; then testings with a NaN on a remaining dimension (no
valid answer for it in that testing) are left out. Nothing left -> NaN.

Plus the answer distribution per statement (the paper's Figure 3: the most frequent option of each
question over the testings).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.mbti import DIMENSIONS, OPTION_ABBREVIATIONS, OPTIONS, role_of
from analysis.methods.mbti.scoring import mean_scores, type_code
from analysis.methods.mbti.subjects import FAIRNESS_PAIRS, background_of

ALPHA = 100.0


def _usable(*sets: np.ndarray | pd.DataFrame) -> list[np.ndarray]:
    """Each set as a 2-D array restricted to the dimensions that have a value in every set, keeping
    only the testings (rows) complete on those dimensions."""
    arrays = []
    for scores in sets:
        arr = np.asarray(scores, dtype=float)
        if arr.ndim == 1:
            arr = arr.reshape(1, -1) if arr.size else arr.reshape(0, 5)
        arrays.append(arr)
    keep = np.ones(arrays[0].shape[1], dtype=bool)
    for arr in arrays:
        keep &= ~np.isnan(arr).all(axis=0) if len(arr) else np.zeros_like(keep)
    out = []
    for arr in arrays:
        arr = arr[:, keep]
        out.append(arr[~np.isnan(arr).any(axis=1)])
    return out


def consistency(scores: np.ndarray | pd.DataFrame, alpha: float = ALPHA) -> float:
    """s_c of one subject's testings (rows = testings, columns = the 5 dimensions). Undefined (NaN) with fewer than
    two usable testings: one testing is at distance 0 from its own mean, so the formula would give 1.0 whatever the
    model answered."""
    [arr] = _usable(scores)
    if len(arr) < 2 or arr.shape[1] == 0:
        return math.nan
    mean = arr.mean(axis=0)
    return float(alpha / (alpha + np.linalg.norm(arr - mean, axis=1).mean()))


def robustness(fixed: np.ndarray | pd.DataFrame, permuted: np.ndarray | pd.DataFrame, alpha: float = ALPHA) -> float:
    """s_r between the mean of fixed-order testings and the mean of permuted-order testings."""
    a, b = _usable(fixed, permuted)
    if len(a) == 0 or len(b) == 0 or a.shape[1] == 0:
        return math.nan
    return float(alpha / (alpha + np.linalg.norm(a.mean(axis=0) - b.mean(axis=0))))


def fairness(male: np.ndarray | pd.DataFrame, female: np.ndarray | pd.DataFrame, alpha: float = ALPHA) -> float:
    """s_f of a (male, female) subject pair: consistencies times the similarity of their means."""
    a, b = _usable(male, female)
    if len(a) == 0 or len(b) == 0 or a.shape[1] == 0:
        return math.nan
    distance = np.linalg.norm(a.mean(axis=0) - b.mean(axis=0))
    return float(alpha * consistency(a, alpha) * consistency(b, alpha) / (alpha + distance))


def answer_distribution(answers: pd.DataFrame) -> pd.DataFrame:
    """Per statement (in first-seen order): counts of each option over the testings, the most
    frequent option (ties -> the earlier option in the order Correct .. Wrong), its count, and the
    invalid count. ``answers``: mbti_answers rows of one model x subject x order mode."""
    labels = list(OPTIONS)
    cols = ["statement_id", *labels, "invalid", "mode", "mode_abbr", "mode_count"]
    if answers.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for sid, group in answers.groupby("statement_id", sort=False):
        valid = group[(group["valid"] == 1) & group["option_index"].notna()]
        counts = [int((valid["option_index"].astype(int) == k).sum()) for k in range(len(labels))]
        row = {"statement_id": sid, **dict(zip(labels, counts)), "invalid": int(len(group) - len(valid))}
        if valid.empty:
            row |= {"mode": None, "mode_abbr": None, "mode_count": 0}
        else:
            best = max(range(len(labels)), key=lambda k: (counts[k], -k))
            row |= {"mode": labels[best], "mode_abbr": OPTION_ABBREVIATIONS[best], "mode_count": counts[best]}
        rows.append(row)
    return pd.DataFrame(rows, columns=cols)


def _num(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(float(value), 6)


def _matrix(testings: pd.DataFrame) -> pd.DataFrame:
    return testings[list(DIMENSIONS)].astype(float)


def model_metrics(testings: pd.DataFrame) -> dict[str, Any]:
    """The per-model part of the metrics document from one model's ``scores_by_testing`` rows."""
    subjects: dict[str, Any] = {}
    robust: dict[str, float | None] = {}
    chosen_by_subject: dict[str, pd.DataFrame] = {}
    for subject in dict.fromkeys(testings["subject"]):
        mine = testings[testings["subject"] == subject]
        permuted, fixed = mine[mine["order_mode"] == "permuted"], mine[mine["order_mode"] == "fixed"]
        chosen = permuted if len(permuted) else fixed
        chosen_by_subject[subject.lower()] = chosen
        scores = mean_scores(chosen)
        subjects[subject] = {
            "scores": {d: _num(scores[d]) for d in DIMENSIONS},
            "type": type_code(scores),
            "role": role_of(type_code(scores)),
            "background": background_of(subject),
            "consistency": _num(consistency(_matrix(chosen))),
            "n_testings": int(len(chosen)),
            "invalid": int(chosen["n_invalid"].sum()),
            "truncated": int(chosen["n_truncated"].sum()) if "n_truncated" in chosen else 0,
        }
        if len(permuted) and len(fixed):
            robust[subject] = _num(robustness(_matrix(fixed), _matrix(permuted)))
    fair: dict[str, float | None] = {}
    for male, female in FAIRNESS_PAIRS:
        m, f = chosen_by_subject.get(male.lower()), chosen_by_subject.get(female.lower())
        fair[f"{male}|{female}"] = _num(fairness(_matrix(m), _matrix(f))) if m is not None and f is not None else None
    return {"subjects": subjects, "robustness": robust, "fairness": fair}
