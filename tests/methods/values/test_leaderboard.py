"""Leaderboard: column table, Cardinal, Ordinal win rate, diversity (1 − Kendall's W), sensitivity (MRC)."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau, rankdata

from analysis.methods.values import leaderboard as lb

MODELS = {
    "m1": {"pairwise_rank_order": {"b|a": 0.5},
           "contexts": {"a": {"stress": 0.2, "cfi": 0.9, "srmr": 0.1, "rmsea": 0.05},
                        "b": {"stress": 0.3, "cfi": 0.8, "srmr": 0.2, "rmsea": 0.1}}},
    "m2": {"pairwise_rank_order": {"a|b": 0.7},
           "contexts": {"a": {"stress": 0.25, "cfi": 0.95, "srmr": 0.05, "rmsea": None}}},
}


def test_column_table_from_metric_dicts() -> None:
    """RO pairs canonicalised ('b|a' = 'a|b'), decreasing metrics inverted, absent values NaN."""
    t = lb.column_table(MODELS)
    assert list(t.columns) == ["RO:a|b", "1-Stress:a", "1-Stress:b", "CFI:a", "CFI:b", "1-SRMR:a", "1-SRMR:b",
                               "1-RMSEA:a", "1-RMSEA:b"]
    assert t.loc["m1", "RO:a|b"] == 0.5 and t.loc["m2", "RO:a|b"] == 0.7
    assert t.loc["m1", "1-Stress:b"] == pytest.approx(0.7, abs=1e-12)
    assert t.loc["m1", "1-RMSEA:a"] == pytest.approx(0.95, abs=1e-12)
    assert math.isnan(t.loc["m2", "1-RMSEA:a"]) and math.isnan(t.loc["m2", "CFI:b"])


#: Magnifying-glass groups as the values report holds them: a fitted model, and a failed one (indices null, its reason).
FIT = {"n": 50, "chi2": 20.0, "df": 10, "cfi": 0.9, "tli": 0.8, "rmsea": 0.05, "srmr": 0.06, "converged": True, "reason": ""}
FAILED = {"n": 50, "chi2": None, "df": 10, "cfi": None, "tli": None, "rmsea": None, "srmr": None, "converged": False,
          "reason": "latent correlation |r| ≥ 1: Achievement–Power r = 1.0312"}
GROUPS = ("Conservation", "Openness to change", "Self-transcendence", "Self-enhancement")


def test_a_failed_fit_is_scored_in_the_leaderboard_columns_as_the_reference_does() -> None:
    """The report holds a failed fit as null (its context's mean fit too); the leaderboard's columns alone score it CFI 0,
    TLI 0, RMSEA 1, SRMR 1 in the mean over the four models, so it ranks as the reference's rule says.

    "failed": three fits of CFI 0.9 / RMSEA 0.05 / SRMR 0.06 and one failed → CFI 2.7/4 = 0.675, RMSEA 1.15/4 = 0.2875,
    SRMR 1.18/4 = 0.295; "fitted": four fits of CFI 0.7 / RMSEA 0.1 / SRMR 0.1. Columns RO 0.6 and 1-Stress 0.8 for both:
    Cardinal (0.6 + 0.8 + 0.675 + 0.705 + 0.7125)/5 = 0.6985 below (0.6 + 0.8 + 0.7 + 0.9 + 0.9)/5 = 0.78. Leaving the
    failed fit out (the mean of the three that fitted) would give 0.838 and rank "failed" first."""
    failed = dict.fromkeys(GROUPS[:3], FIT) | {GROUPS[3]: FAILED}
    assert lb.scored_fit(failed) == pytest.approx({"cfi": 0.675, "tli": 0.6, "rmsea": 0.2875, "srmr": 0.295}, abs=1e-12)
    assert lb.FAILURE_SCORES == {"cfi": 0.0, "tli": 0.0, "rmsea": 1.0, "srmr": 1.0}
    fitted = dict.fromkeys(GROUPS, FIT | {"cfi": 0.7, "tli": 0.6, "rmsea": 0.1, "srmr": 0.1})
    undefined = {"cfi": None, "tli": None, "rmsea": None, "srmr": None, "cfa_reason": "Self-enhancement did not fit: …"}
    models = {"failed": {"pairwise_rank_order": {"a|b": 0.6}, "contexts": {"a": {"stress": 0.2, **undefined, "cfa": failed}}},
              "fitted": {"pairwise_rank_order": {"a|b": 0.6},
                         "contexts": {"a": {"stress": 0.2, "cfi": 0.7, "rmsea": 0.1, "srmr": 0.1, "cfa": fitted}}}}
    table = lb.column_table(models)
    assert table.loc["failed"].to_dict() == pytest.approx(
        {"RO:a|b": 0.6, "1-Stress:a": 0.8, "CFI:a": 0.675, "1-SRMR:a": 0.705, "1-RMSEA:a": 0.7125}, abs=1e-12)
    board = lb.leaderboard(table)
    assert list(board.rows.index) == ["fitted", "failed"]
    assert board.rows.loc["failed", "cardinal"] == pytest.approx(0.6985, abs=1e-12)
    assert board.rows.loc["fitted", "cardinal"] == pytest.approx(0.78, abs=1e-12)
    assert board.rows.loc["failed", "cfi"] == pytest.approx(0.675, abs=1e-12)  # the board's own column, scored
    assert board.rows.loc["failed", "ordinal"] == 0.0 and board.rows.loc["fitted", "ordinal"] == pytest.approx(0.6)
    assert "CFI 0" in lb.FAILURE_NOTE and "RMSEA 1" in lb.FAILURE_NOTE and "reference's leaderboard" in lb.FAILURE_NOTE


def test_cardinal_by_hand() -> None:
    """Cardinal = mean of the available columns: m1 (0.5+0.8+0.7+0.9+0.8+0.9+0.8+0.95+0.9)/9, m2 over its 4."""
    c = lb.cardinal_scores(lb.column_table(MODELS))
    assert c["m1"] == pytest.approx(7.25 / 9, abs=1e-12)
    assert c["m2"] == pytest.approx((0.7 + 0.75 + 0.95 + 0.95) / 4, abs=1e-12)


def test_ordinal_win_rate_with_ties_by_hand() -> None:
    """c1: A .9, B .5, C .5 → A 2/2, B 0, C 0 (ties are not wins); c2: A .1, B .3, C .2 → 0, 1, ½."""
    t = pd.DataFrame({"c1": [0.9, 0.5, 0.5], "c2": [0.1, 0.3, 0.2]}, index=["A", "B", "C"])
    w = lb.win_rates(t)
    assert w["c1"].tolist() == [1.0, 0.0, 0.0]
    assert w["c2"].tolist() == [0.0, 1.0, 0.5]
    assert lb.ordinal_scores(t).tolist() == pytest.approx([0.5, 0.5, 0.25], abs=1e-12)


def test_ordinal_win_rate_missing_column() -> None:
    """C lacks c2: c2's win rates are over the 2 models that have it (÷1); C's ordinal uses c1 only."""
    t = pd.DataFrame({"c1": [0.9, 0.5, 0.7], "c2": [0.1, 0.3, np.nan]}, index=["A", "B", "C"])
    w = lb.win_rates(t)
    assert w.loc["A", "c2"] == 0.0 and w.loc["B", "c2"] == 1.0 and math.isnan(w.loc["C", "c2"])
    assert lb.ordinal_scores(t).to_dict() == pytest.approx({"A": 0.5, "B": 0.5, "C": 0.5}, abs=1e-12)


def test_kendall_w_and_diversity_by_hand() -> None:
    """3 models × 3 columns; descending ranks (A,B,C) = (1,2,3), (1,3,2), (2,1,3) → W = 4/9, diversity 5/9."""
    t = pd.DataFrame({"c1": [0.9, 0.5, 0.1], "c2": [0.8, 0.2, 0.4], "c3": [0.5, 0.6, 0.3]}, index=["A", "B", "C"])
    assert lb.kendall_w_columns(t) == pytest.approx(4 / 9, abs=1e-12)
    assert lb.diversity(t) == pytest.approx(5 / 9, abs=1e-12)
    same = pd.DataFrame({"c1": [3.0, 2.0, 1.0], "c2": [30.0, 20.0, 10.0]}, index=["A", "B", "C"])
    assert lb.diversity(same) == pytest.approx(0.0, abs=1e-12)


def test_diversity_uses_complete_columns_with_tie_correction() -> None:
    """A NaN column is skipped; a tied column uses the tie correction: [[1,2.5,2.5],[1,2,3]] → W = 78/84."""
    t = pd.DataFrame({"c1": [0.9, 0.5, 0.5], "c2": [0.9, 0.5, 0.1], "c3": [np.nan, 0.1, 0.9]}, index=["A", "B", "C"])
    assert lb.kendall_w_columns(t) == pytest.approx(78 / 84, abs=1e-12)


def test_rank_change_definition() -> None:
    """MRC = max |Δrank|/(n−1); tau = (1 − Kendall tau-b)/2; identical rankings give (0, 0)."""
    assert lb.rank_change(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])) == (0.0, 0.0)
    tau, mrc = lb.rank_change(np.array([3.0, 2.0, 1.0]), np.array([1.0, 2.0, 3.0]))
    assert (tau, mrc) == pytest.approx((1.0, 1.0), abs=1e-12)
    tau, mrc = lb.rank_change(np.array([2.0, 1.0, 3.0]), np.array([1.0, 2.0, 3.0]))
    assert (tau, mrc) == pytest.approx(((1 - 1 / 3) / 2, 0.5), abs=1e-12)


def test_cardinal_sensitivity_matches_benchbench_outputs() -> None:
    """Values printed by benchbench 1.0.1 ``measures.cardinal.get_sensitivity(df, cols)`` (scratch venv):

    T2 → (0.33333333333333326, 0.6666666666666666); T3 (A dominates B dominates C dominates D in
    both columns) → (0, 0). Tolerance 1e-9.
    """
    t2 = pd.DataFrame({"c1": [0.62, 0.55, 0.48, 0.40], "c2": [0.30, 0.52, 0.41, 0.20], "c3": [0.81, 0.77, 0.90, 0.60]},
                      index=list("ABCD"))
    assert lb.cardinal_sensitivity(t2) == pytest.approx((1 / 3, 2 / 3), abs=1e-9)
    t3 = pd.DataFrame({"c1": [0.9, 0.8, 0.7, 0.6], "c2": [0.95, 0.85, 0.75, 0.65]}, index=list("ABCD"))
    assert lb.cardinal_sensitivity(t3) == (0.0, 0.0)
    assert all(math.isnan(v) for v in lb.cardinal_sensitivity(t3.iloc[:1]))


ORD = pd.DataFrame({"c1": [3.0, 2.0, 5.0, 4.0], "c2": [3.0, 2.0, 5.0, 4.0], "c3": [2.0, 5.0, 4.0, 3.0]},
                   index=["A", "B", "X1", "X2"])


def test_ordinal_sensitivity_by_hand() -> None:
    """L = {A, B}: A beats B in 2 of 3 columns (A first). X1, X2 beat A in c1, c2 and lose to B in c3:

    with both added A's mean win rate = (2/3 + 0 + 0 + 0)/4 = 1/6 < B's (1/3 + 0 + 1/3 + 1/3)/4 = 1/4,
    so the order flips: tau = (1 − (−1))/2 = 1, MRC = 1/(2 − 1) = 1. With X1 only A and B tie
    (2/9 each; tau undefined), so nothing beats the flip; without X's nothing can change.
    """
    assert lb.ordinal_sensitivity(ORD, ["A", "B"]) == pytest.approx((1.0, 1.0), abs=1e-12)
    assert lb.ordinal_sensitivity(ORD.loc[["A", "B"]], ["A", "B"]) == (0.0, 0.0)
    assert all(math.isnan(v) for v in lb.ordinal_sensitivity(ORD))  # default L = first 4//5 = 0 rows
    with pytest.raises(ValueError, match="not in the table"):
        lb.ordinal_sensitivity(ORD, ["A", "Z"])


def _brute_ordinal(table: pd.DataFrame, rel: list[str]) -> tuple[float, float]:
    """Plain loops: win-rate matrix, every subset of the other models, best (tau, MRC)."""
    names = list(table.index)
    x = table.to_numpy()
    m = len(names)
    rate = np.array([[np.mean(x[i] > x[j]) if i != j else 0.0 for j in range(m)] for i in range(m)])
    li = [names.index(n) for n in rel]
    others = [i for i in range(m) if i not in li]
    old = rankdata(-rate[np.ix_(li, li)].mean(axis=1))
    best = (-1.0, -1.0)
    for k in range(len(others) + 1):
        for sub in itertools.combinations(others, k):
            sel = li + list(sub)
            new = rankdata(-rate[np.ix_(li, sel)].sum(axis=1) / len(sel))
            if np.abs(new - old).sum() <= 1e-8:
                cand = (0.0, 0.0)
            else:
                tau = kendalltau(new, old).statistic
                cand = ((1 - tau) / 2 if np.isfinite(tau) else -1.0, np.abs(new - old).max() / (len(rel) - 1))
            best = max(best, cand)
    return best


def test_ordinal_sensitivity_matches_brute_force() -> None:
    """Vectorised subset search equals plain loops on a random 9-model table with L = 3 models (1e-12)."""
    rng = np.random.default_rng(4)
    t = pd.DataFrame(rng.normal(size=(9, 5)), index=[f"m{i}" for i in range(9)], columns=[f"c{i}" for i in range(5)])
    rel = ["m0", "m4", "m7"]
    got = lb.ordinal_sensitivity(t, rel)
    assert got == pytest.approx(_brute_ordinal(t, rel), abs=1e-12)
    assert got[1] > 0


def test_leaderboard_rows_nan_and_json() -> None:
    """Rows sorted by Cardinal, n_columns counts a model's columns, group means in natural direction, JSON has no NaN."""
    board = lb.leaderboard(lb.column_table(MODELS))
    assert list(board.rows.index) == ["m2", "m1"]
    assert board.rows.loc["m2", "n_columns"] == 4 and board.rows.loc["m1", "n_columns"] == 9
    assert board.rows.loc["m1", "stress"] == pytest.approx(0.25, abs=1e-12)
    assert board.rows.loc["m1", "rank_order"] == pytest.approx(0.5, abs=1e-12)
    # complete columns RO, 1-Stress:a, CFI:a, 1-SRMR:a rank (m1, m2) as (2,1), (1,2), (2,1), (2,1): W = 12·2/(16·6)
    assert board.kendall_w == pytest.approx(0.25, abs=1e-12) and board.diversity == pytest.approx(0.75, abs=1e-12)
    doc = json.loads(json.dumps(board.to_dict(), allow_nan=False))
    assert doc["rows"][0]["model"] == "m2" and doc["rows"][0]["rmsea"] is None
    ordinal = doc["sensitivity"]["ordinal"]  # 2 models: L = 2//5 = 0 rows -> undefined, with its reason
    assert (ordinal["tau"], ordinal["mrc"], ordinal["relevant"]) == (None, None, [])
    assert ordinal["reason"].startswith("needs at least 2 relevant models")
    assert doc["sensitivity"]["cardinal"]["reason"] is None


# Rows in "list order" (the order the table is given), not by score: A, B, C first; P, Q, R top by Cardinal.
SPLIT_ROWS = {"A": (3, 3, 2), "B": (2, 2, 5), "C": (1, 1, 1), "X1": (4, 4, 3), "P": (10, 10, 10), "X2": (5, 5, 4),
              "X3": (6, 6, 3.5), "Q": (9, 9, 9), "X4": (7, 7, 4.5), "X5": (8, 8, 2.5), "R": (8.5, 8.5, 8.5),
              "X6": (4.5, 4.5, 3.2), "X7": (5.5, 5.5, 2.2), "X8": (6.5, 6.5, 4.8), "X9": (7.5, 7.5, 3.8)}
SPLIT = pd.DataFrame.from_dict(SPLIT_ROWS, orient="index", columns=["c1", "c2", "c3"], dtype=float)


def test_ordinal_sensitivity_split_is_first_fifth_in_table_order() -> None:
    """The reference's split: benchbench ``ordinal.get_sensitivity(data_df, cols)`` (value_stability
    ``plot_utils.py:116``) takes L = ``np.arange(len(data) // 5)`` (ordinal.py:87), the first M//5 rows of the table
    as given (value_stability's rows follow its ``models`` list), not the top M//5 by Cardinal.

    15 models, L = 3. First three rows A, B, C: A beats B in c1, c2 (2/3), both beat C everywhere, so before
    adding, A = (2/3 + 1)/3 > B = (1/3 + 1)/3 > C = 0. Every X beats A and B in c1, c2, loses to B and beats A in
    c3 and beats C everywhere: each X adds 1/3 to B's sum and 0 to A's and C's, so with two X's B passes A
    (ranks (2, 1, 3) vs (1, 2, 3): Kendall tau-b 1/3, tau = 1/3, MRC = 1/2); C can never move. The top three by
    Cardinal, P > Q > R, beat each other and everyone in every column: nothing can move them, (0, 0).
    benchbench's own function (fetched source, torch 2.14, scratch venv) printed (0.3333333333333333, 0.5) on this
    table in this row order and (0, 0) on it sorted by Cardinal.
    """
    board = lb.leaderboard(SPLIT)
    ordinal = board.sensitivity["ordinal"]
    assert list(board.rows.index[:3]) == ["P", "Q", "R"]
    assert ordinal["relevant"] == ["A", "B", "C"] == lb.default_relevant(SPLIT) and ordinal["reason"] is None
    assert (ordinal["tau"], ordinal["mrc"]) == pytest.approx((1 / 3, 1 / 2), abs=1e-12)
    assert lb.ordinal_sensitivity(SPLIT) == pytest.approx((1 / 3, 1 / 2), abs=1e-12)  # default L: same split
    assert lb.ordinal_sensitivity(SPLIT, ["P", "Q", "R"]) == (0.0, 0.0)  # the top-by-Cardinal reading
    by_cardinal = SPLIT.loc[list(board.rows.index)]  # the same models given in Cardinal order: L = P, Q, R
    assert lb.leaderboard(by_cardinal).sensitivity["ordinal"]["relevant"] == ["P", "Q", "R"]
    assert lb.ordinal_sensitivity(by_cardinal) == (0.0, 0.0)


def test_ordinal_sensitivity_not_the_references_early_stop() -> None:
    """|L| = 2 (10 models: A, B first, X's as above, P, Q on top). Two X's flip A and B: tau = 1, MRC = 1.
    benchbench returns (0, 0) here: its first sampled subset (torch seed 0) already flips them by more than 0.01,
    ``appr_rank_diff`` becomes the float -0.01, the loop breaks before recording it (ordinal.py:29, 103-104), and the
    untrained mask (sigmoid(0) = 0.5, not > 0.5) selects L alone. Enumeration reports the flip."""
    t = SPLIT.loc[["A", "B", "X1", "P", "X2", "X3", "Q", "X4", "X5", "X6"]]
    board = lb.leaderboard(t)
    assert board.sensitivity["ordinal"]["relevant"] == ["A", "B"]
    assert lb.ordinal_sensitivity(t) == pytest.approx((1.0, 1.0), abs=1e-12)


def test_ordinal_sensitivity_uses_reference_split_not_every_model() -> None:
    """Default L = the first M//5 rows (here m0, m1), matching the brute force. Passing every model as relevant, as
    the leaderboard once did, leaves nothing to add: 0 whatever the data."""
    rng = np.random.default_rng(2)
    t = pd.DataFrame(rng.uniform(size=(10, 6)), index=[f"m{i}" for i in range(10)], columns=[f"RO:c{i}|d" for i in range(6)])
    board = lb.leaderboard(t)
    ordinal = board.sensitivity["ordinal"]
    assert ordinal["relevant"] == ["m0", "m1"] and ordinal["reason"] is None
    expected = _brute_ordinal(t, ["m0", "m1"])
    assert (ordinal["tau"], ordinal["mrc"]) == pytest.approx(expected, abs=1e-12)
    assert lb.ordinal_sensitivity(t, list(t.index)) == (0.0, 0.0)  # the old constant


def test_values_leaderboard_orders_rows_by_model_name() -> None:
    """The split depends on the row order, so the leaderboard document builds its table by model name, whatever
    order the metrics document kept."""
    from analysis.methods.values import metrics

    models = {name: {"pairwise_rank_order": {"a|b": float(v)}} for name, v in
              zip(["m9", "m3", "m0", "m7", "m1", "m5", "m2", "m8", "m4", "m6"], range(10))}
    doc = metrics.values_leaderboard({"models": models})
    assert doc["sensitivity"]["ordinal"]["relevant"] == ["m0", "m1"]
