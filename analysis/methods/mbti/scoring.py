"""Open scoring of one testing: per dimension, the percentage towards its first pole.

Option weights (canonical order): Correct +3, Generally correct +2, Partially correct +1,
Neither correct nor wrong 0, Partially wrong -1, Generally wrong -2, Wrong -3.

For a testing and a dimension d with valid keyed answers i = 1..n (direction s_i = +1, or -1 for a
reversed statement, weight w_i of the chosen option):

    X_d = 50 + 50 * (sum_i s_i * w_i) / (3 * n)        in [0, 100]

i.e. 100 when every answer fully agrees with the first pole (E, N, T, J, A), 0 when every answer
fully agrees with the second (I, S, F, P, T), 50 when balanced. Invalid answers are left out
(n counts valid answers only); no valid answer -> NaN. The subject's result is the mean of X over
its testings (NaN testings skipped per dimension). Type code, as the paper's reference code
(``judge_16`` in Kali-Hac/ChatGPT-MBTI): per dimension the first pole when the mean is >= 50, else
the second; "X" only when the dimension has no valid answer (NaN); e.g. "ENTJ-T".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from analysis.methods.mbti import DIMENSIONS, OPTIONS, POLES

WEIGHTS: tuple[int, ...] = (3, 2, 1, 0, -1, -2, -3)
MAX_WEIGHT = 3
TESTING_KEYS = ("model", "subject", "order_mode", "run_id", "testing")


def option_weight(option: int) -> int:
    """The weight of canonical option ``option`` (0 = Correct .. 6 = Wrong)."""
    if not 0 <= option < len(OPTIONS):
        raise ValueError(f"option index {option} outside 0..{len(OPTIONS) - 1}")
    return WEIGHTS[option]


def percentage(total: float | np.ndarray, n: float | np.ndarray) -> float | np.ndarray:
    """X_d = 50 + 50 · total / (3 · n) from the sum of signed weights (Σ s_i · w_i) of ``n`` valid answers; scalars or
    arrays (the statement bootstrap, ``uncertainty``, scores its resamples with it); NaN where n = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = 50.0 + 50.0 * np.asarray(total, dtype=float) / (MAX_WEIGHT * np.asarray(n, dtype=float))
    out = np.where(np.asarray(n) > 0, out, np.nan)
    return float(out) if out.ndim == 0 else out


def dimension_percentage(answers: Iterable[tuple[int, int]]) -> float:
    """X_d from (option index, direction) pairs of one dimension's valid answers; NaN if none."""
    pairs = list(answers)
    if not pairs:
        return math.nan
    return float(percentage(sum(direction * option_weight(option) for option, direction in pairs), len(pairs)))


def type_code(scores: Mapping[str, float]) -> str:
    """"ENTJ-T" style code from per-dimension percentages (see module docstring)."""
    letters = []
    for dim in DIMENSIONS:
        x = scores.get(dim, math.nan)
        first, second = POLES[dim]
        if x is None or (isinstance(x, float) and math.isnan(x)):
            letters.append("X")
        else:
            letters.append(first if x >= 50 else second)
    return "".join(letters[:4]) + "-" + letters[4]


def scores_by_testing(answers: pd.DataFrame) -> pd.DataFrame:
    """One row per testing (model, subject, order_mode, run_id, testing): X for each dimension,
    plus n_answers, n_invalid and n_truncated (replies cut by a length limit). ``answers`` holds mbti_answers rows
    (option_index, direction, dimension, valid, truncated)."""
    cols = [*TESTING_KEYS, *DIMENSIONS, "n_answers", "n_invalid", "n_truncated"]
    if answers.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for key, group in answers.groupby(list(TESTING_KEYS), sort=True, dropna=False):
        row = dict(zip(TESTING_KEYS, key))
        valid = group[(group["valid"] == 1) & group["dimension"].notna() & group["option_index"].notna()]
        for dim in DIMENSIONS:
            sub = valid[valid["dimension"] == dim]
            row[dim] = dimension_percentage(zip(sub["option_index"].astype(int), sub["direction"].astype(int)))
        row["n_answers"] = len(group)
        row["n_invalid"] = int((group["valid"] != 1).sum())
        row["n_truncated"] = int((pd.to_numeric(group["truncated"], errors="coerce") == 1).sum()) if "truncated" in group else 0
        rows.append(row)
    return pd.DataFrame(rows, columns=cols)


def mean_scores(testings: pd.DataFrame) -> dict[str, float]:
    """Mean X per dimension over testings (NaN skipped; NaN when a dimension has none)."""
    out = {}
    for dim in DIMENSIONS:
        values = testings[dim].astype(float).to_numpy() if dim in testings else np.array([])
        values = values[~np.isnan(values)]
        out[dim] = float(values.mean()) if len(values) else math.nan
    return out
