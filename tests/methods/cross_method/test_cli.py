"""``run cross-method`` and ``metrics cross-method`` from the command line: a campaign on the stub server, its
document, and bad input as one line naming what and where (exit 2, nothing stored)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.runs.store import Store

SMALL = ["--personas", "6", "--methods", "values,inventory",
         "--set", "values.limit_items=20,inventory.inventory=rolescope-mini,inventory.order=ascending"]


def run(args: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_campaign_runs_every_part_and_its_document_lists_the_pairs(tmp_path: Path, capsys, stub_server) -> None:
    store = tmp_path / "s.db"
    code, _, err = run(["run", "cross-method", "--model", f"stub@{stub_server.url}", "--store", str(store), "--quiet",
                        "--run-id", "camp", *SMALL], capsys)
    assert code == 0, err
    with Store(store, read_only=True) as s:
        runs = s.runs().set_index("run_id")
        parts = s.table("cross_method_parts")
    assert runs.loc["camp", "method"] == "cross_method" and runs.loc["camp-values", "method"] == "values"
    assert runs.loc["camp-inventory", "status"] == "completed" and set(parts["part_run_id"]) == {"camp-values", "camp-inventory"}
    code, out, _ = run(["metrics", "cross-method", "--store", str(store), "--json", "--n-boot", "200", "--chance", "50"], capsys)
    assert code == 0
    [doc] = json.loads(out)["models"].values()
    assert doc["campaign"] == "camp" and doc["n_personas"] == 6
    for p in doc["pairs"]:
        assert {"a", "b", "r", "lo", "hi", "n", "chance", "reason", "kind", "human_r", "source"} <= set(p)
        if p["r"] is None:
            assert p["reason"]
        else:
            assert p["lo"] <= p["r"] <= p["hi"] and p["n"] == 6 and p["chance"]["n_sims"] == 50
    assert next(p for p in doc["pairs"] if p["b"].startswith("trust:"))["reason"].endswith("did not run trust")
    # resuming a finished campaign asks nothing new: every call comes from the cache
    code, _, err = run(["resume", "camp", "--store", str(store)], capsys)
    # 6 personas × (20 values + 20 inventory items); the counts are the store's (those the Run page shows: the run's
    # calls over its life), "cached" and the tokens this execution's: none sent
    assert code == 0 and "240/240 calls answered (240 cached)" in err and "0 tokens in, 0 out" in err


@pytest.mark.parametrize("args, message", [
    (["--set", "values.nonsense=1"], "values has no option 'nonsense'"),
    (["--set", "trust.rounds=3", "--methods", "values,inventory"], "'trust' is not a method of this campaign"),
    (["--set", "inventory.limit_items=0"], "--set inventory.limit_items"),
    (["--set", "values"], "write METHOD.FIELD=VALUE"),
    (["--methods", "values"], "two or more distinct methods"),
    (["--methods", "values,mbti"], "mbti cannot take a shared persona set"),
    (["--personas", "4"], "needs 5 to 40 of the bundled personas"),
])
def test_bad_options_are_one_line(tmp_path: Path, capsys, args: list[str], message: str) -> None:
    store = tmp_path / "s.db"
    code, out, err = run(["run", "cross-method", "--model", "embedded", "--store", str(store), *args], capsys)
    assert code == 2 and out == ""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], err
    assert not store.exists() or Store(store, read_only=True).runs().empty


@pytest.mark.parametrize("content, message", [
    ("[{\"id\": \"a\", \"name\": \"A\", \"description\": \"d1\", \"sex\": \"F\", \"age\": 30}]", "1 persona(s); a campaign needs at least 5"),
    (json.dumps([{"id": f"p{i}", "name": "N", "description": "same text", "sex": "M", "age": 40} for i in range(5)]),
     "description(s) given twice"),
    (json.dumps([{"id": "p1", "name": "N", "description": "x", "sex": "X", "age": 40}]), "persona 0 field 'sex'"),
    ("{not json", "invalid JSON"),
])
def test_a_bad_personas_file_is_one_line_naming_it(tmp_path: Path, capsys, content: str, message: str) -> None:
    bad = tmp_path / "people.json"
    bad.write_text(content)
    code, out, err = run(["run", "cross-method", "--model", "embedded", "--personas", str(bad),
                          "--store", str(tmp_path / "s.db")], capsys)
    assert code == 2 and out == ""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0] and str(bad) in lines[0], err


def test_metrics_of_a_model_without_a_campaign(tmp_path: Path, capsys) -> None:
    Store(tmp_path / "s.db").close()
    code, out, err = run(["metrics", "cross-method", "--store", str(tmp_path / "s.db"), "--model", "nobody"], capsys)
    assert code == 2 and out == "" and "no cross-method campaign of model 'nobody'" in err


def test_every_method_plans_the_same_personas() -> None:
    """The default campaign: every method that takes a shared persona set builds its part for exactly the campaign's
    personas (the same descriptions, so the same keys), each on its own protocol's defaults."""
    from analysis.llm.specs import parse_model_spec
    from analysis.methods import get
    from analysis.methods.cross_method.options import CrossMethodOptions
    from analysis.methods.cross_method.plan import build_plan, campaign_methods
    from analysis.persona_scores import persona_key, plan_descriptions

    plan = build_plan(CrossMethodOptions(personas="6"), parse_model_spec("embedded"))
    assert [p.method for p in plan.parts] == campaign_methods() and len(campaign_methods()) >= 4
    keys = [p.key for p in plan.personas]
    for part in plan.parts:
        described = plan_descriptions([part.plan])
        assert sorted(persona_key(d) for d in described.values()) == sorted(keys), part.method
        assert get(part.method).n_calls(part.plan) > 0
    trust = next(p for p in plan.parts if p.method == "trust").plan
    assert trust["level"] == "individual" and trust["bank"] == {"source": "campaign", "split": "test", "n": 6}
    inventory = next(p for p in plan.parts if p.method == "inventory").plan
    assert inventory["shaping"] is False and inventory["inventory"]["name"] == "ipip-neo-120"
    values = next(p for p in plan.parts if p.method == "values").plan
    assert [c["label"] for c in values["contexts"]] == ["no_conv"] and values["population"] == "campaign"
    assert plan.n_calls() == sum(get(p.method).n_calls(p.plan) for p in plan.parts)


