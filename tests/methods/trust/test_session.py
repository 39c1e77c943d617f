"""Trust sessions through create_run/execute_run with a scripted fake LLM client (no network, no model):
planted effects are recovered by the metrics, conditioning puts the right rankings in the prompts,
the multi-round game follows the archetype, failures stop only their game and resume completes it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.llm.client import CallError, ChatReply, ChatRequest
from analysis.llm.specs import ModelSpec, parse_model_spec
from analysis import methods
from analysis.runs import runner
from analysis.runs.executor import RetryPolicy
from analysis.runs.store import Store
from analysis.methods.trust.cli import metrics_json
from analysis.methods.trust.effects import eta_squared
from analysis.methods.trust.plan import TrustPlan, build_trust_plan
from analysis.methods.trust.personas import ATTRIBUTES, BY_KEY, age_band
from analysis.methods.trust.tables import BELIEFS, FORECASTS, PRIORS, ROUNDS, TRANSFERS

SPEC = ModelSpec(name="fake", backend="custom", model="fake-model", base_url="http://127.0.0.1:9/v1")
AGE_SENT = {"18-29": 2, "30-44": 4, "45-64": 6, "65+": 8}


def attribute_of(user: str):
    label = re.search(r'characteristic "(.*?)"', user).group(1)
    return next(a for a in ATTRIBUTES if a.label == label)


def persona_age(system: str) -> str:
    return age_band(int(re.search(r"I am (\d+) years old", system).group(1)))


def belief_reply(user: str) -> str:
    """Tr: levels in reverse order, η² 0.1; $: mean = level index (so also reverse order), SD 1."""
    attr = attribute_of(user)
    if '"groups"' in user:
        return json.dumps({"groups": [{"level": lv, "mean": i, "sd": 1} for i, lv in enumerate(attr.levels)], "explanation": "e"})
    return "Here you go:\n```json\n" + json.dumps({"ranking": list(attr.levels)[::-1], "effect_size": 0.1}) + "\n```\nThanks."


def transfer_by_age(system: str, user: str) -> str:
    return f"As myself I weigh the risk.\nAmount: ${AGE_SENT[persona_age(system)]}"


def round_reply(system: str, user: str) -> str:
    """Send the round number (round t -> $t)."""
    t = int(re.search(r"This is round (\d+) of", user).group(1))
    return f"THOUGHT: round {t}, I go up by one.\nACTION: Send ${t}"


class FakeClient:
    """Routes each request by what its last message asks; records every request."""

    requests: list[ChatRequest] = []
    transfer: Callable[[str, str], str] = staticmethod(transfer_by_age)
    belief: Callable[[str], str] = staticmethod(belief_reply)
    forecast: Callable[[str, str], str] = staticmethod(lambda s, u: json.dumps({"forecasts": [5] * 6}))
    round: Callable[[str, str], str] = staticmethod(round_reply)
    round_forecast: Callable[[str, str], str] = staticmethod(lambda s, u: json.dumps({"send": 5, "explanation": "steady"}))

    def __init__(self, spec: ModelSpec, api_key: str | None = None, confirmed: tuple[str, ...] = ()):
        self.spec = spec

    async def complete(self, request: ChatRequest) -> ChatReply:
        FakeClient.requests.append(request)
        system, user = request.messages[0][1], request.messages[-1][1]
        if "characteristic" in user:
            text = FakeClient.belief(user)
        elif '{"send":' in user:
            text = FakeClient.round_forecast(system, user)
        elif '"forecasts"' in user:
            text = FakeClient.forecast(system, user)
        elif "This is round" in user:
            text = FakeClient.round(system, user)
        else:
            text = FakeClient.transfer(system, user)
        return ChatReply(text=text, finish_reason="stop", tokens_in=10, tokens_out=5)

    async def aclose(self) -> None:
        pass


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> type[FakeClient]:
    FakeClient.requests = []
    FakeClient.transfer = staticmethod(transfer_by_age)
    FakeClient.belief = staticmethod(belief_reply)
    FakeClient.forecast = staticmethod(lambda s, u: json.dumps({"forecasts": [5] * 6}))
    FakeClient.round = staticmethod(round_reply)
    FakeClient.round_forecast = staticmethod(lambda s, u: json.dumps({"send": 5, "explanation": "steady"}))
    monkeypatch.setattr(runner, "LLMClient", FakeClient)
    return FakeClient


def run(store: Store, **options) -> tuple[str, TrustPlan]:
    plan = build_trust_plan(SPEC, **({"attribute_set": "rolescope15"} | options))
    run_id = methods.create_run(store, "trust", SPEC, plan.model_dump())
    methods.execute_run(store, run_id, concurrency=4, retry=RetryPolicy(max_attempts=1))
    return run_id, plan


def test_population_recovers_a_planted_age_effect(tmp_path: Path, fake: type[FakeClient]) -> None:
    """Sent = f(age band) rising with age, beliefs rank levels in reverse order: age ρ = 1, η²_behaviour = 1,
    |Δη²| = 0.9 (Tr) ; sex and politics η² equal the hand ANOVA on the stored rows; calls = n_calls."""
    with Store(tmp_path / "s.db") as store:
        run_id, plan = run(store, personas=60, attributes=["age", "sex", "political_views"])
        beliefs, transfers = store.table(BELIEFS.name, [run_id]), store.table(TRANSFERS.name, [run_id])
        doc = metrics_json(store, n_boot=200)
    assert plan.n_calls() == 3 * 3 + 12 == len(fake.requests)  # test split of 60 = 12 personas
    assert len(beliefs) == 9 and beliefs["valid"].all() and len(transfers) == 12 and transfers["valid"].all()
    assert set(transfers["extraction"]) == {"marker"} and set(transfers["conditioning"]) == {"none"}
    ranking = beliefs.set_index(["strategy", "attribute"]).loc[("Ctx+Tr", "age"), "ranking"]
    assert json.loads(ranking) == ["65+", "45-64", "30-44", "18-29"]
    fake_doc = doc["models"]["fake"]
    assert set(fake_doc["population"]) == {"NoCtx+Tr", "Ctx+Tr", "Ctx+$"}
    attrs = [json.loads(a) for a in transfers["attributes"]]
    sent = transfers["sent"].to_numpy(float)
    for strategy, eta_belief_age in (("NoCtx+Tr", 0.1), ("Ctx+Tr", 0.1), ("Ctx+$", None)):
        pop = fake_doc["population"][strategy]
        age = pop["attributes"]["age"]
        assert age["spearman"] == 1.0 and age["eta2_behaviour"] == 1.0 and age["spearman_ci"] == [1.0, 1.0]
        if eta_belief_age is not None:
            assert age["eta2_belief"] == 0.1 and age["abs_diff"] == pytest.approx(0.9, abs=1e-6)
        for key in ("sex", "political_views"):
            hand = eta_squared(sent, [a[key] for a in attrs])
            assert pop["attributes"][key]["eta2_behaviour"] == pytest.approx(hand, abs=1e-6)
        values = [pop["attributes"][k]["spearman"] for k in ("age", "sex", "political_views")]
        median = float(np.nanmedian([np.nan if v is None else v for v in values]))
        assert pop["median_spearman"] == pytest.approx(median, abs=1e-6)
        assert pop["n_personas"] == 12
    # Ctx+$ η²: means 0..3, SD 1, groups of 10: SSB = 10·5, SSW = 9·4
    assert fake_doc["population"]["Ctx+$"]["attributes"]["age"]["eta2_belief"] == pytest.approx(50 / 86, abs=1e-6)
    role = [r for r in fake.requests if "Amount: $X" in r.messages[-1][1]]
    assert len(role) == 12 and all("Research on the people" not in r.messages[-1][1] for r in role)
    assert all(r.messages[0][1].startswith("You are role-playing a real person.") for r in role)
    json.dumps(doc, allow_nan=False)


def test_invalid_replies_are_stored_and_left_out(tmp_path: Path, fake: type[FakeClient]) -> None:
    """'$12' with E = 10 and a JSON-less belief are stored invalid with raw text and reason; metrics skip them."""
    fake.transfer = staticmethod(lambda s, u: "Amount: $12" if persona_age(s) == "65+" else transfer_by_age(s, u))
    fake.belief = staticmethod(lambda u: "I refuse to stereotype." if "Sex" in u and "Player A" in u else belief_reply(u))
    with Store(tmp_path / "s.db") as store:
        run_id, _ = run(store, personas=60, attributes=["age", "sex"])
        transfers = store.table(TRANSFERS.name, [run_id])
        beliefs = store.table(BELIEFS.name, [run_id]).set_index(["strategy", "attribute"])
        doc = metrics_json(store, n_boot=50)["models"]["fake"]
    old = transfers[transfers["valid"] == 0]
    assert len(old) >= 1 and set(old["reason"]) == {"'$12' is outside [0, 10]"} and set(old["raw"]) == {"Amount: $12"}
    assert old["sent"].isna().all()
    for strategy in ("Ctx+Tr", "Ctx+$"):
        assert beliefs.loc[(strategy, "sex"), "valid"] == 0
        assert beliefs.loc[(strategy, "sex"), "reason"] == "no JSON object in the reply"
        assert set(doc["population"][strategy]["attributes"]) == {"age"}
    assert set(doc["population"]["NoCtx+Tr"]["attributes"]) == {"age", "sex"}  # NoCtx+Tr has no 'Player A'
    assert doc["population"]["Ctx+Tr"]["n_personas"] == int(transfers["valid"].sum())
    assert doc["invalid"]["transfers"] == len(old) and doc["invalid"]["beliefs"] == 2
    assert doc["population"]["Ctx+Tr"]["attributes"]["age"]["behaviour_ranking"][0] == "45-64"  # 65+ all invalid


def _block(user: str) -> dict[str, list[str]]:
    """The rankings listed in a role prompt's belief block, by attribute label."""
    lines = re.findall(r"^- (.+?): (.+)$", user, re.MULTILINE)
    return {label: ranking.split(" > ") for label, ranking in lines}


