"""Which runs may be pooled: the comparability signature (``analysis.runs.comparable``) and, per method, a store with
two incompatible runs whose ``metrics --json`` document lists both configurations and never mixes them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.__main__ import main
from analysis.methods.mbti import DIMENSIONS
from analysis.methods.mbti.session import ANSWERS as MBTI_ANSWERS
from analysis.methods.personagym import TASKS
from analysis.methods.personagym.tables import ANSWERS as PG_ANSWERS
from analysis.methods.personagym.tables import GRADES
from analysis.methods import family
from analysis.runs import comparable
from analysis.runs.store import Store
from analysis.methods.trust.tables import BELIEFS, ROUNDS, TRANSFERS
from analysis.methods.values import VALUES
from analysis.methods.values.instruments import load_instrument
from analysis.methods.values.questionnaire import ANSWERS as VALUES_ANSWERS


# -- the rule --------------------------------------------------------------------------------------
def test_signature_keeps_what_is_measured_and_drops_execution_and_coverage() -> None:
    plan = {"method": "values", "answer_mode": "text", "params": {"temperature": 0.7}, "prefix_reuse": True,
            "contexts": [{"label": "no_conv"}], "personas": [{"id": i, "description": "x" * 40} for i in range(5)]}
    sig = comparable.signature(family("values"), plan)
    assert set(sig) == {"method", "answer_mode", "params", "personas"}  # contexts: coverage; prefix_reuse: execution
    assert sig["params"] == {"temperature": 0.7}  # short values verbatim
    assert sig["personas"].startswith("sha256:") and sig["personas"].endswith(", 5 entries")  # long ones as a digest
    same = comparable.signature(family("values"), plan | {"prefix_reuse": False, "contexts": [{"label": "chess"}]})
    assert comparable.signature_id(same) == comparable.signature_id(sig)
    other = comparable.signature(family("values"), plan | {"params": {"temperature": 0.0}})
    assert comparable.signature_id(other) != comparable.signature_id(sig)
    new_field = comparable.signature(family("values"), plan | {"persona_prompt": "rich"})  # unknown fields split: the safe default
    assert comparable.signature_id(new_field) != comparable.signature_id(sig)


def test_imported_runs_pool_by_source_and_trust_levels_are_families() -> None:
    a = {"method": "mbti", "imported": True, "source": "chatgpt-mbti", "path": "/x/a.csv", "subjects": ["Men"]}
    b = a | {"path": "/x/b.csv", "subjects": ["Doctors"]}
    assert comparable.signature(family("mbti"), a) == comparable.signature(family("mbti"), b) == {
        "method": "mbti", "imported": True, "source": "chatgpt-mbti"}
    runs = pd.DataFrame([
        {"run_id": "p", "method": "trust", "model": "m", "plan": json.dumps({"level": "population", "endowment": 10}), "created_at": 1},
        {"run_id": "i", "method": "trust", "model": "m", "plan": json.dumps({"level": "individual", "endowment": 10}), "created_at": 2},
    ])
    assert [c.run_ids for c in comparable.configurations(runs, family("trust", "population"))["m"]] == [("p",)]
    assert [c.run_ids for c in comparable.configurations(runs, family("trust", "individual"))["m"]] == [("i",)]


def test_trust_fields_of_the_other_level_do_not_split_a_level() -> None:
    """forecast is read only at the individual level and answer only at the population level (``analysis.methods.trust``)."""
    base = {"level": "population", "endowment": 10, "forecast": "per_round", "answer": "reasoned"}
    pop = [comparable.signature_id(comparable.signature(family("trust", "population"), base | f))
           for f in ({}, {"forecast": "upfront"}, {"answer": "numeric"})]
    assert pop[0] == pop[1] != pop[2]
    ind = [comparable.signature_id(comparable.signature(family("trust", "individual"), base | {"level": "individual"} | f))
           for f in ({}, {"answer": "numeric"}, {"forecast": "upfront"})]
    assert ind[0] == ind[1] != ind[2]


def test_latest_rows_keeps_whole_runs_per_cell_and_choose_prefers_latest() -> None:
    frame = pd.DataFrame({"run_id": ["old", "old", "new", "other"], "context": ["a", "a", "a", "b"], "x": [1, 2, 3, 4]})
    kept = comparable.latest_rows(frame, ["context"], {"old": 1.0, "new": 2.0, "other": 0.5})
    assert kept["x"].tolist() == [3, 4]
    runs = pd.DataFrame([{"run_id": r, "method": "mbti", "model": "m", "plan": json.dumps({"seed": s}), "created_at": t}
                         for r, s, t in (("r1", 0, 1.0), ("r2", 1, 2.0), ("r3", 0, 3.0))])
    configs = comparable.configurations(runs, family("mbti"))["m"]
    assert [c.run_ids for c in configs] == [("r1", "r3"), ("r2",)]  # newest first; r1 and r3 share a signature
    assert comparable.choose(configs).run_ids == ("r1", "r3")
    assert comparable.choose(configs, configs[1].id[:6]).run_ids == ("r2",)
    assert configs[1].differs_from(configs[0]) == {"seed": 1}
    with pytest.raises(Exception, match="--config zzz"):
        comparable.check_chosen(configs, "zzz", "mbti")


# -- per method: two incompatible runs, one document that lists both and mixes nothing ------------------
def _metrics(store: Path, method: str, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    assert main(["metrics", method, "--store", str(store), "--json", "--n-boot", "0", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _check_two_configurations(entry: dict, latest_runs: list[str], older_runs: list[str], differs: str) -> dict:
    configs = entry["configurations"] if isinstance(entry["configurations"], list) else entry["configurations"]
    assert [c["runs"] for c in configs] == [latest_runs, older_runs]
    assert [c["used"] for c in configs] == [True, False]
    assert entry["configuration"] == configs[0]["id"] and differs in configs[1]["differs"]
    return configs[1]


def _values_rows(run_id: str, context: str, n: int, seed: int) -> list[dict]:
    inst = load_instrument("pvq")
    rng = np.random.default_rng(seed)
    return [{"run_id": run_id, "model": "m", "persona_id": p, "context": context, "instrument": inst.name, "item_id": item.id,
             "value": item.value, "stage": "item", "sample": 0, "score": int(rng.integers(1, 7)), "valid": 1}
            for p in range(n) for item in inst.items]


def test_values_runs_of_two_populations_are_not_paired(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Population A answered no_conv, population B (same persona ids, other people) topics_a: before, their contexts
    were paired by persona_id into a rank-order stability; now each population is its own configuration."""
    path = tmp_path / "v.db"
    with Store(path) as store:
        for run_id, people, context, seed in (("va", "A", "no_conv", 1), ("vb", "B", "topics_a", 2)):
            plan = {"method": "values", "personas": [{"id": i, "description": f"{people} person {i}"} for i in range(8)],
                    "contexts": [{"label": context}]}
            store.create_run(run_id, "values", "m", {"name": "m"}, plan)
            store.upsert(VALUES_ANSWERS.name, _values_rows(run_id, context, 8, seed))
    doc = _metrics(path, "values", capsys)["models"]["m"]
    assert list(doc["contexts"]) == ["topics_a"] and doc["rank_order"] is None and doc["n_personas"] == 8
    older = _check_two_configurations(doc, ["vb"], ["va"], "personas")
    chosen = _metrics(path, "values", capsys, "--config", older["id"])["models"]["m"]
    assert list(chosen["contexts"]) == ["no_conv"] and chosen["configuration"] == older["id"]


