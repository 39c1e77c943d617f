"""Conformance with the Stick to Your Role! reference protocol: the requests RoleScope sends, message by message.

Reference: github.com/flowersteam/value_stability at e3dd748 (the leaderboard code):

- ``evaluate.py`` l. 212-320 (``eval``): the conversation is simulated once per persona and context, then every
  PVQ item is asked as a NEW user message after it (``models/utils.py`` l. 33-64, ``construct_messages``:
  persona string as the system message, the conversation, then ``questionnaire_description + item_str``);
- ``simulate_conversation_utils.py`` l. 103-215 (``simulate_conversation``): ``n_msgs`` generated messages after
  the opening, persona first and last (assert odd); the persona sees "You are {description}" as its system
  message; the interlocutor sees the opening as its own message, after an empty user message
  (``models/utils.py`` l. 16-30, ``fix_alternating_msg_order``), and a one-sentence instruction;
- ``models/leaderboard_configs/*.json``: conversation turns at temperature 0.7 with ``max_tokens`` 100;
  ``models/vllmmodel.py`` l. 55-100 (``predict``): answers at temperature 0, 10 tokens, or 2000 with ``cot``;
- ``Leaderboard/run_scripts/run_stability_leaderboard.sh`` l. 34-79: chess and grammar use interlocutor files,
  ``interlocutors/real_world_people/generate_interlocutor_chunks.py``: random derangements of the population;
- ``svs_utils.py`` l. 96-256 and ``evaluate.py`` l. 262-350: per list, pick the most important value and rate it,
  pick the most opposed among the REMAINING values and rate it, then rate the rest one after another, every
  exchange kept in the history ("Now, rate the rest of the values." before the first).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from analysis.llm.specs import parse_model_spec
from analysis.runs.executor import RetryPolicy
from analysis.methods import create_run, execute_run
from analysis.runs.store import Store
from analysis.methods.values.plan import build_values_plan
from analysis.methods.values.prompts import REST_OF_LIST
from tests.stub_server import StubServer

ANCHORS = Path(__file__).resolve().parents[3].parent / "shared/anchors/stick_to_your_role"
SVS_DIR = ANCHORS / "data/data_svs"
CHUNK = ANCHORS / "contexts/leaderboard_reddit_chunks/chunk_0.jsonl"
FAST = RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.02)


def _requests(stub_server: StubServer, tmp_path: Path, **plan_args: Any) -> tuple[Any, list[dict[str, Any]]]:
    """Run a plan on the stub; return it and every request sent, in the order the store recorded them."""
    spec = parse_model_spec("stub-model@" + stub_server.url)
    plan = build_values_plan(spec, **plan_args)
    with Store(tmp_path / "conf.db") as store:
        create_run(store, "values", spec, plan.model_dump(), "conf")
        summary = execute_run(store, "conf", concurrency=1, retry=FAST)
        assert summary.failed == 0
        requests = [json.loads(r) for r in store.frame("SELECT request FROM calls ORDER BY rowid").request]
    return plan, requests


def _roles(request: dict[str, Any]) -> list[str]:
    return [m["role"] for m in request["messages"]]


def _is_item(request: dict[str, Any]) -> bool:
    return "where X is the letter" in request["messages"][-1]["content"]


def test_no_conv_item_is_one_user_message_after_the_persona(stub_server: StubServer, tmp_path: Path) -> None:
    """no_conv: [system "You are {description}", user: instructions + item + "(A) ..." options + "(X)" request];
    decoding: temperature 0, "(" then the letter (2 tokens) with logprobs."""
    plan, requests = _requests(stub_server, tmp_path, limit_personas=1, limit_items=2)
    persona = plan.personas[0]
    assert len(requests) == 2
    for req in requests:
        assert _roles(req) == ["system", "user"]
        assert req["messages"][0]["content"] == f"You are {persona.description}"
        question = req["messages"][1]["content"]
        assert question.startswith(plan.instrument.instructions) and "\n(A) " in question and "\n(F) " in question
        assert req["params"] | {"cache_prompt": None} == {"temperature": 0.0, "max_tokens": 2, "logprobs": True,
                                                          "top_logprobs": plan.top_logprobs, "cache_prompt": None}


@pytest.mark.parametrize(("mode", "max_tokens"), [("text", 10), ("cot", 2000)])
def test_answer_modes_decode_at_temperature_zero(stub_server: StubServer, tmp_path: Path, mode: str, max_tokens: int) -> None:
    """Every answer mode at temperature 0: "(X)" in 10 tokens, or reasoning then "Answer: (X)" in 2000 tokens."""
    _, requests = _requests(stub_server, tmp_path, limit_personas=1, limit_items=1, answer_mode=mode)
    (req,) = requests
    assert {k: v for k, v in req["params"].items() if k != "cache_prompt"} == {"temperature": 0.0, "max_tokens": max_tokens}
    assert ('"Answer: (X)"' in req["messages"][-1]["content"]) == (mode == "cot")


@pytest.mark.skipif(not CHUNK.is_file(), reason=f"reference chunk not found at {CHUNK}")
def test_chunk_context_three_messages_then_item_as_new_user_message(stub_server: StubServer, tmp_path: Path) -> None:
    """A reference Reddit chunk, n_msgs = 3: persona, interlocutor (a human user), persona; each at temperature 0.7,
    100 tokens; then the item as a sixth message, a new user message after the persona's last turn."""
    plan, requests = _requests(stub_server, tmp_path, limit_personas=1, limit_items=1, contexts=[str(CHUNK)])
    persona = plan.personas[0]
    opening = json.loads(CHUNK.read_text(encoding="utf-8").splitlines()[0])["content"]
    turns = [r for r in requests if not _is_item(r)]
    (item,) = [r for r in requests if _is_item(r)]
    assert len(turns) == 3
    p1, i1, p2 = turns
    assert _roles(p1) == ["system", "user"] and p1["messages"][1]["content"] == opening
    assert p1["messages"][0]["content"] == f"You are {persona.description}"
    assert _roles(i1) == ["system", "user", "assistant", "user"]
    assert i1["messages"][1]["content"] == "" and i1["messages"][2]["content"] == opening
    assert "human" in i1["messages"][0]["content"] and "one sentence" in i1["messages"][0]["content"]
    assert _roles(p2) == ["system", "user", "assistant", "user"]
    assert _roles(item) == ["system", "user", "assistant", "user", "assistant", "user"]
    # the item's history is the persona's view of the conversation, the persona speaking last
    assert item["messages"][:4] == p2["messages"]
    for turn in turns:
        assert {k: v for k, v in turn["params"].items() if k not in ("cache_prompt", "seed")} == {
            "temperature": 0.7, "max_tokens": 100}


