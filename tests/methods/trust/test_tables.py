"""The paper's tables from ``metrics trust --json`` on a small hand-built store, every expected value worked by hand.

Eight personas on three test-split traits (Table 5): US citizenship (2 levels), conscientiousness (3), work status (4).

    persona  citizenship          consc.    work           sent   (conditioned 'weak' run: 10 − sent)
    p1       A U.S. citizen       Low       In school       2
    p2       A U.S. citizen       Low       Keeping house   4
    p3       A U.S. citizen       Moderate  Retired         6
    p4       A U.S. citizen       High      Other           8
    p5       Not a U.S. citizen   Moderate  In school       0
    p6       Not a U.S. citizen   High      Keeping house  10
    p7       Not a U.S. citizen   High      Retired         6
    p8       Not a U.S. citizen   Low       Other           8

Mean 44/8 = 5.5, SS_total = 78. Citizenship: A 5, Not 6: SS_b = 8 · 0.25 = 2, η² = 1/39. Conscientiousness: Low 14/3,
Moderate 3, High 8: SS_b = 100/3, η² = 50/117. Work: In school 1, Keeping house 7, Retired 6, Other 8: SS_b = 58,
η² = 29/39. (η² is unchanged by x -> 10 − x; the rankings reverse.) The document rounds to 6 decimals: tolerance 1e-6.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.runs.store import Store
from analysis.methods.trust.cli import metrics_json
from analysis.methods.trust.tables import BELIEFS, PRIORS, ROUNDS, TRANSFERS

A, NOT = "A U.S. citizen", "Not a U.S. citizen"
PEOPLE = [(A, "Low", "In school", 2), (A, "Low", "Keeping house", 4), (A, "Moderate", "Retired", 6), (A, "High", "Other", 8),
          (NOT, "Moderate", "In school", 0), (NOT, "High", "Keeping house", 10), (NOT, "High", "Retired", 6),
          (NOT, "Low", "Other", 8)]
LEVELS = {"us_citizenship": [A, NOT], "conscientiousness": ["Low", "Moderate", "High"],
          "work_status": ["In school", "Keeping house", "Retired", "Other"]}
# Ctx+Tr beliefs: ranking (most -> least trusting) and stated η²
BELIEF = {"us_citizenship": ([A, NOT], 0.05), "conscientiousness": (["High", "Moderate", "Low"], 0.3),
          "work_status": (["Retired", "Other", "Keeping house", "In school"], 0.1)}
ETA2 = {"us_citizenship": 1 / 39, "conscientiousness": 50 / 117, "work_status": 29 / 39}


def _transfers(run_id: str, conditioning: str, endowment: int = 10, mirror: bool = False) -> list[dict]:
    """The table's sends, scaled to the endowment (× E/10), or mirrored (E − scaled send)."""
    scale = endowment // 10
    return [{"run_id": run_id, "model": "m", "endowment": endowment, "conditioning": conditioning, "persona_id": f"p{i}",
             "attributes": {"us_citizenship": c, "conscientiousness": b5, "work_status": w},
             "sent": (endowment - scale * s) if mirror else scale * s, "valid": 1} for i, (c, b5, w, s) in enumerate(PEOPLE, 1)]


def _beliefs(run_id: str, endowment: int = 10) -> list[dict]:
    return [{"run_id": run_id, "model": "m", "endowment": endowment, "strategy": "Ctx+Tr", "attribute": a,
             "levels": LEVELS[a], "ranking": ranking, "effect_size": eta2, "valid": 1}
            for a, (ranking, eta2) in BELIEF.items()]


def _plan(**extra) -> dict:
    return {"method": "trust", "level": "population", "endowment": 10, "attribute_set": "paper", **extra}


def _ablation(store: Store) -> None:
    """Table 9's other endowments, made before the $10 run (the headline is the latest configuration): $40 of $44 =
    sends × 4 (same rankings, same η²); $100: 100 − 10 × send (rankings reversed, same η²)."""
    store.create_run("r44", "trust", "m", {}, _plan(endowment=44))
    store.create_run("r100", "trust", "m", {}, _plan(endowment=100))
    store.upsert(BELIEFS.name, _beliefs("r44", 44) + _beliefs("r100", 100))
    store.upsert(TRANSFERS.name, _transfers("r44", "none", 44) + _transfers("r100", "none", 100, mirror=True))