def test_weak_priors_are_perturbed_imposed_and_followed(tmp_path: Path, fake: type[FakeClient]) -> None:
    """Weak conditioning elicits Ctx+Tr too, imposes rankings at ρ ≈ 0.8 (±0.05 where reachable) in every role prompt;
    a model that follows the block gives spearman_imposed = 1 and spearman_original = the prior's ρ for age."""
    def follow(system: str, user: str) -> str:
        order = _block(user)["Age"]
        return f"Amount: ${2 * (4 - order.index(persona_age(system)))}"

    fake.transfer = staticmethod(follow)
    with Store(tmp_path / "s.db") as store:
        run_id, plan = run(store, personas=100, attributes=["age", "sex", "political_views", "religion"],
                           strategies=["NoCtx+Tr"], conditioning="weak", seed=3)
        priors = store.table(PRIORS.name, [run_id]).set_index("attribute")
        beliefs = store.table(BELIEFS.name, [run_id])
        doc = metrics_json(store, n_boot=50)["models"]["fake"]["conditioning"]
    assert plan.elicited == ["NoCtx+Tr", "Ctx+Tr"] and plan.n_calls() == 2 * 4 + 20 == len(fake.requests)
    assert set(beliefs["strategy"]) == {"NoCtx+Tr", "Ctx+Tr"}
    for attr in ("age", "political_views", "religion"):
        original, imposed = json.loads(priors.loc[attr, "original"]), json.loads(priors.loc[attr, "imposed"])
        assert original == list(BY_KEY[attr].levels)[::-1] and sorted(imposed) == sorted(original)
        assert abs(priors.loc[attr, "achieved"] - 0.8) <= 0.05 and priors.loc[attr, "target"] == 0.8
    assert priors.loc["sex", "achieved"] == 1.0  # two levels: ρ ∈ {±1}
    role = [r.messages[-1][1] for r in fake.requests if "Amount: $X" in r.messages[-1][1]]
    blocks = [_block(u) for u in role]
    assert len(role) == 20 and all(b == blocks[0] for b in blocks)
    assert blocks[0]["Age"] == json.loads(priors.loc["age", "imposed"]) and len(blocks[0]) == 4
    weak = doc["weak"]
    assert weak["strategy"] == "Ctx+Tr" and weak["run_id"] == run_id
    age = weak["attributes"]["age"]
    assert age["spearman_imposed"] == 1.0
    assert age["spearman_original"] == pytest.approx(priors.loc["age", "achieved"], abs=1e-6)
    assert age["prior_spearman"] == pytest.approx(priors.loc["age", "achieved"], abs=1e-6)
    assert "none" not in doc  # no unconditioned behaviour in this store


