"""Conformance of the trust-game messages and decoding with Mannekote et al. 2025 (the paper's text is the only
specification: its prompt templates were not released, so the structure is checked, and RoleScope's wording is its own).

Mirrors, section by section:
- Sec. 3 and App. B.1 (population role play): the persona as the system message — in the paper's form, App. C.4 / A:
  the test-split traits of Table 5 and the split's Big Five, one "Trait: level" line each — then one user message with
  the Trustor's role, the rules (endowment E, tripled, whole dollars 0..E) and the answer request.
- Table 2 and App. C.1.1–C.1.3 (belief elicitation): an expert system message; NoCtx+Tr without the game, Ctx+Tr with the
  rules and role, both ranking "interpersonal trust" with an η²; Ctx+$ with the rules, mean and SD of dollars per level;
  JSON with the schema written out (App. E: "in-prompt schema definitions").
- App. B.2 (individual ReAct round): persona, rules, round number, the history of actions and observations, THOUGHT
  then ACTION.
- Sec. 5.2, App. C.3 and Tables 6–8 (per-round forecast): before each round, one forecast from a crafted state summary
  (round 1: the game has just started; later: the archetype returned $k after each transfer; rounds remaining), the
  archetype described as in C.3, and the forecast comes before the round it forecasts.
- App. E (decoding): temperature 0.05, top_p 1.0, top_k 0 — top_k only where the endpoint accepts it (the embedded
  llama.cpp server), never to OpenAI's API.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from analysis.llm.client import ChatReply, ChatRequest
from analysis.llm.specs import ModelSpec, parse_model_spec
from analysis import methods
from analysis.runs import runner
from analysis.runs.store import Store
from analysis.methods.trust.plan import build_trust_plan
from analysis.methods.trust.personas import attribute_table

SPEC = ModelSpec(name="fake", backend="custom", model="fake-model", base_url="http://127.0.0.1:9/v1")
TEST_LABELS = [a.label for a in attribute_table("paper", "test").values()]


class Recorder:
    requests: list[ChatRequest] = []

    def __init__(self, spec: ModelSpec, api_key: str | None = None, confirmed: tuple[str, ...] = ()):
        self.spec = spec

    async def complete(self, request: ChatRequest) -> ChatReply:
        Recorder.requests.append(request)
        user = request.messages[-1][1]
        if "characteristic" in user:
            levels = re.findall(r"^- (.+)$", user.split("which takes these values:")[1], re.M)
            text = (json.dumps({"groups": [{"level": lv, "mean": 5, "sd": 1} for lv in levels]}) if '"groups"' in user
                    else json.dumps({"ranking": levels, "effect_size": 0.05}))
        elif '{"send":' in user:
            text = json.dumps({"send": 3, "explanation": "steady"})
        elif "THOUGHT" in user:
            text = "THOUGHT: fine.\nACTION: Send $3"
        else:
            text = "Amount: $3"
        return ChatReply(text=text, finish_reason="stop", tokens_in=1, tokens_out=1)

    async def aclose(self) -> None:
        pass


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[ChatRequest]:
    """One population run (three strategies, two attributes, one persona) and one individual game of 2 rounds vs T_3,
    on the default plans."""
    Recorder.requests = []
    monkeypatch.setattr(runner, "LLMClient", Recorder)
    with Store(tmp_path / "s.db") as store:
        for plan in (build_trust_plan(SPEC, limit_personas=1, attributes=["age", "work_status"]),
                     build_trust_plan(SPEC, level="individual", limit_personas=1, archetypes=[3], rounds=2)):
            run_id = methods.create_run(store, "trust", SPEC, plan.model_dump())
            assert methods.execute_run(store, run_id).status == "completed"
    return Recorder.requests


def _user(req: ChatRequest) -> str:
    return req.messages[-1][1]


def test_role_prompt_is_the_persona_then_the_game(recorded) -> None:
    """B.1: [system: role + persona as its Table 5 test traits, user: Player A, rules, a whole amount 0..10]."""
    (play,) = [r for r in recorded if "play Player A in this game" in _user(r)]
    assert [role for role, _ in play.messages] == ["system", "user"]
    system = play.messages[0][1]
    lines = system.split("Who you are: ")[1].split("\n")
    assert [ln.split(": ")[0] for ln in lines] == TEST_LABELS  # the ten test traits, Big Five of the split included
    assert "Conscientiousness" in system and "Openness To Experience" in system and "Extraversion" not in system
    user = _user(play)
    assert "Player A receives $10" in user and "tripled" in user and "from $0 to $10" in user
    assert user.rstrip().endswith("Amount: $X\nwhere X is a whole number from 0 to 10.")


def test_belief_elicitation_per_strategy(recorded) -> None:
    """Table 2 / C.1: NoCtx+Tr has no game, Ctx+Tr the rules and the role, Ctx+$ mean and SD of dollars; JSON schemas."""
    beliefs = [r for r in recorded if "characteristic" in _user(r)]
    assert len(beliefs) == 3 * 2 and all([role for role, _ in r.messages] == ["system", "user"] for r in beliefs)
    assert {r.messages[0][1] for r in beliefs} == {"You are an expert in social and behavioural science."}
    work = [_user(r) for r in beliefs if '"Work Status"' in _user(r)]
    noctx, ctx_tr, ctx_usd = (next(u for u in work if cond(u)) for cond in (
        lambda u: "game" not in u, lambda u: "game" in u and '"ranking"' in u, lambda u: '"groups"' in u))
    assert "interpersonal trust" in noctx and "Player A receives" not in noctx and "eta squared" in noctx
    assert "Player A receives $10" in ctx_tr and "you will play Player A" in ctx_tr and "interpersonal trust" in ctx_tr
    assert "mean and the standard deviation of the dollars (out of $10)" in ctx_usd and "Player A receives $10" in ctx_usd
    for u in work:  # the test-split levels of work status (Table 5), one per line
        assert re.findall(r"^- (.+)$", u.split("which takes these values:")[1], re.M)[:4] == [
            "In school", "Keeping house", "Retired", "Other"]


def test_one_round_and_its_per_round_forecast(recorded) -> None:
    """Sec. 5.2 / B.2 / C.3: forecast 1, round 1, forecast 2, round 2; the forecast states the archetype and the crafted
    state; round 2 shows round 1's action and observation and asks THOUGHT then ACTION."""
    game = [r for r in recorded if "rounds of this game" in _user(r)]
    kinds = ["forecast" if '{"send":' in _user(r) else "round" for r in game]
    assert kinds == ["forecast", "round", "forecast", "round"]
    f1, r1, f2, r2 = (_user(r) for r in game)
    assert all([role for role, _ in r.messages] == ["system", "user"] for r in game)
    assert "Player B follows a fixed rule: after every round Player B returns $3 to Player A, or everything Player B " \
           "received if that is less than $3, no matter how much was sent." in f1
    assert "The game has just started: there is no history of the other player's behaviour yet. This is round 1 of 2" in f1
    assert "1 round has been played. The other player has returned $3 after each transfer" in f2
    assert "The other player has returned $3 after each transfer" in f2 and "1 round remains, this one included." in f2
    assert "This is the first round; nothing has happened yet." in r1 and "THOUGHT: <your reasoning" in r1
    assert "Round 1. ACTION: Send $3. OBSERVATION: Player B received $9 and returned $3" in r2
    assert r2.rstrip().endswith("where X is a whole number from 0 to 10.") and "ACTION: Send $X" in r2