def build_store(path: Path) -> Path:
    """The store of this module: the $44 and $100 runs, then the $10 run and its 'weak' conditioned run."""
    with Store(path) as store:
        _ablation(store)
        store.create_run("r1", "trust", "m", {}, _plan())
        store.create_run("rw", "trust", "m", {}, _plan(conditioning="weak"))
        store.upsert(BELIEFS.name, _beliefs("r1"))
        store.upsert(TRANSFERS.name, _transfers("r1", "none") + _transfers("rw", "weak", mirror=True))
        store.upsert(PRIORS.name, [
            {"run_id": "rw", "model": "m", "endowment": 10, "conditioning": "weak", "strategy": "Ctx+Tr",
             "attribute": "work_status", "original": BELIEF["work_status"][0],
             "imposed": ["Other", "Retired", "Keeping house", "In school"], "target": 0.8, "achieved": 0.8},
            {"run_id": "rw", "model": "m", "endowment": 10, "conditioning": "weak", "strategy": "Ctx+Tr",
             "attribute": "conscientiousness", "original": BELIEF["conscientiousness"][0],
             "imposed": BELIEF["conscientiousness"][0], "target": 0.8, "achieved": 1.0},  # 3 levels: 0.8 unreachable
            {"run_id": "rw", "model": "m", "endowment": 10, "conditioning": "weak", "strategy": "Ctx+Tr",
             "attribute": "us_citizenship", "original": BELIEF["us_citizenship"][0],
             "imposed": BELIEF["us_citizenship"][0], "target": 0.8, "achieved": 1.0},  # 2 levels: only ±1
        ])
        store.create_run("ri", "trust", "m", {}, {"method": "trust", "level": "individual", "endowment": 10,
                                                  "forecast": "per_round"})
        store.upsert(ROUNDS.name, [
            {"run_id": "ri", "model": "m", "endowment": 10, "persona_id": "p1", "archetype": k, "round": t, "forecast": f,
             "forecast_valid": int(f is not None), "forecast_explanation": e, "sent": sent, "valid": int(sent is not None),
             "received": None if sent is None else 3 * sent, "returned": None if sent is None else min(k, 3 * sent),
             "forecast_reason": None if f is not None else "no JSON object in the reply",
             "reason": None if sent is not None else "not played: round 2 had no valid amount"}
            for k, t, f, e, sent in ((1, 1, 0, "just started", 0), (1, 2, 3, "returned $1", 2), (1, 3, None, None, None),
                                     (5, 1, 0, "cautious", 4), (5, 2, 3, "returned $5", 3), (5, 3, 0, "last round", 0))])
        for run_id in ("r44", "r100", "r1", "rw", "ri"):
            store.set_run_status(run_id, "completed")
    return path


@pytest.fixture(scope="module")
def doc(tmp_path_factory) -> dict:
    path = build_store(Path(tmp_path_factory.mktemp("tables")) / "s.db")
    with Store(path, read_only=True) as store:
        return metrics_json(store, n_boot=0)["models"]["m"]


def test_table3_spearman_eta2_difference_and_mae(doc) -> None:
    """Table 3 (Ctx+Tr): ρ citizenship −1 (belief A > Not, play Not > A); conscientiousness Σd² = 2 of n = 3:
    ρ = 1 − 12/24 = 0.5; work Σd² = 6 of n = 4: ρ = 1 − 36/60 = 0.4. |Δη²| = |0.05 − 1/39|, |0.3 − 50/117|,
    |0.1 − 29/39|; medians 0.4 and |0.3 − 50/117|; MAE of η² = (134/117 − 0.35)/3."""
    pop = doc["population"]["Ctx+Tr"]
    rho = {a: d["spearman"] for a, d in pop["attributes"].items()}
    assert rho == pytest.approx({"us_citizenship": -1.0, "conscientiousness": 0.5, "work_status": 0.4}, abs=1e-6)
    for a, (_, stated) in BELIEF.items():
        assert pop["attributes"][a]["eta2_behaviour"] == pytest.approx(ETA2[a], abs=1e-6)
        assert pop["attributes"][a]["abs_diff"] == pytest.approx(abs(stated - ETA2[a]), abs=1e-6)
    assert pop["attributes"]["work_status"]["behaviour_ranking"] == ["Other", "Keeping house", "Retired", "In school"]
    assert pop["median_spearman"] == pytest.approx(0.4, abs=1e-6)
    assert pop["median_abs_diff"] == pytest.approx(50 / 117 - 0.3, abs=1e-6)
    assert pop["mae_eta2"] == pytest.approx((134 / 117 - 0.35) / 3, abs=1e-6)