def test_self_conditioning_uses_own_beliefs(tmp_path: Path, fake: type[FakeClient]) -> None:
    """Self: imposed = original Ctx+Tr ranking (ρ 1); an attribute without a valid belief is left out of the block."""
    fake.belief = staticmethod(lambda u: "no idea" if "Sex" in u else belief_reply(u))
    with Store(tmp_path / "s.db") as store:
        run_id, _ = run(store, personas=20, attributes=["age", "sex"], strategies=["Ctx+Tr"], conditioning="self")
        priors = store.table(PRIORS.name, [run_id]).set_index("attribute")
        run(store, personas=20, attributes=["age", "sex"], strategies=["Ctx+Tr"])  # unconditioned baseline
        doc = metrics_json(store, n_boot=20)["models"]["fake"]["conditioning"]
    assert priors.loc["age", "imposed"] == priors.loc["age", "original"] and priors.loc["age", "achieved"] == 1.0
    assert pd.isna(priors.loc["sex", "imposed"]) and "left out of the role prompt" in priors.loc["sex", "reason"]
    role = [r.messages[-1][1] for r in fake.requests if "Research on the people" in r.messages[-1][1]]
    assert len(role) == 4 and _block(role[0]) == {"Age": ["65+", "45-64", "30-44", "18-29"]}
    assert set(doc) == {"none", "self"} and set(doc["self"]["attributes"]) == {"age"}
    assert doc["none"]["attributes"]["age"]["spearman_imposed"] == doc["none"]["attributes"]["age"]["spearman_original"]


