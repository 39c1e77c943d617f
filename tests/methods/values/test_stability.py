"""Rank-order and ipsative stability against hand-worked examples, scipy, and the generic bootstrap."""

from __future__ import annotations

import math
import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from analysis import stats
from analysis.methods.values import VALUES
from analysis.methods.values.stability import (
    ipsative_ci, ipsative_stability, ipsative_table, pairwise_rank_order, rank_order_by_value, rank_order_ci,
    rank_order_matrix, rank_order_stability, rank_order_table, stability_diff_ci,
)


def _frame(data: dict[str, dict[str, list[float]]], model: str = "m") -> pd.DataFrame:
    """{context: {value: [ipsatised score of persona 1, 2, ...]}} -> a value_scores-shaped frame."""
    rows = [{"model": model, "context": ctx, "instrument": "pvq-40", "persona_id": p, "value": value,
             "score": x + 3.0, "ipsatised": x}
            for ctx, by_value in data.items() for value, xs in by_value.items() for p, x in enumerate(xs, start=1)]
    return pd.DataFrame(rows)


TWO = _frame({
    "A": {"Power": [1, 2, 3, 4], "Security": [4, 3, 2, 1]},
    "B": {"Power": [1, 3, 2, 4], "Security": [1, 2, 3, 4]},
})
THREE = _frame({
    "A": {"Power": [1, 2, 3, 4], "Security": [4, 3, 2, 1]},
    "B": {"Power": [1, 3, 2, 4], "Security": [1, 2, 3, 4]},
    "C": {"Power": [2, 2, 2, 2], "Security": [4, 3, 2, 1]},
})


def test_rank_order_two_contexts_by_hand() -> None:
    """4 personas × 2 contexts: Power rho = 1 − 6·2/(4·15) = 0.8, Security rho = −1; mean over values −0.1."""
    table = rank_order_table(TWO).set_index("value")
    assert table.loc["Power", "rho"] == pytest.approx(0.8, abs=1e-12)
    assert table.loc["Security", "rho"] == pytest.approx(-1.0, abs=1e-12)
    assert (table["n_personas"] == 4).all() and (table["pair"] == "A|B").all()
    assert rank_order_stability(TWO) == pytest.approx(-0.1, abs=1e-12)
    mat = rank_order_matrix(TWO)
    assert mat.loc["A", "B"] == mat.loc["B", "A"] == pytest.approx(-0.1, abs=1e-12)
    assert mat.loc["A", "A"] == 1.0
    assert pairwise_rank_order(TWO).to_dict() == pytest.approx({"A|B": -0.1}, abs=1e-12)


def test_rank_order_constant_is_nan_and_means_by_hand() -> None:
    """C's constant Power → NaN for A–C and B–C; Power = 0.8, Security = (−1+1−1)/3; headline = (0.8 − 1/3)/2."""
    table = rank_order_table(THREE).set_index(["pair", "value"])["rho"]
    assert math.isnan(table[("A|C", "Power")]) and math.isnan(table[("B|C", "Power")])
    assert table[("A|C", "Security")] == pytest.approx(1.0, abs=1e-12)
    by_value = rank_order_by_value(THREE)
    assert by_value["Power"] == pytest.approx(0.8, abs=1e-12)
    assert by_value["Security"] == pytest.approx(-1 / 3, abs=1e-12)
    assert list(by_value.index) == ["Power", "Security"]
    assert rank_order_stability(THREE) == pytest.approx((0.8 - 1 / 3) / 2, abs=1e-12)
    assert math.isnan(rank_order_stability(THREE, skipna=False))  # the reference's np.mean propagates NaN
    mat = rank_order_matrix(THREE)
    assert mat.loc["A", "C"] == pytest.approx(1.0, abs=1e-12) and mat.loc["B", "C"] == pytest.approx(-1.0, abs=1e-12)


def test_missing_persona_dropped_pairwise() -> None:
    """Persona 4 absent from B: A–B uses personas 1–3: Power [1,2,3] vs [1,3,2] → 0.5, Security → −1."""
    frame = TWO[~((TWO["context"] == "B") & (TWO["persona_id"] == 4))]
    table = rank_order_table(frame).set_index("value")
    assert table.loc["Power", "rho"] == pytest.approx(0.5, abs=1e-12)
    assert table.loc["Security", "rho"] == pytest.approx(-1.0, abs=1e-12)
    assert (table["n_personas"] == 3).all()
    assert rank_order_stability(frame) == pytest.approx(-0.25, abs=1e-12)


IPS = _frame({
    "A": {"Power": [1, 1, 1, 1], "Security": [2, 2, 2, 2], "Tradition": [3, 3, 3, 3]},
    "B": {"Power": [1, 3, 1, 2], "Security": [2, 2, 3, 2], "Tradition": [3, 1, 2, 2]},
})


def test_ipsative_by_hand() -> None:
    """Per persona over 3 values: p1 (1,2,3)~(1,2,3) = 1, p2 ~(3,2,1) = −1, p3 ~(1,3,2) = 0.5, p4 constant = NaN."""
    table = ipsative_table(IPS).set_index("persona_id")["rho"]
    assert table[1] == pytest.approx(1.0, abs=1e-12)
    assert table[2] == pytest.approx(-1.0, abs=1e-12)
    assert table[3] == pytest.approx(0.5, abs=1e-12)
    assert math.isnan(table[4])
    assert ipsative_stability(IPS) == pytest.approx(0.5 / 3, abs=1e-12)
    assert math.isnan(ipsative_stability(IPS, skipna=False))