def test_a_campaign_asking_a_subset_of_items_asks_every_item_of_the_scales_its_pairs_name() -> None:
    """Under ``inventory.limit_items=60`` (IPIP-NEO-120's first 60 items hold every facet twice) the inventory part
    still asks all four items of A1 Trust, which the trust pair correlates, and only those beyond the 60. A value, the
    PVQ's narrowest scale, is what ``values.limit_items`` samples (as a domain is): the values part asks its first 5."""
    from analysis.llm.specs import parse_model_spec
    from analysis.methods.cross_method.options import CrossMethodOptions
    from analysis.methods.cross_method.pairs import load_pairs
    from analysis.methods.cross_method.plan import build_plan, named_constructs
    from analysis.methods.inventory.inventory import load_inventory
    from analysis.methods.values.instruments import load_instrument

    options = CrossMethodOptions(personas="5", methods=["values", "inventory", "trust"],
                                 set=["inventory.limit_items=60", "values.limit_items=5"])
    plan = build_plan(options, parse_model_spec("embedded"))
    parts = {p.method: p.plan for p in plan.parts}
    full = load_inventory("ipip-neo-120")
    a1 = [i.id for i in full.items if i.facet == "A1"]
    asked = [i["id"] for i in parts["inventory"]["inventory"]["items"]]
    assert len(a1) == 4 and set(a1) <= set(asked)
    assert asked == [i.id for i in full.items[:60]] + [i for i in a1 if i not in {j.id for j in full.items[:60]}]
    assert len(asked) == 62 and "all of A1" in parts["inventory"]["inventory"]["name"]
    assert named_constructs(load_pairs().pairs)["inventory"] >= {"A1", "A", "N"}
    assert [i["id"] for i in parts["values"]["instrument"]["items"]] == [i.id for i in load_instrument("pvq").items[:5]]