def test_individual_game_follows_the_archetype(tmp_path: Path, fake: type[FakeClient]) -> None:
    """Forecast 5 every round, send $t in round t: returns min(k, 3t), history shown to the next round,
    MAE by round = |5 − t| and overall 11/6 for R = 6; calls = personas × archetypes × 7 (the up-front option)."""
    with Store(tmp_path / "s.db") as store:
        run_id, plan = run(store, level="individual", personas=10, archetypes=[1, 5], forecast="upfront")
        rounds = store.table(ROUNDS.name, [run_id])
        forecasts = store.table(FORECASTS.name, [run_id])
        doc = metrics_json(store, n_boot=50)["models"]["fake"]
    # round 1's prompt is the same for both archetypes, but each game is its own sample: nothing is shared
    assert plan.n_calls() == 2 * 2 * 7 == len(fake.requests)
    assert {r.sample for r in fake.requests} == {1, 5}
    assert len(forecasts) == 4 and forecasts["valid"].all() and set(forecasts["sends"]) == {json.dumps([5] * 6)}
    assert len(rounds) == 24 and rounds["valid"].all()
    for r in rounds.itertuples():
        assert (r.sent, r.forecast, r.received, r.returned, r.earnings) == (
            r.round, 5, 3 * r.round, min(r.archetype, 3 * r.round), 10 - r.round + min(r.archetype, 3 * r.round))
        assert r.thought == f"round {r.round}, I go up by one."
    sixth = [q.messages[-1][1] for q in fake.requests if "This is round 6 of 6" in q.messages[-1][1]]
    assert len(sixth) == 4
    k1 = next(u for u in sixth if "returned $1;" in u)
    assert ("Round 5. ACTION: Send $5. OBSERVATION: Player B received $15 and returned $1; you earned $6 this round "
            "($40 in total).") in k1
    assert "fixed rule" not in k1  # play does not describe the archetype unless asked
    for k in ("1", "5"):
        arch = doc["individual"]["archetypes"][k]
        assert arch["mae_by_round"] == [4.0, 3.0, 2.0, 1.0, 0.0, 1.0] and arch["mae"] == pytest.approx(11 / 6, abs=1e-6)
        assert arch["n_personas"] == 2 and arch["n_pairs"] == 12
    assert doc["population"] == {} and doc["conditioning"] == {}