def _random_scores(seed: int, n_personas: int = 20, n_contexts: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    trait = rng.normal(size=(n_personas, len(VALUES)))
    data = {f"c{c}": {v: list(np.round(trait[:, i] + rng.normal(size=n_personas), 1)) for i, v in enumerate(VALUES)}
            for c in range(n_contexts)}
    return _frame(data)


def _reference_rank_order(scores: pd.DataFrame) -> float:
    """Straight loops with scipy: per value, mean over pairs (NaN skipped) of rho on personas present in both."""
    contexts = list(dict.fromkeys(scores["context"]))
    cells = {key: g.set_index("persona_id")["ipsatised"] for key, g in scores.groupby(["context", "value"])}
    empty = pd.Series(dtype=float)
    per_value = []
    for value in VALUES:
        rhos = []
        for a, b in combinations(contexts, 2):
            xa, xb = cells.get((a, value), empty), cells.get((b, value), empty)
            both = pd.concat([xa, xb], axis=1, join="inner").dropna()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rhos.append(spearmanr(both.iloc[:, 0], both.iloc[:, 1]).statistic if len(both) >= 2 else np.nan)
        per_value.append(np.nanmean(rhos))
    return float(np.mean(per_value))


@pytest.mark.parametrize("drop", ["none", "few", "many"])
def test_rank_order_matches_scipy_loops(drop: str) -> None:
    """The vectorised rank-order equals scipy loops with no, few (rank correction) and many (re-rank) missing cells."""
    scores = _random_scores(0)
    if drop == "few":
        scores = scores[~(((scores.context == "c1") & (scores.persona_id == 3))
                          | ((scores.context == "c2") & (scores.persona_id == 8) & (scores.value == "Power")))]
    elif drop == "many":
        scores = scores.drop(index=np.random.default_rng(1).choice(len(scores), 200, replace=False))
    assert rank_order_stability(scores) == pytest.approx(_reference_rank_order(scores), abs=1e-12)


@pytest.mark.parametrize("drop", [False, True])
def test_rank_order_ci_equals_generic_bootstrap(drop: bool) -> None:
    """rank_order_ci draws the same resamples as stats.bootstrap(frame, rank_order_stability) and agrees to 1e-12."""
    scores = _random_scores(2, n_personas=12, n_contexts=3)
    if drop:
        scores = scores.drop(index=np.random.default_rng(3).choice(len(scores), 40, replace=False))
    fast = rank_order_ci(scores, n_boot=12, seed=4)
    slow = stats.bootstrap(scores, rank_order_stability, n_boot=12, seed=4)
    assert np.allclose(fast, slow, atol=1e-12)
    assert fast.lo <= fast.estimate <= fast.hi


def test_ipsative_ci_equals_generic_bootstrap_and_is_deterministic() -> None:
    """ipsative_ci agrees with the generic bootstrap (1e-12); same seed → same CI; the CI holds the estimate."""
    scores = _random_scores(5, n_personas=15, n_contexts=3)
    fast = ipsative_ci(scores, n_boot=12, seed=1)
    slow = stats.bootstrap(scores, ipsative_stability, n_boot=12, seed=1)
    assert np.allclose(fast, slow, atol=1e-12)
    assert fast == ipsative_ci(scores, n_boot=12, seed=1)
    assert fast.lo <= fast.estimate <= fast.hi


def test_rank_order_ci_seeded_and_contains_estimate() -> None:
    """Same seed → identical interval; another seed → a different one; lo ≤ estimate ≤ hi."""
    scores = _random_scores(6)
    a, b, c = (rank_order_ci(scores, n_boot=200, seed=s) for s in (0, 0, 1))
    assert a == b and a != c
    assert a.lo <= a.estimate <= a.hi
    assert a.estimate == pytest.approx(rank_order_stability(scores), abs=1e-12)


def test_stability_diff_ci() -> None:
    """A model against itself differs by exactly 0; against a noisier copy the difference is positive."""
    scores = _random_scores(8)
    same = stability_diff_ci(scores, scores, n_boot=50, seed=0)
    assert tuple(same) == pytest.approx((0.0, 0.0, 0.0), abs=1e-12)
    noisy = scores.assign(ipsatised=scores["ipsatised"] + np.random.default_rng(0).normal(scale=3.0, size=len(scores)),
                          model="noisy")
    diff = stability_diff_ci(scores, noisy, metric="rank_order", n_boot=200, seed=0)
    assert diff.estimate == pytest.approx(rank_order_stability(scores) - rank_order_stability(noisy), abs=1e-12)
    assert diff.lo > 0
    with pytest.raises(ValueError, match="metric"):
        stability_diff_ci(scores, noisy, metric="other")


def test_several_models_or_instruments_rejected() -> None:
    """Stability is per model, and a context must hold one instrument."""
    with pytest.raises(ValueError, match="several models"):
        rank_order_stability(pd.concat([TWO, _frame({"A": {"Power": [1, 2]}}, model="other")]))
    with pytest.raises(ValueError, match="several instruments"):
        rank_order_stability(pd.concat([TWO, TWO.assign(instrument="svs", persona_id=TWO["persona_id"] + 10)]))
