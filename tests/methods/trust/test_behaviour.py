"""Behaviour-only summaries (analysis.methods.trust.behaviour), checked against values worked by hand."""

import json

import pandas as pd
import pytest

from analysis.methods.trust.behaviour import (dollar_bins, invalid_reasons, play_by_round, population_behaviour,
                                              reason_kind)
from analysis.methods.trust.imported import amount_summary


def _transfer(pid: str, sex: str, age: str, sent: int | None, valid: int = 1, order: float = 1.0) -> dict:
    return {"persona_id": pid, "attributes": json.dumps({"sex": sex, "age": age}), "sent": sent, "valid": valid,
            "_order": order, "reason": None if valid else "no amount found"}


def test_population_behaviour_by_hand():
    transfers = pd.DataFrame([
        _transfer("a", "Male", "18-29", 2), _transfer("b", "Male", "65+", 4),
        _transfer("c", "Female", "18-29", 6), _transfer("d", "Female", "65+", 8),
        _transfer("e", "Female", "65+", None, valid=0),          # invalid: not counted
        _transfer("a", "Male", "18-29", 9, order=0.5),           # an earlier run of persona a: superseded
    ])
    doc = population_behaviour(transfers)
    assert doc["n_personas"] == 4
    assert doc["mean_sent"] == pytest.approx(5.0, abs=1e-9)
    assert doc["sent_counts"] == {"[2, 3)": 1, "[4, 5)": 1, "[6, 7)": 1, "[8, 9)": 1}
    sex = doc["attributes"]["sex"]
    # levels in the attribute's own order (Female, Male); means 7 and 3
    assert list(sex["means"]) == ["Female", "Male"]
    assert sex["means"] == {"Female": 7.0, "Male": 3.0} and sex["n"] == {"Female": 2, "Male": 2}
    # grand mean 5: SS_total = 9+1+1+9 = 20, SS_between = 2·4 + 2·4 = 16 → η² = 0.8
    assert sex["eta2"] == pytest.approx(0.8, abs=1e-9)
    # age: 18-29 → (2, 6) mean 4, 65+ → (4, 8) mean 6; SS_between = 2·1 + 2·1 = 4 → η² = 0.2
    assert doc["attributes"]["age"]["eta2"] == pytest.approx(0.2, abs=1e-9)


def test_dollar_bins_are_half_open_and_say_so():
    """$7.00 and $7.50 fall in [7, 8), $8.00 in [8, 9); the endowment's own bin holds it alone. The mean keeps the
    fraction; the bins' labels say what they hold, wherever amounts are binned."""
    assert dollar_bins([7.5, 7.0, 8.0]) == {"[7, 8)": 2, "[8, 9)": 1}
    every = dollar_bins([7.5, 7.0, 8.0, 10.0], 10, every=True)
    assert list(every) == [f"[{d}, {d + 1})" for d in range(10)] + ["10"]
    assert (every["[7, 8)"], every["[8, 9)"], every["10"], sum(every.values())) == (2, 1, 1, 4)
    summary = amount_summary([7.5, 7.0, 8.0], 3, 10)
    assert summary["distribution"] == every | {"10": 0} and summary["n_fractional"] == 1
    assert summary["mean"]["value"] == pytest.approx(22.5 / 3)
    played = pd.DataFrame([_transfer(p, "Male", "65+", s) for p, s in (("a", 7.5), ("b", 7.0), ("c", 8.0))])
    assert population_behaviour(played.assign(endowment=10))["sent_counts"] == summary["distribution"]


def test_population_behaviour_constant_and_empty():
    same = pd.DataFrame([_transfer("a", "Male", "18-29", 10), _transfer("b", "Female", "65+", 10)])
    assert population_behaviour(same)["attributes"]["sex"]["eta2"] is None   # no variance: no effect to measure
    empty = population_behaviour(same.iloc[0:0])
    assert empty == {"n_personas": 0, "mean_sent": None, "sent_counts": {}, "attributes": {}}


def test_play_by_round():
    rows = []
    for pid, sends in (("a", [4, 6, 8]), ("b", [2, None, None])):
        for h, s in enumerate(sends, start=1):
            rows.append({"persona_id": pid, "archetype": 2, "round": h, "sent": s, "valid": int(s is not None),
                         "_order": 1.0})
    rows.append({"persona_id": "a", "archetype": 2, "round": 1, "sent": 10, "valid": 1, "_order": 0.0})  # superseded
    doc = play_by_round(pd.DataFrame(rows))
    assert doc == {"2": {"mean_sent": [3.0, 6.0, 8.0], "n": [2, 1, 1], "n_personas": 2}}
    assert play_by_round(pd.DataFrame(rows).iloc[0:0]) == {}


def test_reason_kind_and_counts():
    assert reason_kind("'$16' is outside [0, 10]") == "'…' is outside [0, 10]"
    assert reason_kind("schema: ranking: Field required (+1 more)") == "schema: ranking: Field required"
    df = pd.DataFrame({"valid": [0, 0, 0, 1], "reason": ["'$16' is outside [0, 10]", "'$52' is outside [0, 10]",
                                                         None, None]})
    assert invalid_reasons({"transfers": df, "beliefs": df[df["valid"] == 1]}) == {
        "transfers": {"'…' is outside [0, 10]": 2, "no reason recorded": 1}}


def test_metrics_document_prefers_unconditioned_games(tmp_path):
    """``behaviour`` in the metrics document: the unconditioned games when there are any, else the conditioned run's."""
    from analysis.llm.specs import parse_model_spec
    from analysis.runs.store import Store
    from analysis.methods.trust.cli import metrics_json
    from analysis.methods.trust.tables import PRIORS, TRANSFERS

    with Store(tmp_path / "s.db") as store:
        for run_id in ("weak", "plain"):
            store.create_run(run_id, "trust", "m", parse_model_spec("embedded").public_dict(), {"method": "trust"})
        weak = [{"run_id": "weak", "model": "m", "endowment": 10, "conditioning": "weak", "persona_id": f"p{i}",
                 "attributes": json.dumps({"sex": "Male"}), "sent": 1, "valid": 1} for i in range(3)]
        store.upsert(TRANSFERS.name, weak)
        store.upsert(PRIORS.name, [{"run_id": "weak", "model": "m", "endowment": 10, "conditioning": "weak",
                                    "strategy": "Ctx+Tr", "attribute": "sex", "original": ["Female", "Male"],
                                    "imposed": ["Male", "Female"]}])
        doc = metrics_json(store, n_boot=0)["models"]["m"]["behaviour"]
        assert (doc["conditioning"], doc["priors_in_prompt"], doc["n_personas"], doc["mean_sent"]) == ("weak", 1, 3, 1.0)
        store.upsert(TRANSFERS.name, [r | {"run_id": "plain", "conditioning": "none", "sent": 7} for r in weak[:2]])
        doc = metrics_json(store, n_boot=0)["models"]["m"]["behaviour"]
        assert (doc["conditioning"], doc["priors_in_prompt"], doc["n_personas"], doc["mean_sent"]) == ("none", 0, 2, 7.0)