def test_failed_and_invalid_rounds_stop_their_game_and_resume_completes(tmp_path: Path, fake: type[FakeClient]) -> None:
    """A permanent failure in round 2 of one game and an invalid amount in round 3 of another: the later rounds
    are 'not played', other games are whole, progress reaches the total; resume pays only the failed call."""
    target: dict[str, str] = {}  # "fail": the persona (system prompt) whose round 2 fails until "healed"

    def rounds(system: str, user: str) -> str:
        t = int(re.search(r"This is round (\d+) of", user).group(1))
        if t == 1:
            target.setdefault("fail", system)
        if system == target["fail"] and t == 2 and not target.get("healed"):
            raise CallError("HTTP 400: bad request", retryable=False, status=400)
        if system != target.get("fail") and t == 3:
            return "THOUGHT: I am unsure.\nACTION: Send $11"
        return round_reply(system, user)

    fake.round = staticmethod(rounds)
    fake.forecast = staticmethod(lambda s, u: json.dumps({"forecasts": [3, 3, 3, 3]}))
    with Store(tmp_path / "s.db") as store:
        plan = build_trust_plan(SPEC, level="individual", personas=10, limit_personas=2, archetypes=[3], rounds=4,
                                forecast="upfront")
        run_id = methods.create_run(store, "trust", SPEC, plan.model_dump())
        summary = methods.execute_run(store, run_id, retry=RetryPolicy(max_attempts=1))
        assert (summary.status, summary.total, summary.done, summary.failed) == ("completed_with_failures", 10, 10, 1)
        rows = store.table(ROUNDS.name, [run_id]).sort_values(["persona_id", "round"])
        by_persona = {pid: g for pid, g in rows.groupby("persona_id")}
        failed = next(g for g in by_persona.values() if g["reason"].fillna("").str.startswith("call failed").any())
        other = next(g for g in by_persona.values() if g is not failed)
        assert list(failed["valid"]) == [1, 0, 0, 0] and list(failed["reason"].iloc[2:]) == ["not played: round 2 failed"] * 2
        assert list(other["valid"]) == [1, 1, 0, 0] and other["reason"].iloc[2] == "'$11' is outside [0, 10]"
        assert other["reason"].iloc[3] == "not played: round 3 had no valid amount" and failed["forecast"].tolist() == [3] * 4
        n_before = len(fake.requests)
        target["healed"] = "yes"
        again = methods.execute_run(store, run_id)
        assert again.status == "completed" and len(fake.requests) - n_before == 3  # failed round 2, then rounds 3-4
        rows = store.table(ROUNDS.name, [run_id])
        assert int(rows["valid"].sum()) == 4 + 2


def test_per_round_forecasts_from_state_summaries(tmp_path: Path, fake: type[FakeClient]) -> None:
    """Default: before each round one forecast call from the crafted state (round 1: the game has just started; round t:
    T_k returned $k after each transfer, R − t + 1 rounds remain), then the round; forecast t sends $t − 1 ("send one
    less"), play sends $t: MAE 1 every round; explanations on the rows and in the trajectories (Tables 6–8); an invalid
    forecast is counted and has no pair; a game stopped in round 3 skips 2 calls per later round."""
    def forecast(system: str, user: str) -> str:
        t = int(re.search(r"This is round (\d+) of", user).group(1))
        return json.dumps({"send": t - 1, "explanation": f"because round {t}"}) if t != 4 else "I cannot say."

    def rounds(system: str, user: str) -> str:
        return "ACTION: Send $99" if "This is round 3 of" in user else round_reply(system, user)

    fake.round_forecast = staticmethod(forecast)
    with Store(tmp_path / "s.db") as store:
        run_id, plan = run(store, level="individual", personas=10, limit_personas=1, archetypes=[3], rounds=4)
        assert plan.forecast == "per_round" and plan.n_calls() == 1 * 1 * 8 == len(fake.requests)
        users = [q.messages[-1][1] for q in fake.requests]
        kinds = ["forecast" if '{"send":' in u else "round" for u in users]
        assert kinds == ["forecast", "round"] * 4  # each forecast comes before its round
        assert "The game has just started: there is no history of the other player's behaviour yet. This is round 1 of " \
               "4; 4 rounds remain, this one included." in users[0]
        assert "2 rounds have been played. The other player has returned $3 after each transfer (or everything they " \
               "received, when that was less than $3). This is round 3 of 4; 2 rounds remain, this one included." in users[4]
        assert "round 4 of 4; 1 round remains, this one included." in users[6]
        assert "Player B follows a fixed rule: after every round Player B returns $3" in users[2]
        rows = store.table(ROUNDS.name, [run_id]).sort_values("round")
        assert rows["forecast"].tolist()[:3] == [0, 1, 2] and pd.isna(rows["forecast"].iloc[3])
        assert rows["forecast_valid"].tolist() == [1, 1, 1, 0] and rows["forecast_reason"].iloc[3] == "no JSON object in the reply"
        assert rows["forecast_explanation"].iloc[1] == "because round 2" and store.table(FORECASTS.name, [run_id]).empty
        doc = metrics_json(store, n_boot=0)["models"]["fake"]
    arch = doc["individual"]["archetypes"]["3"]
    assert arch["mae_by_round"] == [1.0, 1.0, 1.0] and arch["mae"] == 1.0 and arch["n_pairs"] == 3
    assert doc["invalid"]["forecasts"] == 1 and doc["n_rows"]["forecasts"] == 4  # per-round forecasts count as forecasts
    assert doc["invalid_reasons"]["forecasts"] == {"no JSON object in the reply": 1}
    trace = next(iter(doc["individual"]["trajectories"]["3"].values()))
    assert [(r["round"], r["forecast"], r["explanation"], r["sent"], r["returned"]) for r in trace] == [
        (1, 0, "because round 1", 1, 3), (2, 1, "because round 2", 2, 3), (3, 2, "because round 3", 3, 3),
        (4, None, None, 4, 3)]
    assert trace[3]["forecast_reason"] == "no JSON object in the reply"
    fake.requests.clear()
    fake.round = staticmethod(rounds)
    with Store(tmp_path / "t.db") as store:
        plan = build_trust_plan(SPEC, level="individual", personas=10, limit_personas=1, archetypes=[1], rounds=4)
        run_id = methods.create_run(store, "trust", SPEC, plan.model_dump())
        summary = methods.execute_run(store, run_id)
        assert (summary.total, summary.done) == (8, 8) and len(fake.requests) == 6  # rounds 1-3 and their forecasts
        rows = store.table(ROUNDS.name, [run_id]).sort_values("round")
        assert rows["reason"].iloc[3] == "not played: round 3 had no valid amount" and pd.isna(rows["forecast"].iloc[3])
        doc = metrics_json(store, n_boot=0)["models"]["fake"]
    # round 4 was never played: a planned round (invalid, with its reason) but no reply, and its forecast was not asked
    assert (doc["n_rows"]["rounds"], doc["invalid"]["rounds"]) == (4, 2)
    assert (doc["n_replies"]["rounds"], doc["invalid_replies"]["rounds"]) == (3, 1)
    assert (doc["n_rows"]["forecasts"], doc["n_replies"]["forecasts"]) == (3, 3)


