"""CLI glue: run options -> plan dict, and the metrics JSON document's shape and hand-computed numbers."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pytest

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.runs.store import Store
from analysis.methods.options import add_flags
from analysis.methods.trust.options import TrustOptions
from analysis.methods.trust.cli import metrics_json, plan_from_args
from analysis.methods.trust.attributes import TABLE3_ATTRIBUTES
from analysis.methods.trust.plan import TrustPlan
from analysis.methods.trust.tables import BELIEFS, PRIORS, ROUNDS, TRANSFERS

SPEC = ModelSpec(name="fake", backend="custom", model="fake", base_url="http://127.0.0.1:9/v1")
GSS = Path(__file__).resolve().parents[4] / "shared" / "anchors" / "genagents" / "gss_agents.jsonl"


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    add_flags(parser, TrustOptions)
    return parser.parse_args(["--model", "x", *argv])


def test_run_arguments_to_plan() -> None:
    """Every option reaches the plan; defaults follow the paper; --model/--run-id are not added twice."""
    plan = TrustPlan.model_validate(plan_from_args(parse(), SPEC))
    assert (plan.level, plan.strategies, plan.conditioning, plan.endowment, len(plan.personas), len(plan.attributes)) == (
        "population", ["NoCtx+Tr", "Ctx+Tr", "Ctx+$"], "none", 10, 50, 9)
    assert plan.attribute_set == "paper" and plan.attributes == list(TABLE3_ATTRIBUTES)
    old = TrustPlan.model_validate(plan_from_args(parse("--attribute-set", "rolescope15"), SPEC))
    assert old.attribute_set == "rolescope15" and len(old.attributes) == 15 and old.personas[0].id.startswith("g0-")
    with pytest.raises(InputError, match="differs per split"):
        plan_from_args(parse("--split", "all"), SPEC)
    with pytest.raises(InputError, match="--attributes"):
        plan_from_args(parse("--attributes", "sex"), SPEC)  # a train-split trait: not in the test split
    assert plan.bank == {"source": "generated", "size": 250, "seed": 0, "split": "test", "limit": None, "n": 50}
    args_list = ("--level", "individual", "--rounds", "4", "--archetypes", "1, 5", "--endowment", "44", "--personas", "30",
                 "--split", "train", "--limit-personas", "3", "--seed", "9", "--temperature", "0.7", "--max-tokens", "77",
                 "--play-knows-archetype")
    args = parse(*args_list)
    plan = TrustPlan.model_validate(plan_from_args(args, SPEC))
    assert (plan.level, plan.rounds, plan.archetypes, plan.endowment, plan.seed, plan.play_knows_archetype) == (
        "individual", 4, [1, 5], 44, 9, True)
    assert [p.split for p in plan.personas] == ["train"] * 3 and plan.personas[0].id.startswith("p9-")
    assert plan.params["temperature"] == 0.7 and set(plan.max_tokens.values()) == {77}
    assert plan.strategies == [] and plan.attributes == [] and plan.forecast == "per_round"
    assert plan.n_calls() == 3 * 2 * (2 * 4)  # per round: a forecast call and a play call
    upfront = TrustPlan.model_validate(plan_from_args(parse(*args_list, "--forecast", "upfront"), SPEC))
    assert upfront.forecast == "upfront" and upfront.n_calls() == 3 * 2 * (1 + 4)
    args = parse("--strategies", "ctx-usd,NoCtx+Tr", "--conditioning", "strong", "--attributes", "age,religion")
    plan = TrustPlan.model_validate(plan_from_args(args, SPEC))
    assert plan.strategies == ["Ctx+$", "NoCtx+Tr"] and plan.elicited == ["Ctx+$", "NoCtx+Tr", "Ctx+Tr"]
    assert plan.n_calls() == 3 * 2 + 50
    json.dumps(plan_from_args(args, SPEC))  # stored with the run: must be JSON
    with pytest.raises(SystemExit):
        parse("--archetypes", "1,x")
    lead = argparse.ArgumentParser()
    lead.add_argument("--model", required=True)
    lead.add_argument("--run-id")
    add_flags(lead, TrustOptions)
    assert lead.parse_args(["--model", "m"]).rounds == 6


@pytest.mark.skipif(not GSS.exists(), reason="reference data ../shared/anchors not present")
def test_personas_path_loads_genagents() -> None:
    """--personas PATH uses the GenAgents bank: a seeded sample of 50 of all its 3,505 agents by default, described by
    App. C.4's attributes, the form recorded (``persona_form``); rolescope15: its test split (701), limited, with the
    seed recorded, no form."""
    from analysis.methods.trust.genagents import PAPER_PERSONA_FORM

    plan = TrustPlan.model_validate(plan_from_args(parse("--personas", str(GSS), "--seed", "2"), SPEC))
    assert plan.bank == {"source": "genagents", "path": str(GSS), "size": 3505, "seed": 2, "split": "test", "limit": 50,
                         "n": 50}
    assert plan.persona_form == PAPER_PERSONA_FORM
    assert all(p.description.startswith("Age: ") and "\nRace: " in p.description and "\nTotal Wealth: " in p.description
               and p.description.split("\n")[-1].startswith("Openness To Experience: ") for p in plan.personas)
    args = parse("--personas", str(GSS), "--limit-personas", "5", "--seed", "2", "--attribute-set", "rolescope15")
    plan = TrustPlan.model_validate(plan_from_args(args, SPEC))
    assert len(plan.personas) == 5 and {p.source for p in plan.personas} == {"genagents"}
    assert plan.bank == {"source": "genagents", "path": str(GSS), "size": 3505, "seed": 2, "split": "test", "limit": 5, "n": 5}
    assert all(p.details["big_five_seed"] for p in plan.personas) and plan.persona_form is None
    with pytest.raises(InputError, match="not found"):
        plan_from_args(parse("--personas", "missing.jsonl"), SPEC)


def _transfer(run_id: str, pid: str, sex: str, age: str, sent: int | None, conditioning: str = "none") -> dict:
    return {"run_id": run_id, "model": "m1", "endowment": 10, "conditioning": conditioning, "persona_id": pid,
            "attributes": {"sex": sex, "age": age}, "sent": sent, "valid": int(sent is not None)}


def _belief(run_id: str, attribute: str, levels: list[str], ranking: list[str], eta2: float) -> dict:
    return {"run_id": run_id, "model": "m1", "endowment": 10, "strategy": "Ctx+Tr", "attribute": attribute,
            "levels": levels, "ranking": ranking, "effect_size": eta2, "valid": 1}


AGES = ["18-29", "30-44", "45-64", "65+"]


def test_metrics_document_by_hand(tmp_path: Path) -> None:
    """Six personas: sex F 2,4,6 | M 6,8,10 -> η² 24/40, ρ 1 (belief Male > Female, latest run);
    age means [6,4,7,6] vs belief 65+ > 45-64 > 30-44 > 18-29 -> ρ = 1.5/√22.5 (ties), η² 6/40;
    medians over the two attributes; weak priors followed exactly; individual MAE by hand."""
    with Store(tmp_path / "s.db") as store:
        plans = {"r0": {"level": "population"}, "r1": {"level": "population"},
                 "rc": {"level": "population", "conditioning": "weak"}, "ri": {"level": "individual"}}
        for run_id, plan in plans.items():
            store.create_run(run_id, "trust", "m1", {}, {"method": "trust", "endowment": 10, **plan})
        store.upsert(BELIEFS.name, [
            _belief("r0", "sex", ["Female", "Male"], ["Female", "Male"], 0.9),  # older run: superseded
            _belief("r1", "sex", ["Female", "Male"], ["Male", "Female"], 0.2),
            _belief("r1", "age", AGES, ["65+", "45-64", "30-44", "18-29"], 0.05),
            {"run_id": "r1", "model": "m1", "endowment": 10, "strategy": "NoCtx+Tr", "attribute": "age", "levels": AGES,
             "valid": 0, "reason": "no JSON object in the reply", "raw": "no"},
        ])
        store.upsert(TRANSFERS.name, [
            _transfer("r1", "p1", "Female", "18-29", 2), _transfer("r1", "p2", "Female", "30-44", 4),
            _transfer("r1", "p3", "Female", "45-64", 6), _transfer("r1", "p4", "Male", "65+", 6),
            _transfer("r1", "p5", "Male", "45-64", 8), _transfer("r1", "p6", "Male", "18-29", 10),
            _transfer("r1", "p7", "Male", "65+", None),
            *[_transfer("rc", f"c{i}", "Female", age, sent, "weak") for i, (age, sent) in
              enumerate(zip(["45-64", "65+", "30-44", "18-29"], [9, 7, 5, 3]))],
        ])
        store.upsert(PRIORS.name, [{"run_id": "rc", "model": "m1", "endowment": 10, "conditioning": "weak", "strategy": "Ctx+Tr",
                                    "attribute": "age", "original": ["65+", "45-64", "30-44", "18-29"],
                                    "imposed": ["45-64", "65+", "30-44", "18-29"], "target": 0.8, "achieved": 0.8}])
        store.upsert(ROUNDS.name, [
            {"run_id": "ri", "model": "m1", "endowment": 10, "persona_id": pid, "archetype": 3, "round": r, "forecast": f,
             "sent": s, "valid": int(s is not None)}
            for pid, r, f, s in (("a", 1, 2, 1), ("a", 2, 2, 3), ("b", 1, 0, 0), ("b", 2, 4, None))])
        doc = metrics_json(store, n_boot=200)
        only = metrics_json(store, "m1", n_boot=0)
        with pytest.raises(InputError, match="no trust results for model 'zz'"):
            metrics_json(store, "zz")
    json.dumps(doc, allow_nan=False)
    m1 = doc["models"]["m1"]
    assert set(m1) >= {"population", "conditioning", "individual"} and list(m1["population"]) == ["Ctx+Tr"]
    pop = m1["population"]["Ctx+Tr"]
    sex, age = pop["attributes"]["sex"], pop["attributes"]["age"]
    assert {k: sex[k] for k in ("spearman", "eta2_belief", "eta2_behaviour", "abs_diff")} == {
        "spearman": 1.0, "eta2_belief": 0.2, "eta2_behaviour": 0.6, "abs_diff": 0.4}
    assert age["spearman"] == pytest.approx(1.5 / math.sqrt(22.5), abs=1e-6)
    assert (age["eta2_behaviour"], age["abs_diff"]) == (pytest.approx(0.15, abs=1e-6), pytest.approx(0.1, abs=1e-6))
    assert age["behaviour_ranking"] == ["45-64", "18-29", "65+", "30-44"]
    assert pop["median_spearman"] == pytest.approx((1 + 1.5 / math.sqrt(22.5)) / 2, abs=1e-6)
    assert pop["median_abs_diff"] == pytest.approx(0.25, abs=1e-6) and pop["n_personas"] == 6
    lo, hi = pop["median_spearman_ci"]
    assert -1 <= lo <= hi <= 1 and sex["spearman_ci"][1] == 1.0
    weak = m1["conditioning"]["weak"]["attributes"]["age"]
    assert (weak["spearman_imposed"], weak["spearman_original"], weak["prior_spearman"]) == (1.0, 0.8, 0.8)
    none = m1["conditioning"]["none"]
    assert none["median_spearman_imposed"] == pytest.approx(pop["median_spearman"], abs=1e-6)
    arch = m1["individual"]["archetypes"]["3"]
    assert arch["mae_by_round"] == [0.5, 1.0] and arch["mae"] == pytest.approx(2 / 3, abs=1e-6) and arch["n_personas"] == 2
    assert m1["invalid"] == {"beliefs": 1, "transfers": 1, "forecasts": 0, "rounds": 1}
    assert m1["endowment"] == 10 and m1["endowments"]["10"]["Ctx+Tr"]["median_abs_diff"] == pytest.approx(0.25, abs=1e-6)
    assert only["models"]["m1"]["population"]["Ctx+Tr"]["median_spearman_ci"] == [None, None]  # n_boot = 0: no CI


def test_empty_store_gives_no_models(tmp_path: Path) -> None:
    """A store without trust rows yields {"models": {}}."""
    with Store(tmp_path / "s.db") as store:
        assert metrics_json(store) == {"models": {}}


def test_personas_text_says_where_personas_come_from() -> None:
    """The generated bank is named the offline default (and GenAgents the paper's bank); a GenAgents file its path."""
    from analysis.methods.trust.labels import personas_text

    gen = personas_text({"population": {"attribute_set": "paper", "source": "generated", "size": 250, "seed": 0,
                                         "split": "test", "n": 50}})
    assert gen.startswith("Personas — population: 50 personas of the test split of the generated bank (the offline default")
    assert "the paper used the GenAgents bank" in gen and "Table 5" in gen
    ga = personas_text({"individual": {"attribute_set": "paper", "source": "genagents", "path": "g.jsonl", "size": 296,
                                       "seed": 2, "split": "test", "n": 50}})
    assert "50 personas of the test split of the GenAgents bank `g.jsonl` (296 eligible agents" in ga  # earlier plans
    whole = personas_text({"population": {"attribute_set": "paper", "source": "genagents", "path": "g.jsonl",
                                          "size": 3505, "seed": 0, "split": "test", "n": 50, "persona_form": "x"}})
    assert "50 personas sampled from the whole GenAgents bank `g.jsonl` (3505 agents" in whole
    assert "App. C.4 persona" in whole and "left out of that attribute's groups only" in whole
    assert "did not record" in personas_text({"population": {"attribute_set": "rolescope15"}})


def test_invalid_text_tells_unparseable_replies_from_answers_never_made() -> None:
    from analysis.methods.trust.labels import invalid_text

    doc = {"invalid": {"beliefs": 27, "rounds": 36}, "invalid_replies": {"beliefs": 27, "rounds": 6}}
    assert invalid_text(doc) == "27 beliefs, 6 rounds (and 30 with no reply: never played or failed)"
    assert invalid_text({"invalid": {"beliefs": 2}}) == "2 beliefs"


def test_headline_says_over_how_many_attributes() -> None:
    """With the GenAgents bank two of Table 3's nine attributes have one level (all US citizens, one family structure):
    their ρ is undefined and the headline median says it is over 7 of 9 attributes, naming them."""
    from analysis.methods.trust.cli import headline_spearman

    attributes = {f"a{i}": {"spearman": 0.1 * i, "n_levels_compared": 3} for i in range(7)}
    attributes |= {"us_citizenship": {"spearman": None, "n_levels_compared": 1},
                   "family_structure_at_16": {"spearman": None, "n_levels_compared": 1}}
    got = headline_spearman({"Ctx+Tr": {"median_spearman": 0.3, "attributes": attributes}})
    assert got["value"] == 0.3 and got["strategy"] == "Ctx+Tr"
    assert got["note"].startswith("Ctx+Tr: median over 7 of 9 attributes; ρ undefined for us_citizenship, "
                                  "family_structure_at_16 (fewer than two levels")
