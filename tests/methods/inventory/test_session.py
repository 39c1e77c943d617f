"""The inventory session through create_run/execute_run with a fake LLM client (no network, no model): one
independent single-message call per persona × item × order, the number read through the order, failed calls and
unreadable replies stored invalid with their reason, and the paper's prompt structure."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from analysis import methods
from analysis.errors import InputError
from analysis.llm.client import CallError, ChatReply, ChatRequest
from analysis.llm.specs import ModelSpec
from analysis.methods.inventory.options import InventoryOptions
from analysis.methods.inventory.plan import build_plan
from analysis.methods.inventory.session import ANSWERS
from analysis.runs import runner
from analysis.runs.executor import RetryPolicy
from analysis.runs.store import Store

SPEC = ModelSpec(name="fake", backend="custom", model="fake-model", base_url="http://127.0.0.1:9/v1", max_top_logprobs=20)


class FakeClient:
    """Rates every item by the persona's target: "extremely extraverted" -> 5 on the shown scale meaning
    'very accurate', else the middle; items about 'fail' raise; items about abstract ideas get an unreadable reply."""

    requests: list[ChatRequest] = []

    def __init__(self, spec: ModelSpec, api_key: str | None = None, confirmed: tuple[str, ...] = ()):
        self.spec = spec

    async def complete(self, request: ChatRequest) -> ChatReply:
        FakeClient.requests.append(request)
        text = request.messages[-1][1]
        if "bore me" in text:
            raise CallError("HTTP 500 from the stub", retryable=False)
        descending = '1 = "very accurate"' in text
        accurate = "extremely extraverted" in text and "centre of attention" in text
        number = (1 if descending else 5) if accurate else 3
        reply = "I like turtles." if "abstract ideas" in text else f"{number} - " + ("very accurate" if accurate else
                                                                                   "neither accurate nor inaccurate")
        if "response_format" in dict(request.params):
            reply = json_reply(text, number, reply)
        top = [{str(number): -0.1, "I": -2.0}] if dict(request.params).get("logprobs") else None
        return ChatReply(text=reply, finish_reason="stop", top_logprobs=top, tokens_in=10, tokens_out=3)

    async def aclose(self) -> None:
        pass


def json_reply(text: str, number: int, reply: str) -> str:
    """With the JSON schema sent: the number as JSON, except for a few items: 'help people' gets a text reply (no
    JSON), 'proper place' a number off the scale, 'harsh things' the label 'Moderately accurate' (4 ascending, 2
    descending); 'abstract ideas' stays unreadable."""
    if "abstract ideas" in text or "help people" in text:
        return reply if "abstract ideas" in text else f"My answer: {number}"
    if "proper place" in text:
        return json.dumps({"answer": 7})
    if "harsh things" in text:
        return json.dumps({"answer": "Moderately accurate"})
    return json.dumps({"answer": number})


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> type[FakeClient]:
    FakeClient.requests = []
    monkeypatch.setattr(runner, "LLMClient", FakeClient)
    return FakeClient


def run(store: Store, **options) -> str:
    plan = build_plan(InventoryOptions(inventory="rolescope-mini", **options), SPEC)
    run_id = methods.create_run(store, "inventory", SPEC, plan.model_dump())
    methods.execute_run(store, run_id, concurrency=4, retry=RetryPolicy(max_attempts=1))
    return run_id


@pytest.mark.parametrize("mode", ["text", "logprob"])
def test_each_item_is_one_call_read_through_its_order(tmp_path: Path, fake, mode: str) -> None:
    with Store(tmp_path / "s.db") as store:
        run_id = run(store, domains=["E"], levels=[1, 9], biographies=1, answer_mode=mode)
        df = store.table(ANSWERS.name, [run_id])
    assert len(df) == len(fake.requests) == 2 * 20 * 2  # personas × items × orders
    assert all(len(r.messages) == 1 and r.messages[0][0] == "user" for r in fake.requests)
    first = df[(df["persona_id"] == "b1-E9") & (df["item_id"] == "m1")].set_index("order_mode")
    # "I enjoy being the centre of attention": 5 ascending and 1 descending both mean "Very accurate"
    assert list(first.loc[["ascending", "descending"], "number"]) == [5, 1]
    assert set(first["option"]) == {"Very accurate"} and set(first["keyed"]) == {5.0}
    low = df[(df["persona_id"] == "b1-E1") & (df["item_id"] == "m1")]
    assert set(low["keyed"]) == {3.0}


def test_the_prompt_is_the_papers(tmp_path: Path, fake) -> None:
    with Store(tmp_path / "s.db") as store:
        run(store, domains=["E"], levels=[9], biographies=1, limit_items=1, order="ascending")
    (text,) = [r.messages[0][1] for r in fake.requests]
    assert text.startswith('For the following task, respond in a way that matches this description: "I am a 34-year-old')
    assert "I'm extremely extraverted, extremely talkative and extremely bold.\"" in text
    assert re.search(r'Considering the statement, "I enjoy being the centre of attention at a gathering", please rate '
                     r'how accurately this describes you on a scale from 1 to 5 \(where 1 = "very inaccurate", .* and '
                     r'5 = "very accurate"\):$', text)


def test_failed_and_unreadable_replies_are_stored_invalid(tmp_path: Path, fake) -> None:
    with Store(tmp_path / "s.db") as store:
        run_id = run(store, domains=["O"], levels=[5], biographies=1, answer_mode="text")
        df = store.table(ANSWERS.name, [run_id]).set_index("item_id")
    failed = df.loc[df["item"].str.contains("bore me")]
    assert (failed["valid"] == 0).all() and failed["reason"].str.startswith("call failed").all()
    garbled = df.loc[df["item"].str.contains("abstract ideas")]
    assert (garbled["valid"] == 0).all() and (garbled["raw"] == "I like turtles.").all()
    assert garbled["number"].isna().all() and garbled["reason"].notna().all()
    assert (df.loc[~df["item"].str.contains("bore me|abstract ideas"), "valid"] == 1).all()


def test_plan_errors_say_what(fake) -> None:
    with pytest.raises(InputError, match="--levels"):
        build_plan(InventoryOptions(inventory="rolescope-mini", levels=[0]), SPEC)
    with pytest.raises(InputError, match="--domains"):
        build_plan(InventoryOptions(inventory="rolescope-mini", domains=["X"]), SPEC)
    with pytest.raises(InputError, match="--persona-ids"):
        build_plan(InventoryOptions(inventory="rolescope-mini", persona_ids=["nobody"]), SPEC)
    small = SPEC.model_copy(update={"max_top_logprobs": 3})
    with pytest.raises(InputError, match="top logprobs"):
        build_plan(InventoryOptions(inventory="rolescope-mini"), small)
    plan = build_plan(InventoryOptions(inventory="rolescope-mini", personas=4), SPEC)
    assert [p.id for p in plan.personas] == ["b1-E1", "b1-A1", "b1-C1", "b1-N1"] and plan.n_calls() == 4 * 20 * 2


def test_json_answers(tmp_path: Path, fake) -> None:
    """``--answer-format json``: every request carries the rating schema (a whole number 1-5) and asks for the object;
    the answer field is read through the order (a number, or a label of the scale); a reply without JSON is read by the
    text reader, its reason saying so; a number off the scale is invalid; JSON and text runs are two configurations."""
    from analysis.methods.inventory.families import FAMILY
    from analysis.runs import comparable

    with Store(tmp_path / "s.db") as store:
        structured = run(store, domains=["E"], levels=[9], biographies=1, answer_mode="text", answer_format="json")
        df = store.table(ANSWERS.name, [structured]).set_index(["item_id", "order_mode"])
        assert store.get_run(structured)["plan"]["answer_format"] == "json"
        text = run(store, domains=["E"], levels=[9], biographies=1, answer_mode="text")
        assert "answer_format" not in store.get_run(text)["plan"]
        configs = comparable.configurations(comparable.store_runs(store), FAMILY)["fake"]
    asked = [r for r in fake.requests if "response_format" in dict(r.params)]
    assert len(asked) == len(df) == 20 * 2
    for request in asked:
        schema = json.loads(dict(request.params)["response_format"])["json_schema"]
        assert schema["name"] == "inventory_rating"
        assert schema["schema"]["properties"] == {"answer": {"type": "integer", "minimum": 1, "maximum": 5}}
        assert request.messages[0][1].endswith('Reply with one JSON object only: {"answer": N}, where N is your rating '
                                               "from 1 to 5.")
    assert list(df.loc[[("m1", "ascending"), ("m1", "descending")], "option"]) == ["Very accurate"] * 2
    harsh = next(i for i in df.index.get_level_values(0) if "harsh" in df.loc[(i, "ascending"), "item"])
    assert list(df.loc[[(harsh, "ascending"), (harsh, "descending")], "number"]) == [4, 2]
    json_read = df[df["raw"].str.startswith("{") & df["valid"].astype(bool)]
    assert len(json_read) == 2 * 16 and json_read["reason"].isna().all()  # 20 items less four: no JSON (2), off the scale, a failed call
    helps = df[df["item"].str.contains("help people")]
    assert helps["valid"].all() and set(helps["reason"]) == {"text fallback: no JSON object in the reply"}
    abstract = df[df["item"].str.contains("abstract ideas")]
    assert not abstract["valid"].any()
    assert all(r.startswith("text fallback: no JSON object in the reply; ") for r in abstract["reason"])
    place = df[df["item"].str.contains("proper place")]
    assert not place["valid"].any() and set(place["reason"]) == {'"answer" 7 is not on the scale 1-5'}
    assert [c.run_ids for c in configs] == [(text,), (structured,)]
    assert configs[1].differs_from(configs[0]) == {"answer_format": "json"}


def test_json_answers_need_text_mode_and_the_flag_parses(fake) -> None:
    from analysis.__main__ import build_parser
    from analysis.methods.inventory.plan import plan_from_args

    with pytest.raises(InputError, match="--answer-mode logprob reads one token's logprobs"):
        build_plan(InventoryOptions(inventory="rolescope-mini", answer_format="json"), SPEC)
    args = build_parser().parse_args(["run", "inventory", "--model", "embedded", "--inventory", "rolescope-mini",
                                      "--answer-mode", "text", "--answer-format", "json"])
    assert plan_from_args(args, SPEC)["answer_format"] == "json"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "inventory", "--model", "embedded", "--answer-format", "csv"])