def test_endowment_ablation_and_plan_errors(tmp_path: Path, fake: type[FakeClient]) -> None:
    """E = 44 reaches prompts and validation; the metrics list both endowments; bad options are InputErrors."""
    from analysis.errors import InputError

    with Store(tmp_path / "s.db") as store:
        run(store, personas=20, attributes=["age"], strategies=["Ctx+$"])
        fake.transfer = staticmethod(lambda s, u: "Amount: $40")
        run_id, _ = run(store, personas=20, attributes=["age"], strategies=["Ctx+$"], endowment=44)
        assert set(store.table(TRANSFERS.name, [run_id])["sent"]) == {40}
        doc = metrics_json(store, n_boot=0)["models"]["fake"]
    assert any("$44" in r.messages[-1][1] and "out of $44" in r.messages[-1][1] for r in fake.requests)
    # two configurations (the endowment changes what is measured): the headline is the latest ($44), the ablation
    # lists every configuration that differs from it in the endowment alone
    assert doc["endowment"] == 44 and set(doc["endowments"]) == {"10", "44"}
    assert [c["differs"] for c in doc["configurations"]["population"]] == [{}, {"endowment": 10}]
    assert doc["endowments"]["44"]["Ctx+$"]["median_spearman"] is None  # everyone sent $40: ρ undefined
    for kwargs, message in [
        ({"level": "both"}, "--level"), ({"conditioning": "maybe"}, "--conditioning"),
        ({"level": "individual", "conditioning": "self"}, "population only"), ({"strategies": ["ctx-x"]}, "unknown strategy"),
        ({"strategies": ["ctx-tr", "Ctx+Tr"]}, "twice"), ({"archetypes": [1, 1]}, "--archetypes"), ({"rounds": 0}, "--rounds"),
        ({"attributes": ["height"]}, "--attributes"), ({"endowment": 0}, "--endowment"), ({"strategies": []}, "at least one"),
    ]:
        with pytest.raises(InputError, match=message):
            build_trust_plan(SPEC, personas=10, **kwargs)
    plan = build_trust_plan(SPEC, strategies=["noctx-tr", "ctx-usd"])
    assert plan.strategies == ["NoCtx+Tr", "Ctx+$"] and len(plan.personas) == 50 and plan.params["temperature"] == 0.05
    assert plan.n_calls() == 2 * 9 + 50  # Table 3's nine attributes (paper set)
    assert build_trust_plan(parse_model_spec("embedded"), personas=10).params["temperature"] == 0.05


