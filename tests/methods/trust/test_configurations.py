"""Trust configurations: each level is a family; fields of the other level never split a level; banks, endowments and game lengths never mix."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.methods.trust.families import INDIVIDUAL, POPULATION
from analysis.methods.trust.tables import BELIEFS, ROUNDS, TRANSFERS
from analysis.runs import comparable
from analysis.runs.store import Store
from tests.configurations import metrics

def test_the_levels_are_families() -> None:
    runs = pd.DataFrame([
        {"run_id": "p", "method": "trust", "model": "m", "plan": json.dumps({"level": "population", "endowment": 10}), "created_at": 1},
        {"run_id": "i", "method": "trust", "model": "m", "plan": json.dumps({"level": "individual", "endowment": 10}), "created_at": 2},
    ])
    assert [c.run_ids for c in comparable.configurations(runs, POPULATION)["m"]] == [("p",)]
    assert [c.run_ids for c in comparable.configurations(runs, INDIVIDUAL)["m"]] == [("i",)]


def test_trust_fields_of_the_other_level_do_not_split_a_level() -> None:
    """forecast is read only at the individual level and answer only at the population level (``analysis.methods.trust``)."""
    base = {"level": "population", "endowment": 10, "forecast": "per_round", "answer": "reasoned"}
    pop = [comparable.signature_id(comparable.signature(POPULATION, base | f))
           for f in ({}, {"forecast": "upfront"}, {"answer": "numeric"})]
    assert pop[0] == pop[1] != pop[2]
    ind = [comparable.signature_id(comparable.signature(INDIVIDUAL, base | {"level": "individual"} | f))
           for f in ({}, {"answer": "numeric"}, {"forecast": "upfront"})]
    assert ind[0] == ind[1] != ind[2]


def test_trust_runs_of_other_banks_endowments_and_lengths_are_not_mixed(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Population: beliefs of one bank against transfers of another were paired; individual: a $100 run overwrote a
    $10 run and a 3-round run overwrote rounds 1-3 of a 6-round game."""
    path = tmp_path / "t.db"
    with Store(path) as store:
        def run(run_id: str, **plan: object) -> None:
            store.create_run(run_id, "trust", "m", {}, {"method": "trust", "endowment": 10, **plan})

        run("beliefs", level="population", bank={"source": "genagents"})
        store.upsert(BELIEFS.name, [{"run_id": "beliefs", "model": "m", "endowment": 10, "strategy": "Ctx+Tr",
                                     "attribute": "sex", "levels": ["Female", "Male"], "ranking": ["Male", "Female"],
                                     "effect_size": 0.2, "valid": 1}])
        run("play", level="population", bank={"source": "generated"})
        store.upsert(TRANSFERS.name, [{"run_id": "play", "model": "m", "endowment": 10, "conditioning": "none",
                                       "persona_id": f"p{i}", "attributes": {"sex": ("Female", "Male")[i % 2]}, "sent": i,
                                       "valid": 1} for i in range(6)])
        run("six", level="individual", rounds=6)
        run("three", level="individual", rounds=3)
        run("hundred", level="individual", rounds=6, endowment=100)
        for run_id, n, sent, endowment in (("six", 6, 1, 10), ("three", 3, 2, 10), ("hundred", 6, 50, 100)):
            store.upsert(ROUNDS.name, [{"run_id": run_id, "model": "m", "endowment": endowment, "persona_id": "a",
                                        "archetype": 3, "round": r, "forecast": 0, "sent": sent, "valid": 1}
                                       for r in range(1, n + 1)])
    doc = metrics(path, "trust", capsys)["models"]["m"]
    assert doc["population"] == {}  # the latest bank has transfers but no beliefs: nothing to pair
    assert doc["behaviour"]["n_personas"] == 6
    pop = doc["configurations"]["population"]
    assert [c["runs"] for c in pop] == [["play"], ["beliefs"]] and "bank" in pop[1]["differs"]
    arch = doc["individual"]["archetypes"]["3"]
    assert arch["mae_by_round"] == [50.0] * 6  # the $100 game alone, all six rounds
    ind = doc["configurations"]["individual"]
    assert [c["runs"] for c in ind] == [["hundred"], ["three"], ["six"]]
    assert ind[1]["differs"] == {"rounds": 3, "endowment": 10} and ind[2]["differs"] == {"endowment": 10}
    six = metrics(path, "trust", capsys, "--config", ind[2]["id"])["models"]["m"]["individual"]["archetypes"]["3"]
    assert six["mae_by_round"] == [1.0] * 6