def test_decoding_follows_appendix_e(recorded) -> None:
    """App. E: temperature 0.05, top_p 1.0 on every call; top_k 0 on the embedded llama.cpp server only."""
    for r in recorded:
        params = dict(r.params)
        assert (params["temperature"], params["top_p"]) == (0.05, 1.0) and "top_k" not in params  # a custom endpoint
    embedded = build_trust_plan(parse_model_spec("embedded"), limit_personas=1)
    assert embedded.params == {"temperature": 0.05, "top_p": 1.0, "top_k": 0}
    sent = ChatRequest.build([{"role": "user", "content": "x"}], embedded.request_params("action", "embedded")).param_dict
    assert sent["top_k"] == 0 and sent["cache_prompt"] is False
    openai = build_trust_plan(parse_model_spec("openai:gpt-4o-mini"), limit_personas=1)
    assert "top_k" not in openai.params and openai.params["top_p"] == 1.0


def test_numeric_answer_option(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--answer numeric (App. E's bare numeric answer): recorded in the plan, asked in the role prompt, parsed as the
    reply's first integer."""
    from analysis.methods.trust.tables import TRANSFERS

    Recorder.requests = []
    monkeypatch.setattr(runner, "LLMClient", Recorder)
    with Store(tmp_path / "s.db") as store:
        plan = build_trust_plan(SPEC, limit_personas=2, attributes=["age"], strategies=["Ctx+Tr"], answer="numeric")
        run_id = methods.create_run(store, "trust", SPEC, plan.model_dump())
        methods.execute_run(store, run_id)
        rows = store.table(TRANSFERS.name, [run_id])
    assert plan.answer == "numeric" and set(rows["extraction"]) == {"first integer"} and set(rows["sent"]) == {3}
    play = [_user(r) for r in Recorder.requests if "play Player A in this game" in _user(r)]
    assert len(play) == 2 and all(u.endswith("a single whole number of dollars from 0 to 10 and nothing else.") for u in play)