def test_stub_population_run_with_transient_faults_matches_clean_run(stub_server, tmp_path: Path) -> None:
    """Over HTTP (the stub): 429/500 faults are retried and every stored row equals the clean run's
    (the stub's sentences carry no amount and no JSON, so every row is invalid with its reason)."""
    from tests.stub_server import FaultRule

    spec = parse_model_spec("stub-model@" + stub_server.url)
    plan = build_trust_plan(spec, personas=20, attributes=["age", "sex"], attribute_set="rolescope15").model_dump()
    fast = RetryPolicy(max_attempts=4, base_delay_s=0.01, max_delay_s=0.05)
    cols = ["strategy", "attribute", "valid", "reason", "raw", "cache_key"]

    def rows(store: Store, run_id: str) -> tuple[pd.DataFrame, pd.DataFrame]:
        b = store.table(BELIEFS.name, [run_id]).sort_values(cols[:2]).reset_index(drop=True)[cols]
        t = store.table(TRANSFERS.name, [run_id]).sort_values("persona_id").reset_index(drop=True)
        return b, t[["persona_id", "valid", "reason", "raw", "cache_key"]]

    with Store(tmp_path / "ref.db") as ref_store:
        methods.create_run(ref_store, "trust", spec, plan, "ref")
        assert methods.execute_run(ref_store, "ref", retry=fast).status == "completed"
        ref_b, ref_t = rows(ref_store, "ref")
    assert len(ref_b) == 6 and len(ref_t) == 4 and not ref_t["valid"].any()
    assert ref_t["reason"].notna().all() and ref_t["raw"].str.startswith("Stub reply").all()
    assert set(ref_b["reason"]) == {"no JSON object in the reply"}
    stub_server.configure([FaultRule("429", modulo=3, residue=0, retry_after=0.01), FaultRule("500", modulo=3, residue=1)])
    with Store(tmp_path / "faulted.db") as store:
        methods.create_run(store, "trust", spec, plan, "faulted")
        summary = methods.execute_run(store, "faulted", retry=fast)
        got_b, got_t = rows(store, "faulted")
    assert (summary.status, summary.failed) == ("completed", 0)
    assert sum(1 for e in stub_server.calls() if e["fault"]) > 0
    pd.testing.assert_frame_equal(got_b, ref_b)
    pd.testing.assert_frame_equal(got_t, ref_t)


def test_endowments_in_one_command(tmp_path: Path, fake: type[FakeClient], capsys: pytest.CaptureFixture) -> None:
    """`run trust --endowments 10,44,100`: three runs, $10 last (the headline), each endowment in its prompts; the
    metrics list the three under 'endowments'; --endowment beside it is refused (exit 2)."""
    from analysis.__main__ import main

    store = tmp_path / "s.db"
    base = ["run", "trust", "--model", "fake@http://127.0.0.1:9/v1", "--store", str(store), "--personas", "20",
            "--attributes", "age", "--strategies", "ctx-tr", "--attribute-set", "rolescope15", "--quiet"]
    fake.transfer = staticmethod(lambda s, u: "Amount: $2")
    assert main([*base, "--endowments", "10,44,100", "--run-id", "abl"]) == 0
    with Store(store, read_only=True) as st:
        runs = st.frame("SELECT run_id FROM runs ORDER BY rowid")["run_id"].tolist()
        (doc,) = metrics_json(st, n_boot=0)["models"].values()
    assert runs == ["abl-e44", "abl-e100", "abl-e10"]
    seen = {e for e in (10, 44, 100) for r in fake.requests if f"from $0 to ${e}" in r.messages[-1][1]}
    assert seen == {10, 44, 100}
    assert doc["endowment"] == 10 and set(doc["endowments"]) == {"10", "44", "100"}
    assert set(doc["endowments"]["44"]["Ctx+Tr"]) >= {"mean_spearman", "median_spearman", "attributes"}
    assert main([*base, "--endowments", "10,44", "--endowment", "44"]) == 2
    assert "drop --endowment" in capsys.readouterr().err