def _mbti_rows(run_id: str, option: int, testings: int) -> list[dict]:
    return [{"run_id": run_id, "model": "m", "subject": "Men", "order_mode": "permuted", "testing": t, "seq": i,
             "statement_id": str(i + 1), "dimension": d, "direction": 1, "option_index": option, "valid": 1, "mode": "text",
             "source": "run"} for t in range(testings) for i, d in enumerate(DIMENSIONS)]


def test_mbti_testings_of_two_statement_sets_are_not_pooled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before, every testing of a model from every run counted: 2 + 3 testings with two statement sets."""
    path = tmp_path / "m.db"
    with Store(path) as store:
        for run_id, statements, option, n in (("m1", "set-a", 0, 2), ("m2", "set-b", 6, 3)):
            store.create_run(run_id, "mbti", "m", {}, {"method": "mbti", "statements": statements, "testings": n})
            store.upsert(MBTI_ANSWERS.name, _mbti_rows(run_id, option, n))
    doc = _metrics(path, "mbti", capsys)["models"]["m"]
    men = doc["subjects"]["Men"]
    assert men["n_testings"] == 3 and men["scores"] == {d: 0.0 for d in DIMENSIONS}  # only set-b (all Wrong)
    older = _check_two_configurations(doc, ["m2"], ["m1"], "statements")
    chosen = _metrics(path, "mbti", capsys, "--config", older["id"])["models"]["m"]["subjects"]["Men"]
    assert chosen["n_testings"] == 2 and chosen["scores"] == {d: 100.0 for d in DIMENSIONS}


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
    doc = _metrics(path, "trust", capsys)["models"]["m"]
    assert doc["population"] == {}  # the latest bank has transfers but no beliefs: nothing to pair
    assert doc["behaviour"]["n_personas"] == 6
    pop = doc["configurations"]["population"]
    assert [c["runs"] for c in pop] == [["play"], ["beliefs"]] and "bank" in pop[1]["differs"]
    arch = doc["individual"]["archetypes"]["3"]
    assert arch["mae_by_round"] == [50.0] * 6  # the $100 game alone, all six rounds
    ind = doc["configurations"]["individual"]
    assert [c["runs"] for c in ind] == [["hundred"], ["three"], ["six"]]
    assert ind[1]["differs"] == {"rounds": 3, "endowment": 10} and ind[2]["differs"] == {"endowment": 10}
    six = _metrics(path, "trust", capsys, "--config", ind[2]["id"])["models"]["m"]["individual"]["archetypes"]["3"]
    assert six["mae_by_round"] == [1.0] * 6


def test_personagym_runs_graded_by_other_evaluators_are_not_pooled(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.db"
    with Store(path) as store:
        for run_id, evaluator, score in (("strict", "judge-a", 1.0), ("lenient", "judge-b", 5.0)):
            store.create_run(run_id, "personagym", "m", {}, {"method": "personagym", "evaluators": [evaluator],
                                                              "personas": [{"id": "pa"}]})
            key = {"run_id": run_id, "model": "m", "persona_id": "pa", "persona": "Ada", "q_index": 0}
            store.upsert(PG_ANSWERS.name, [key | {"task": t, "status": "ok", "refusal": 0, "answer": "x"} for t in TASKS])
            store.upsert(GRADES.name, [key | {"task": t, "evaluator": evaluator, "score": score, "status": "ok"} for t in TASKS])
    doc = _metrics(path, "personagym", capsys)["models"]["m"]
    assert doc["persona_score"] == 5.0 and doc["evaluators"] == ["judge-b"]
    older = _check_two_configurations(doc, ["lenient"], ["strict"], "evaluators")
    assert _metrics(path, "personagym", capsys, "--config", older["id"])["models"]["m"]["persona_score"] == 1.0


def test_unknown_configuration_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.db"
    with Store(path) as store:
        store.create_run("m1", "mbti", "m", {}, {"method": "mbti"})
        store.upsert(MBTI_ANSWERS.name, _mbti_rows("m1", 0, 1))
    assert main(["metrics", "mbti", "--store", str(path), "--json", "--config", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--config nope" in err


def test_model_spec_params_split_configurations() -> None:
    """The params a model spec adds to every request are decoding: a model named alike, decoded otherwise, is another
    configuration; imported runs (no decoding of ours) are not split by it."""
    row = {"method": "mbti", "model": "m", "plan": json.dumps({"seed": 0})}
    runs = pd.DataFrame([row | {"run_id": "cold", "created_at": 1, "model_spec": json.dumps({"params": {"temperature": 0}})},
                         row | {"run_id": "warm", "created_at": 2, "model_spec": json.dumps({"params": {"temperature": 1}})}])
    configs = comparable.configurations(runs, family("mbti"))["m"]
    assert [c.run_ids for c in configs] == [("warm",), ("cold",)]
    assert configs[1].differs_from(configs[0]) == {"model_params": {"temperature": 0}}
    imported = {"imported": True, "source": "x"}
    assert comparable.signature(family("mbti"), imported, model_spec={"params": {"t": 1}}) == comparable.signature(family("mbti"), imported)


def test_runs_listing_names_each_runs_configuration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.db"
    with Store(path) as store:
        for run_id, seed in (("a", 0), ("b", 0), ("c", 1)):
            store.create_run(run_id, "mbti", "m", {}, {"method": "mbti", "seed": seed})
    assert main(["runs", "--store", str(path), "--json"]) == 0
    config = {r["run_id"]: r["config"] for r in json.loads(capsys.readouterr().out)}
    assert config["a"] == config["b"] != config["c"] and len(config["c"]) == 12
