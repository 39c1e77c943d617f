"""Trust-game nulls and split-half reliability: closed forms and a worked case."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis import chance
from analysis.methods.trust import chance as tchance
from analysis.methods.trust.consistency import Belief
from analysis.methods.trust.effects import ranking_scores

AGES = ("18-29", "30-44", "45-64", "65+")


def transfers(sent: list[int], ages: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"persona_id": [f"p{i}" for i in range(len(sent))], "valid": 1, "sent": sent,
                         "attributes": [{"age": a} for a in ages]})


def belief(ranking: tuple[str, ...], eta2: float) -> dict[str, Belief]:
    return {"age": Belief("age", AGES, ranking, ranking_scores(ranking, AGES), eta2)}


def test_permutation_null_of_eta2_has_its_closed_form_mean():
    # η² of k groups under random relabelling: E[SS_between / SS_total] = (k − 1)/(n − 1) exactly.
    # With a belief of η² = 0, |Δη²| is the behaviour's η² itself.
    rng = np.random.default_rng(0)
    n = 40
    frame = transfers(list(rng.integers(0, 11, n)), [AGES[i % 4] for i in range(n)])
    draws = tchance.population_draws(belief(AGES, 0.0), frame, 10, "permutation", 3000, seed=1)
    eta2 = chance.as_floats(draws["median_abs_diff"])
    assert eta2.mean() == pytest.approx(3 / 39, abs=4 * eta2.std() / np.sqrt(len(eta2)))
    rho = chance.as_floats(draws["median_spearman"])  # 4 levels: ρ under the null is centred on 0
    assert abs(rho.mean()) < 4 * rho.std() / np.sqrt(len(rho))


def test_aligned_behaviour_is_beyond_chance_and_reliable():
    ages = [AGES[i % 4] for i in range(60)]
    sent = [2 * AGES.index(a) + (i % 2) for i, a in enumerate(ages)]  # sends rise with age
    frame = transfers(sent, ages)
    beliefs = belief(("65+", "45-64", "30-44", "18-29"), 0.9)
    doc = {"median_spearman": 1.0, "median_abs_diff": 0.0}
    out = tchance.strategy_chance(beliefs, frame, doc, 10, n_sims=200)
    for kind in chance.NULL_KINDS:
        # a 4-level ranking matches by chance 1 time in 24 (more with ties): ρ = 1 cannot get p below ~0.04
        assert out["median_spearman"][kind]["p"] == pytest.approx(1 / 24, abs=0.03)
        assert out["median_abs_diff"][kind]["observed"] == 0.0 and out["median_abs_diff"][kind]["percentile"] == 1.0
    assert tchance.split_half(beliefs, frame)["split_half"] == pytest.approx(1.0)
    small = tchance.split_half(beliefs, frame.head(3))
    assert small["split_half"] is None and "needs ≥ 4 personas" in small["reason"]


def test_forecast_null_worked_example():
    # two personas, identical forecasts: swapping them changes nothing, so the permutation null is the observed MAE
    # (|5 − 4| and |5 − 8| in both rounds: 2.0)
    rounds = pd.DataFrame([{"persona_id": p, "archetype": 1, "round": r, "forecast": 5, "sent": s, "valid": 1}
                           for p, s in (("a", 4), ("b", 8)) for r in (1, 2)])
    draws = tchance.individual_draws(rounds, 10, "permutation", 20, 0)
    assert set(draws["mae/1"]) == {2.0}
    uniform = chance.as_floats(tchance.individual_draws(rounds, 10, "uniform", 4000, 0)["mae/1"])
    # E|U − s| for U uniform on 0..10: s = 4 → 31/11, s = 8 → 39/11; mean over the four pairs = 35/11
    assert uniform.mean() == pytest.approx(35 / 11, abs=4 * uniform.std() / np.sqrt(len(uniform)))


def test_no_valid_transfer_means_no_band_and_no_error():
    frame = transfers([0, 0], ["18-29", "30-44"]).assign(valid=0, sent=None)
    out = tchance.strategy_chance(belief(AGES, 0.1), frame, {"median_spearman": None, "median_abs_diff": None}, 10, n_sims=5)
    assert out["median_spearman"]["permutation"]["n_sims"] == 0
    assert tchance.split_half(belief(AGES, 0.1), frame)["split_half"] is None