def test_every_paper_table_from_one_command(tmp_path: Path, fake: type[FakeClient], capsys: pytest.CaptureFixture) -> None:
    """`run trust --paper-tables`: the individual level, the population at $44 and $100, then at $10 under self, weak
    and strong conditioning and unconditioned (last: the headline). One store then holds Table 3 (population),
    Table 4 (the four conditionings), Tables 6-8 (individual) and Table 9 (three endowments); repeated belief requests
    come from the call cache. Options it sets are refused beside it (exit 2)."""
    from analysis.__main__ import main

    store = tmp_path / "s.db"
    base = ["run", "trust", "--model", "fake@http://127.0.0.1:9/v1", "--store", str(store), "--personas", "40",
            "--attributes", "age,sex", "--strategies", "ctx-tr", "--attribute-set", "rolescope15", "--rounds", "3",
            "--archetypes", "1,3", "--quiet"]
    assert main([*base, "--paper-tables", "--run-id", "pt"]) == 0
    with Store(store, read_only=True) as st:
        runs = st.frame("SELECT run_id, plan FROM runs ORDER BY rowid")
        n_calls = int(st.frame("SELECT COUNT(*) AS n FROM calls")["n"].iloc[0])
        (doc,) = metrics_json(st, n_boot=0)["models"].values()
    assert runs["run_id"].tolist() == ["pt-individual", "pt-e44", "pt-e100", "pt-self", "pt-weak", "pt-strong", "pt-none"]
    plans = [json.loads(p) for p in runs["plan"]]
    assert [(p["level"], p["endowment"], p["conditioning"]) for p in plans] == [
        ("individual", 10, "none"), ("population", 44, "none"), ("population", 100, "none"), ("population", 10, "self"),
        ("population", 10, "weak"), ("population", 10, "strong"), ("population", 10, "none")]
    assert doc["endowment"] == 10 and set(doc["endowments"]) == {"10", "44", "100"}  # Table 9
    assert doc["population"]["Ctx+Tr"]["median_spearman"] is not None  # Table 3
    assert set(doc["conditioning"]) == {"none", "self", "weak", "strong"}  # Table 4
    assert set(doc["individual"]["archetypes"]) == {"1", "3"}  # Tables 6-8
    beliefs = [r for r in fake.requests if "characteristic" in r.messages[-1][1]]
    assert len({json.dumps(r.messages) for r in beliefs}) == 2 * 3  # 2 attributes x 3 endowments asked once each
    assert len(fake.requests) == n_calls  # nothing asked twice: the $10 runs share their belief calls
    assert main([*base, "--paper-tables", "--conditioning", "weak"]) == 2
    assert "--paper-tables sets" in capsys.readouterr().err


def test_json_answer_format_sends_schemas_and_reads_json(fake: type[FakeClient], tmp_path: Path) -> None:
    """``--answer-format json``: every belief, play and forecast request carries its JSON schema (response_format), the
    prompts ask for the JSON object, and the JSON replies are read as the text ones are. The plan records the format
    (text plans leave it out: stored before the choice existed, they stay one configuration)."""
    fake.transfer = staticmethod(lambda s, u: json.dumps({"thought": "careful", "amount": AGE_SENT[persona_age(s)]}))
    fake.round = staticmethod(lambda s, u: json.dumps(
        {"thought": "step", "send": int(re.search(r"This is round (\d+) of", u).group(1))}))
    with Store(tmp_path / "s.db") as store:
        run_id, plan = run(store, personas=8, attributes=["age"], strategies=["Ctx+Tr"], answer_format="json")
        assert plan.model_dump()["answer_format"] == "json"
        assert "answer_format" not in build_trust_plan(SPEC, personas=8, attribute_set="rolescope15").model_dump()
        transfers = store.frame("SELECT persona_id, sent, valid FROM trust_transfers")
        assert transfers["valid"].all() and set(transfers["sent"]) <= set(AGE_SENT.values())
        run(store, level="individual", personas=2, rounds=2, archetypes=[3], answer_format="json")
        rounds = store.frame("SELECT round, sent, thought, valid FROM trust_rounds")
        assert rounds["valid"].all() and list(rounds.sort_values("round")["sent"].unique()) == [1, 2]
        assert set(rounds["thought"]) == {"step"}
    formats = {json.loads(dict(r.params)["response_format"])["json_schema"]["name"] for r in fake.requests}
    assert formats == {"trust_belief", "trust_amount", "trust_forecast", "trust_round"}
    play = next(r for r in fake.requests if "trust_amount" in dict(r.params)["response_format"])
    assert '"amount": X' in play.messages[-1][1]
    amount_schema = json.loads(dict(play.params)["response_format"])["json_schema"]["schema"]
    assert amount_schema["properties"]["amount"] == {"type": "integer", "minimum": 0, "maximum": 10}


def test_json_answers_refuse_a_bare_number() -> None:
    from analysis.errors import InputError

    with pytest.raises(InputError, match="--answer numeric asks for a bare number"):
        build_trust_plan(SPEC, personas=8, attribute_set="rolescope15", answer="numeric", answer_format="json")