def test_table4_conditioning_with_reached_targets_and_mae(doc) -> None:
    """Table 4 ('weak', behaviour mirrored 10 − sent): work (target 0.8 reached): ρ imposed Σd² = 18 -> −0.8, original
    Σd² = 14 -> −0.4; conscientiousness and citizenship kept their original ranking (0.8 unreachable): ρ −0.5 and +1 for
    both. Medians over all three: imposed −0.5, original −0.4; over the one reached: −0.8 / −0.4; MAE of η² against the
    original beliefs' η² equals Table 3's (η² does not change under x -> 10 − x)."""
    weak = doc["conditioning"]["weak"]
    att = weak["attributes"]
    assert {a: (d["spearman_imposed"], d["spearman_original"]) for a, d in att.items()} == {
        "work_status": (pytest.approx(-0.8), pytest.approx(-0.4)), "conscientiousness": (pytest.approx(-0.5), pytest.approx(-0.5)),
        "us_citizenship": (pytest.approx(1.0), pytest.approx(1.0))}
    assert {a: (d["prior_spearman"], d["target_reached"], d["n_levels"]) for a, d in att.items()} == {
        "work_status": (0.8, True, 4), "conscientiousness": (1.0, False, 3), "us_citizenship": (1.0, False, 2)}
    assert weak["median_spearman_imposed"] == pytest.approx(-0.5) and weak["median_spearman_original"] == pytest.approx(-0.4)
    assert (weak["n_reached"], weak["n_with_target"], weak["target_tolerance"]) == (1, 3, 0.05)
    assert weak["median_spearman_imposed_reached"] == pytest.approx(-0.8)
    assert weak["median_spearman_original_reached"] == pytest.approx(-0.4)
    assert weak["mae_eta2"] == pytest.approx((134 / 117 - 0.35) / 3, abs=1e-6)
    none = doc["conditioning"]["none"]  # the unconditioned play against the model's own beliefs: Table 4's first row
    assert none["median_spearman_imposed"] == pytest.approx(0.4) and "n_reached" not in none
    assert none["mae_eta2"] == pytest.approx((134 / 117 - 0.35) / 3, abs=1e-6)


def test_table9_endowment_ablation(doc) -> None:
    """Table 9: mean ρ over the three attributes at $10 and $44: (−1 + 0.5 + 0.4)/3 = −1/30, medians 0.4; at $100 the
    rankings reverse: (1 − 0.5 − 0.4)/3 = 1/30, median −0.4; η² and the MAE do not change; per attribute in the JSON."""
    assert doc["endowment"] == 10 and set(doc["endowments"]) == {"10", "44", "100"}
    table9 = {e: by["Ctx+Tr"] for e, by in doc["endowments"].items()}
    for e, mean, median in (("10", -1 / 30, 0.4), ("44", -1 / 30, 0.4), ("100", 1 / 30, -0.4)):
        assert table9[e]["mean_spearman"] == pytest.approx(mean, abs=1e-6)
        assert table9[e]["median_spearman"] == pytest.approx(median, abs=1e-6)
        assert table9[e]["mae_eta2"] == pytest.approx((134 / 117 - 0.35) / 3, abs=1e-6)
        assert table9[e]["n_attributes_defined"] == 3 and table9[e]["n_personas"] == 8
    assert table9["100"]["attributes"]["work_status"]["spearman"] == pytest.approx(-0.4, abs=1e-6)
    assert table9["44"]["attributes"]["us_citizenship"] == {"spearman": -1.0, "abs_diff": pytest.approx(0.05 - 1 / 39, abs=1e-6)}


def test_tables_6_to_8_forecasts_next_to_play(doc) -> None:
    """Tables 6–8 (one per archetype): round, forecast, its explanation, the send and T_k's return min(k, 3s).
    T_1: |0−0|, |3−2| (round 3 not played): MAE 1/2; T_5: |0−4|, |3−3|, |0−0|: MAE 4/3, by round [4, 0, 0]."""
    traces = doc["individual"]["trajectories"]
    assert [(r["round"], r["forecast"], r["explanation"], r["sent"], r["returned"]) for r in traces["1"]["p1"]] == [
        (1, 0, "just started", 0, 0), (2, 3, "returned $1", 2, 1), (3, None, None, None, None)]
    assert traces["1"]["p1"][2]["forecast_reason"] == "no JSON object in the reply"
    assert traces["1"]["p1"][2]["reason"] == "not played: round 2 had no valid amount"
    assert [(r["forecast"], r["sent"], r["returned"]) for r in traces["5"]["p1"]] == [(0, 4, 5), (3, 3, 5), (0, 0, 0)]
    arch = doc["individual"]["archetypes"]
    assert arch["1"]["mae"] == pytest.approx(0.5) and arch["1"]["mae_by_round"] == [0.0, 1.0]  # by round up to the last pair
    assert arch["5"]["mae"] == pytest.approx(4 / 3, abs=1e-6) and arch["5"]["mae_by_round"] == [4.0, 0.0, 0.0]
    assert doc["invalid"]["forecasts"] == 1


def test_upfront_explanations_fill_the_trajectory() -> None:
    """With --forecast upfront the explanation of round t is the t-th of the forecast row's list."""
    import pandas as pd

    from analysis.methods.trust.forecasting import trajectories

    rounds = pd.DataFrame([{"persona_id": "p", "archetype": 3, "round": t, "forecast": 2, "sent": 1, "returned": 3,
                            "valid": 1} for t in (1, 2)])
    forecasts = pd.DataFrame([{"persona_id": "p", "archetype": 3, "valid": 1, "explanations": '["first", "second"]'}])
    trace = trajectories(rounds, forecasts)["3"]["p"]
    assert [r["explanation"] for r in trace] == ["first", "second"]
