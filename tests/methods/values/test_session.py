"""The values session with ``--answer-format json`` through create_run/execute_run with a fake LLM client (no network,
no model): the JSON schema rides on every answer request, the answer field is read, a reply without JSON falls back to
the text reader (its reason says so), and JSON runs are a configuration of their own."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from analysis import methods
from analysis.__main__ import build_parser
from analysis.errors import InputError
from analysis.llm.client import ChatReply, ChatRequest
from analysis.llm.specs import ModelSpec
from analysis.methods.options import from_args
from analysis.methods.values.cli import plans_from_args
from analysis.methods.values.families import FAMILY
from analysis.methods.values.options import ValuesOptions
from analysis.methods.values.plan import build_values_plan
from analysis.methods.values.questionnaire import ANSWERS
from analysis.runs import comparable, runner
from analysis.runs.executor import RetryPolicy
from analysis.runs.store import Store
from tests.methods.values.test_plan import tiny_svs

SPEC = ModelSpec(name="fake", backend="custom", model="fake-model", base_url="http://127.0.0.1:9/v1", max_top_logprobs=20)
_LETTERED = re.compile(r"^\(([A-Z])\) (.+)$", re.MULTILINE)
_NUMBERED = re.compile(r"^(\d{1,2})\. ([A-Z][A-Z0-9 ,'-]+?)(?: \(|$)", re.MULTILINE)


class FakeClient:
    """Replies from ``reply(question, request)``; records every request it receives."""

    requests: list[ChatRequest] = []
    reply: Callable[[str, ChatRequest], str] = staticmethod(lambda q, r: "(A)")

    def __init__(self, spec: ModelSpec, api_key: str | None = None, confirmed: tuple[str, ...] = ()):
        self.spec = spec

    async def complete(self, request: ChatRequest) -> ChatReply:
        FakeClient.requests.append(request)
        return ChatReply(text=FakeClient.reply(request.messages[-1][1], request), finish_reason="stop", tokens_in=10,
                         tokens_out=3)

    async def aclose(self) -> None:
        pass


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> type[FakeClient]:
    FakeClient.requests = []
    monkeypatch.setattr(runner, "LLMClient", FakeClient)
    return FakeClient


def run(store: Store, **args) -> str:
    plan = build_values_plan(SPEC, **({"limit_personas": 2, "limit_items": 6} | args))
    run_id = methods.create_run(store, "values", SPEC, plan.model_dump())
    methods.execute_run(store, run_id, concurrency=4, retry=RetryPolicy(max_attempts=1))
    return run_id


def schema_of(request: ChatRequest) -> dict:
    return json.loads(dict(request.params)["response_format"])["json_schema"]


def json_item_reply(question: str, request: ChatRequest) -> str:
    """The option whose label is 'Like me' (found by its label, whatever the permutation), as JSON; a portrait about
    'safe' gets the plain text '(B)', one about 'bored' a letter no option has."""
    letters = dict((label, letter) for letter, label in _LETTERED.findall(question))
    if "feel safe" in question:
        return "I would say (B)."
    if "gets bored" in question:
        return json.dumps({"answer": "Z"})
    return json.dumps({"answer": letters["Like me"]})


def test_json_answers_read_from_the_answer_field(tmp_path: Path, fake: type[FakeClient]) -> None:
    fake.reply = staticmethod(json_item_reply)
    with Store(tmp_path / "s.db") as store:
        run_id = run(store, answer_mode="text", answer_format="json")
        assert store.get_run(run_id)["plan"]["answer_format"] == "json"
        rows = store.table(ANSWERS.name, [run_id])
    for request in fake.requests:
        schema = schema_of(request)
        assert schema["name"] == "values_item"
        assert schema["schema"]["properties"] == {"answer": {"type": "string", "enum": list("ABCDEF")}}
        assert 'Reply with one JSON object only: {"answer": "X"}' in request.messages[-1][1]
        assert dict(request.params)["max_tokens"] == 24  # room for the object around the letter
    by_item = rows.set_index(["persona_id", "item_id"])
    read = rows[rows["raw"].str.startswith("{") & (rows["raw"] != json.dumps({"answer": "Z"}))]
    assert len(read) and set(read["option_label"]) == {"Like me"} and read["valid"].all() and read["reason"].isna().all()
    fallback = rows[rows["raw"] == "I would say (B)."]
    assert len(fallback) and fallback["valid"].all() and set(fallback["letter"]) == {"B"}
    assert set(fallback["reason"]) == {"text fallback: no JSON object in the reply"}
    outside = rows[rows["raw"] == json.dumps({"answer": "Z"})]
    assert len(outside) and not outside["valid"].any()
    assert set(outside["reason"]) == {"\"answer\" 'Z' is not one of the options shown"}
    assert len(read) + len(fallback) + len(outside) == len(by_item) == 12


def test_an_unreadable_reply_says_the_text_reader_also_failed(tmp_path: Path, fake: type[FakeClient]) -> None:
    fake.reply = staticmethod(lambda q, r: "I cannot say.")
    with Store(tmp_path / "s.db") as store:
        rows = store.table(ANSWERS.name, [run(store, answer_mode="text", answer_format="json", limit_items=2)])
    assert not rows["valid"].any()
    assert all(r.startswith("text fallback: no JSON object in the reply; ") for r in rows["reason"])


def test_cot_json_asks_for_the_reasoning_first_and_svs_picks_by_name(tmp_path: Path, fake: type[FakeClient]) -> None:
    """SVS with a chain of thought: items and picks carry their schemas (reasoning, then the answer: a letter, or the
    name of a value shown); a pick is read from its JSON name, the rating after it too."""
    def reply(question: str, request: ChatRequest) -> str:
        schema = schema_of(request)
        assert list(schema["schema"]["properties"]) == ["reasoning", "answer"]
        if schema["name"] == "values_pick":
            names = schema["schema"]["properties"]["answer"]["enum"]
            assert names == [n for _, n in _NUMBERED.findall(question)]
            return json.dumps({"reasoning": "it matters", "answer": names[-1]})
        return json.dumps({"reasoning": "so", "answer": "A"})

    fake.reply = staticmethod(reply)
    svs = tmp_path / "svs.json"
    svs.write_text(tiny_svs(4, 3).model_dump_json())
    with Store(tmp_path / "s.db") as store:
        rows = store.table(ANSWERS.name, [run(store, instrument=svs, answer_mode="cot", answer_format="json",
                                              limit_personas=1, limit_items=None)])
    picks = rows[rows["stage"].str.startswith("svs_pick")]
    assert len(picks) == 4 and picks["valid"].all() and picks["reason"].isna().all()
    assert rows["valid"].all() and set(rows.loc[rows["stage"] == "svs_most", "letter"]) == {"A"}


def test_json_and_text_runs_are_two_configurations(tmp_path: Path, fake: type[FakeClient]) -> None:
    fake.reply = staticmethod(lambda q, r: json.dumps({"answer": "A"}) if "response_format" in dict(r.params) else "(A)")
    with Store(tmp_path / "s.db") as store:
        text = run(store, answer_mode="text")
        structured = run(store, answer_mode="text", answer_format="json")
        assert "answer_format" not in store.get_run(text)["plan"]  # a text plan stays the one stored before the choice
        configs = comparable.configurations(comparable.store_runs(store), FAMILY)["fake"]
    assert [c.run_ids for c in configs] == [(structured,), (text,)]
    assert configs[0].differs_from(configs[1]) == {"answer_format": "json"}


def test_the_flag_and_what_it_refuses() -> None:
    args = build_parser().parse_args(["run", "values", "--model", "embedded", "--answer-format", "json"])
    options = from_args(ValuesOptions, args)
    assert options.answer_format == "json"
    [(_, plan)] = plans_from_args(options.model_copy(update={"limit_personas": 1}), SPEC)
    assert plan["answer_format"] == "json" and plan["answer_mode"] == "text"  # json's default mode: a text reply
    assert from_args(ValuesOptions, build_parser().parse_args(["run", "values", "--model", "embedded"])).answer_format \
        == "text"
    with pytest.raises(InputError, match="--answer-mode logprob reads one token's logprobs"):
        build_values_plan(SPEC, answer_format="json", answer_mode="logprob")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "values", "--model", "embedded", "--answer-format", "yaml"])
