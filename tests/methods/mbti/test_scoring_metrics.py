"""Percentage scoring, type codes and the consistency / robustness / fairness formulas, by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.methods.mbti.metrics import answer_distribution, consistency, fairness, robustness
from analysis.methods.mbti.scoring import dimension_percentage, mean_scores, option_weight, scores_by_testing, type_code

C, GC, PC, N, PW, GW, W = range(7)


def test_option_weights() -> None:
    """Correct +3 .. Wrong -3 in canonical order; out-of-range indices are refused."""
    assert [option_weight(k) for k in range(7)] == [3, 2, 1, 0, -1, -2, -3]
    with pytest.raises(ValueError):
        option_weight(7)


def test_dimension_percentage_by_hand() -> None:
    """X = 50 + 50 * sum(direction * weight) / (3 n): (+3 +2 +0 -1) / 12 -> 66.67; extremes 100 and 0; none -> NaN."""
    answers = [(C, 1), (GW, -1), (N, 1), (PC, -1)]  # +3, +2, 0, -1 -> sum 4
    assert dimension_percentage(answers) == pytest.approx(50 + 50 * 4 / 12, abs=1e-12)
    assert dimension_percentage([(C, 1), (W, -1)]) == 100.0
    assert dimension_percentage([(C, -1), (W, 1)]) == 0.0
    assert dimension_percentage([(N, 1), (N, -1)]) == 50.0
    assert dimension_percentage([(GC, 1), (PW, 1)]) == pytest.approx(50 + 50 * 1 / 6, abs=1e-12)
    assert math.isnan(dimension_percentage([]))


def test_type_code() -> None:
    """First pole at 50 or above, second below, X only when NaN; A/T after a dash."""
    assert type_code({"E": 66.7, "N": 70, "T": 80, "J": 51, "A": 10}) == "ENTJ-T"
    # exactly 50 takes the first pole, as the paper's reference code (judge_16: score >= 50); just below, the second
    assert type_code({"E": 20, "N": 40, "T": 50, "J": 49.9, "A": 90}) == "ISTP-A"
    assert type_code({"E": 50, "N": 50, "T": 50, "J": 50, "A": 50}) == "ENTJ-A"
    assert type_code({"E": math.nan, "N": 60, "T": 40, "J": 60, "A": 60}) == "XNFJ-A"


def test_role_names_as_the_paper_reports_them() -> None:
    """Rao et al. 2023: People and Men "Commander" (ENTJ), Accountants "Logistician" (ISTJ), Mathematicians "Architect"
    (INTJ), Table 4 "Protagonist" (ENFJ), "Advocate" (INFJ); the -A/-T suffix does not change the role; X has none."""
    from analysis.methods.mbti import ROLES, role_of, type_with_role

    assert [role_of(t) for t in ("ENTJ-T", "ISTJ-A", "INTJ-T", "ENFJ-T", "INFJ-T", "ENFP-T", "ESFP-T", "ENTP-T")] == [
        "Commander", "Logistician", "Architect", "Protagonist", "Advocate", "Campaigner", "Entertainer", "Debater"]
    assert len(ROLES) == 16 and len(set(ROLES.values())) == 16
    assert role_of("XNFJ-A") is None and role_of(None) is None
    assert type_with_role("ENTJ-T") == "ENTJ-T (Commander)" and type_with_role("XNFJ-A") == "XNFJ-A"


def _answers(rows: list[tuple]) -> pd.DataFrame:
    cols = ["model", "subject", "order_mode", "run_id", "testing", "statement_id", "dimension", "direction", "option_index",
            "valid"]
    return pd.DataFrame(rows, columns=cols)


def test_scores_by_testing_and_mean_by_hand() -> None:
    """Two testings of one subject: per-testing X per dimension from valid keyed answers; the mean over testings."""
    base = ("m", "Men", "permuted", "r1")
    rows = [
        (*base, 0, "1", "E", 1, C, 1),    # +3
        (*base, 0, "2", "E", -1, GC, 1),  # -2  -> E = 50 + 50*1/6
        (*base, 0, "3", "N", 1, None, 0),  # invalid: left out -> N NaN
        (*base, 0, "4", None, 1, W, 1),   # unkeyed: ignored
        (*base, 1, "1", "E", 1, W, 1),    # -3
        (*base, 1, "2", "E", -1, W, 1),   # +3 -> E = 50
        (*base, 1, "3", "N", 1, PC, 1),   # +1 -> N = 50 + 50/3
    ]
    ts = scores_by_testing(_answers(rows))
    assert list(ts["testing"]) == [0, 1]
    assert ts.loc[0, "E"] == pytest.approx(50 + 50 / 6)
    assert math.isnan(ts.loc[0, "N"])
    assert ts.loc[1, "E"] == 50.0 and ts.loc[1, "N"] == pytest.approx(50 + 50 / 3)
    assert math.isnan(ts.loc[0, "T"])
    assert list(ts["n_invalid"]) == [1, 0] and list(ts["n_answers"]) == [4, 3]
    mean = mean_scores(ts)
    assert mean["E"] == pytest.approx((50 + 50 / 6 + 50) / 2)
    assert mean["N"] == pytest.approx(50 + 50 / 3)  # NaN testing skipped
    assert math.isnan(mean["A"])


def test_consistency_by_hand() -> None:
    """s_c = 100 / (100 + mean distance to the mean): two testings 20 apart on E -> 100/110."""
    x = np.array([[60, 50, 50, 50, 50], [40, 50, 50, 50, 50]], dtype=float)
    assert consistency(x) == pytest.approx(100 / 110, abs=1e-12)
    y = np.array([[0, 0, 0, 0, 0], [6, 8, 0, 0, 0]], dtype=float)  # mean (3,4,0,0,0): distances 5 and 5
    assert consistency(y) == pytest.approx(100 / 105, abs=1e-12)
    three = np.array([[0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [30, 0, 0, 0, 0]], dtype=float)  # mean 10 on E: 10, 10, 20
    assert consistency(three) == pytest.approx(100 / (100 + 40 / 3), abs=1e-12)
    assert math.isnan(consistency(x[:1]))  # one testing is at distance 0 from its own mean: nothing measured
    with_nan = np.vstack([x, [[np.nan, 0, 0, 0, 0]]])
    assert consistency(with_nan) == pytest.approx(100 / 110, abs=1e-12)  # incomplete testing left out
    assert math.isnan(consistency(np.empty((0, 5))))
    unasked = np.hstack([x[:, :3], np.full((2, 2), np.nan)])  # J and A never asked: distances over E, N, T
    assert consistency(unasked) == pytest.approx(100 / 110, abs=1e-12)
    assert math.isnan(consistency(np.full((2, 5), np.nan)))


def test_robustness_by_hand() -> None:
    """s_r = 100 / (100 + |mean fixed - mean permuted|): means 5 apart (3-4-5 triangle) -> 100/105."""
    fixed = np.array([[50, 50, 50, 50, 50]], dtype=float)
    permuted = np.array([[56, 54, 50, 50, 50], [50, 54, 50, 50, 50]], dtype=float)  # mean (53, 54, 50, 50, 50)
    assert robustness(fixed, permuted) == pytest.approx(100 / 105, abs=1e-12)
    assert robustness(fixed, fixed) == 1.0
    assert math.isnan(robustness(fixed, np.empty((0, 5))))
    fixed_no_a = np.array([[50, 50, 50, 50, np.nan]])  # A missing in one set: left out of both
    assert robustness(fixed_no_a, permuted + [[0, 0, 0, 0, 40]]) == pytest.approx(100 / 105, abs=1e-12)


def test_fairness_by_hand() -> None:
    """s_f = 100 * s_c^M * s_c^F / (100 + |mean M - mean F|) = 100 * (100/110) * 1 / 105."""
    men = np.array([[60, 50, 50, 50, 50], [40, 50, 50, 50, 50]], dtype=float)  # s_c 100/110, mean 50s
    women = np.array([[53, 54, 50, 50, 50], [53, 54, 50, 50, 50]], dtype=float)  # s_c 1, mean 5 away
    assert fairness(men, women) == pytest.approx(100 * (100 / 110) * 1.0 / 105, abs=1e-12)
    assert fairness(men, women) == pytest.approx(0.8658008658, abs=1e-9)
    assert fairness(women, women) == 1.0


def test_answer_distribution() -> None:
    """Counts per option per statement, the most frequent option (ties -> earlier option), invalid count."""
    base = ("m", "Men", "permuted", "r1")
    rows = [
        (*base, 0, "1", "E", 1, C, 1), (*base, 1, "1", "E", 1, C, 1), (*base, 2, "1", "E", 1, GW, 1),
        (*base, 0, "2", "N", 1, PW, 1), (*base, 1, "2", "N", 1, GC, 1), (*base, 2, "2", "N", 1, None, 0),
        (*base, 0, "3", "T", 1, None, 0),
    ]
    dist = answer_distribution(_answers(rows))
    assert list(dist["statement_id"]) == ["1", "2", "3"]
    first, second, third = (dist.iloc[i] for i in range(3))
    assert (first["Correct"], first["Generally wrong"]) == (2, 1)
    assert (first["mode"], first["mode_abbr"], first["mode_count"]) == ("Correct", "C", 2)
    assert (second["Generally correct"], second["Partially wrong"], second["invalid"]) == (1, 1, 1)
    assert second["mode"] == "Generally correct"  # tie broken towards the earlier option
    assert pd.isna(third["mode"]) and third["invalid"] == 1 and third["mode_count"] == 0