def test_chess_interlocutor_is_another_persona_of_a_derangement(stub_server: StubServer, tmp_path: Path) -> None:
    """chess: every persona opens "1. e4" and talks with the persona the plan's seeded derangement gives it, never
    itself; the interlocutor's system message is that persona."""
    plan, requests = _requests(stub_server, tmp_path, limit_personas=3, limit_items=1, contexts=["chess"])
    (chess,) = plan.contexts
    partners = {p.id: q for p, q in zip(plan.personas, chess.partners)}
    assert all(p.id != q.id for p, q in zip(plan.personas, chess.partners))
    interlocutor_turns = [r for r in requests if _roles(r) == ["system", "user", "assistant", "user"]
                          and r["messages"][1]["content"] == ""]
    assert len(interlocutor_turns) == 3
    systems = {r["messages"][0]["content"] for r in interlocutor_turns}
    assert systems == {f"You are simulating {q.description} Every reply you write is one sentence long."
                       for q in partners.values()}


def test_without_system_role_the_persona_is_a_user_message_answered_ok(stub_server: StubServer, tmp_path: Path) -> None:
    """``system_message: false`` (reference ``fix_alternating_msg_order``): [user persona, assistant "OK", user item]."""
    plan, requests = _requests(stub_server, tmp_path, limit_personas=1, limit_items=1, system_role=False)
    (req,) = requests
    assert _roles(req) == ["user", "assistant", "user"]
    assert req["messages"][0]["content"] == f"You are {plan.personas[0].description}" and req["messages"][1]["content"] == "OK"


@pytest.mark.skipif(not SVS_DIR.is_dir(), reason=f"reference SVS not found at {SVS_DIR}")
def test_svs_full_sequence(stub_server: StubServer, tmp_path: Path) -> None:
    """The reference SVS, no_conv: per list 2 picks + every item, each request extending the previous one's history
    by its question and answer; the 'least' pick lists the values without the first pick; the rest are rated one
    after another, the first after "Now, rate the rest of the values."."""
    plan, requests = _requests(stub_server, tmp_path, limit_personas=1, instrument=str(SVS_DIR))
    lists = {n: [i for i in plan.instrument.items if i.list_no == n] for n in (1, 2)}
    assert len(requests) == sum(len(v) + 2 for v in lists.values()) == 61
    for n, items in lists.items():
        chain = [r for r in requests if f"VALUES LIST {'I' * n}\n" in r["messages"][1]["content"]]
        assert len(chain) == len(items) + 2
        chain.sort(key=lambda r: len(r["messages"]))
        # one conversation: every request is the previous one + its answer + a new user question
        for before, after in zip(chain, chain[1:]):
            assert after["messages"][:len(before["messages"])] == before["messages"]
            assert len(after["messages"]) == len(before["messages"]) + 2
            assert _roles(after)[-2:] == ["assistant", "user"]
        pick_most, rate_most, pick_least, rate_least, *rest = chain
        n_listed = lambda r: len(re.findall(r"^\d{1,2}\. ", r["messages"][-1]["content"], re.MULTILINE))  # noqa: E731
        assert n_listed(pick_most) == len(items) and n_listed(pick_least) == len(items) - 1
        assert rate_most["messages"][-1]["content"].startswith("You chose ")
        assert rate_least["messages"][-1]["content"].startswith("You chose ")
        assert rest[0]["messages"][-1]["content"].startswith(REST_OF_LIST)
        assert not any(r["messages"][-1]["content"].startswith(REST_OF_LIST) for r in rest[1:])
        assert all(r["params"]["temperature"] == 0.0 for r in chain)
