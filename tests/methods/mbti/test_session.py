"""The MBTI session through create_run/execute_run with a fake LLM client (no network, no model)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from analysis.errors import InputError
from analysis.llm.client import CallError, ChatReply, ChatRequest
from analysis.llm.specs import ModelSpec, parse_model_spec
from analysis.methods.mbti import OPTIONS
from analysis.methods.mbti.report import metrics_json
from analysis.methods.mbti.plan import EMBEDDED_HISTORY, build_mbti_plan
from analysis.methods.mbti.parse import listed_options
from analysis.methods.mbti.session import ANSWERS
from analysis import methods
from analysis.runs import runner
from analysis.runs.executor import RetryPolicy
from analysis.runs.store import Store

SPEC = ModelSpec(name="fake", backend="custom", model="fake-model", base_url="http://127.0.0.1:9/v1", max_top_logprobs=20)


class FakeClient:
    """Replies from ``answer(question, request)``; records every request it receives."""

    requests: list[ChatRequest] = []
    answer: Callable[[str, ChatRequest], str] = staticmethod(lambda q, r: "Generally correct.")

    def __init__(self, spec: ModelSpec, api_key: str | None = None, confirmed: tuple[str, ...] = ()):
        self.spec = spec

    async def complete(self, request: ChatRequest) -> ChatReply:
        FakeClient.requests.append(request)
        question = request.messages[-1][1]
        text = FakeClient.answer(question, request)
        top = None
        if dict(request.params).get("logprobs"):
            top = [{" " + text: -0.2, "The": -1.0, "B": -2.5}]
        limit, finish = dict(request.params).get("max_tokens"), "stop"
        if limit is not None and len(text.split()) > limit:  # one word per token: cut at the limit, as a server does
            text, finish = " ".join(text.split()[:limit]), "length"
        return ChatReply(text=text, finish_reason=finish, top_logprobs=top, tokens_in=10, tokens_out=3)

    async def aclose(self) -> None:
        pass


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> type[FakeClient]:
    FakeClient.requests = []
    FakeClient.answer = staticmethod(lambda q, r: "Generally correct.")
    monkeypatch.setattr(runner, "LLMClient", FakeClient)
    return FakeClient


def run(store: Store, **options) -> str:
    plan = build_mbti_plan(SPEC, **options)
    run_id = methods.create_run(store, "mbti", SPEC, plan.model_dump())
    methods.execute_run(store, run_id, concurrency=4, retry=RetryPolicy(max_attempts=1))
    return run_id


def statement_of(question: str) -> str:
    return re.search(r"Statement: (.*?)(?:\n|$)", question).group(1)


def test_one_conversation_per_testing(tmp_path: Path, fake: type[FakeClient]) -> None:
    """Each testing is one conversation: question k carries the k-1 previous questions and answers, in order."""
    with Store(tmp_path / "s.db") as store:
        run_id = run(store, subjects=["Men", "Women"], testings=2, limit_statements=4)
        df = store.table(ANSWERS.name, [run_id])
    assert len(df) == 2 * 2 * 4 and len(fake.requests) == 16
    men0 = [r for r in fake.requests if r.sample == 0 and statement_of(r.messages[-1][1]).startswith("Men")]
    men0.sort(key=lambda r: len(r.messages))
    assert [len(r.messages) for r in men0] == [1, 3, 5, 7]
    last = men0[-1].messages
    assert [role for role, _ in last] == ["user", "assistant"] * 3 + ["user"]
    assert [statement_of(q) for role, q in last if role == "user"] == [
        "Men feel energized after an evening in a crowded room full of people they have just met.",
        "Men prefer concrete, step-by-step instructions to ones that only give the big picture.",
        "Men make important decisions by weighing facts rather than feelings.",
        "Men enjoy deciding what to do on the spur of the moment.",
    ]
    assert all(content == "Generally correct." for role, content in last if role == "assistant")
    assert set(df["valid"]) == {1} and set(df["option"]) == {"Generally correct"}
    assert sorted(set(df["testing"])) == [0, 1] and df["cache_key"].nunique() == 16  # testings never share a call


def test_shown_order_is_the_stored_order(tmp_path: Path, fake: type[FakeClient]) -> None:
    """The option order in each question equals the stored option_order; permutations vary, fixed is canonical."""
    with Store(tmp_path / "s.db") as store:
        run_id = run(store, subjects=["Boys"], testings=3, limit_statements=5, order="both")
        df = store.table(ANSWERS.name, [run_id])
    shown = {r.cache_key(SPEC.identity): listed_options(r.messages[-1][1].split("?")[0]) for r in fake.requests}
    assert len(shown) == len(df) == 2 * 3 * 5
    for row in df.itertuples():
        assert json.loads(row.option_order) == shown[row.cache_key]
        if row.order_mode == "fixed":
            assert json.loads(row.option_order) == list(range(7))
    permuted = df[df["order_mode"] == "permuted"]
    orders = {tuple(json.loads(o)) for o in permuted["option_order"]}
    assert len(orders) >= 13 and all(sorted(o) == list(range(7)) for o in orders)  # 15 draws of 5040
    assert permuted["perm_seed"].notna().all() and df[df["order_mode"] == "fixed"]["perm_seed"].isna().all()


def test_invalid_replies_do_not_shift_answers(tmp_path: Path, fake: type[FakeClient]) -> None:
    """A refusal is stored invalid with its raw text; the next statements keep their own answers."""
    def answer(question: str, request: ChatRequest) -> str:
        s = statement_of(question)
        if "step-by-step" in s:
            return "As an AI language model, I cannot generalize about people."
        return "Wrong." if "spur of the moment" in s else "Partially correct."

    fake.answer = staticmethod(answer)
    with Store(tmp_path / "s.db") as store:
        run_id = run(store, subjects=["People"], testings=1, limit_statements=5)
        df = store.table(ANSWERS.name, [run_id]).sort_values("seq")
        doc = metrics_json(store)
    assert list(df["valid"]) == [1, 0, 1, 1, 1]
    assert df.iloc[1]["reason"] == "no option named" and df.iloc[1]["raw"].startswith("As an AI")
    assert list(df["option"].fillna("-")) == ["Partially correct", "-", "Partially correct", "Wrong", "Partially correct"]
    people = doc["models"]["fake"]["subjects"]["People"]
    # E: item 1 (+) Partially correct -> +1 -> 50 + 50/3; N: only item 2, invalid -> null; J: item 4 (-) Wrong -> +3 -> 100
    assert people["scores"]["E"] == pytest.approx(50 + 50 / 3, abs=1e-6)
    assert people["scores"]["N"] is None and people["scores"]["J"] == 100.0
    assert people["invalid"] == 1 and people["n_testings"] == 1 and people["consistency"] is None  # one testing


def test_logprob_mode_maps_letters_through_the_order(tmp_path: Path, fake: type[FakeClient]) -> None:
    """The argmax letter is mapped through the shown order; the history holds 'C. <option>'."""
    fake.answer = staticmethod(lambda q, r: "C")
    with Store(tmp_path / "s.db") as store:
        run_id = run(store, subjects=["Girls"], testings=2, limit_statements=3, answer_mode="logprob")
        df = store.table(ANSWERS.name, [run_id])
    assert set(df["letter"]) == {"C"} and set(df["valid"]) == {1}
    for row in df.itertuples():
        assert row.option_index == json.loads(row.option_order)[2] and row.option == OPTIONS[row.option_index]
        assert row.logprob == pytest.approx(-0.2)
    params = dict(fake.requests[0].params)
    assert (params["max_tokens"], params["temperature"], params["logprobs"], params["top_logprobs"]) == (1, 0.0, True, 20)
    longest = max(fake.requests, key=lambda r: len(r.messages))
    assert longest.messages[1][1] in {f"C. {label}" for label in OPTIONS}


def test_failed_call_stops_its_testing_and_resume_completes_it(tmp_path: Path, fake: type[FakeClient]) -> None:
    """A permanently failing call: that testing's later statements are 'not asked'; the other testing is whole.
    Resume pays only the missing calls and completes every answer."""
    def failing(question: str, request: ChatRequest) -> str:
        if request.sample == 1 and "weighing facts" in question:
            raise CallError("HTTP 400: context too long", retryable=False, status=400)
        return "Correct."

    fake.answer = staticmethod(failing)
    with Store(tmp_path / "s.db") as store:
        run_id = run(store, subjects=["Men"], testings=2, limit_statements=5)
        df = store.table(ANSWERS.name, [run_id]).sort_values(["testing", "seq"])
        t1 = df[df["testing"] == 1]
        assert list(t1["valid"]) == [1, 1, 0, 0, 0]
        assert t1.iloc[2]["reason"].startswith("call failed: HTTP 400")
        assert list(t1["reason"].iloc[3:]) == ["not asked: statement 3 failed"] * 2
        assert set(df[df["testing"] == 0]["valid"]) == {1}
        assert store.get_run(run_id)["status"] == "completed_with_failures"
        n_before = len(fake.requests)
        fake.answer = staticmethod(lambda q, r: "Correct.")
        summary = methods.execute_run(store, run_id)
        assert summary.cached == 7 and len(fake.requests) - n_before == 3
        assert set(store.table(ANSWERS.name, [run_id])["valid"]) == {1}
        assert store.get_run(run_id)["status"] == "completed"


def test_history_window(tmp_path: Path, fake: type[FakeClient]) -> None:
    """history=1 keeps only the previous exchange; history=0 asks every statement alone."""
    with Store(tmp_path / "s.db") as store:
        run(store, subjects=["Men"], testings=1, limit_statements=4, history=1)
        assert sorted(len(r.messages) for r in fake.requests) == [1, 3, 3, 3]
        fake.requests.clear()
        run(store, subjects=["Men"], testings=1, limit_statements=3, history=0, seed=1)  # seed 1: no cache hits
        assert [len(r.messages) for r in fake.requests] == [1, 1, 1]


def test_plan_options_and_errors() -> None:
    """Defaults (15 testings, 5 subjects, permuted, text), call counts, embedded history, and refused inputs."""
    plan = build_mbti_plan(SPEC)
    assert (plan.testings, [s.name for s in plan.subjects], plan.orders, plan.answer_mode, plan.history) == (
        15, ["People", "Men", "Women", "Boys", "Girls"], ["permuted"], "text", None)
    assert plan.n_calls() == 5 * 15 * 60
    assert build_mbti_plan(SPEC, order="both", testings=2, subjects=["Men"]).n_calls() == 2 * 2 * 60
    assert build_mbti_plan(parse_model_spec("embedded")).history == EMBEDDED_HISTORY
    for kwargs, message in [
        ({"subjects": ["Men", "men"]}, "twice"), ({"testings": 0}, "testings"), ({"order": "random"}, "order"),
        ({"limit_statements": 0}, "limit-statements"), ({"subjects": [" "]}, "at least one subject"),
    ]:
        with pytest.raises(InputError, match=message):
            build_mbti_plan(SPEC, **kwargs)
    small = SPEC.model_copy(update={"max_top_logprobs": 5})
    with pytest.raises(InputError, match="answer-mode text"):
        build_mbti_plan(small, answer_mode="logprob")


def test_stub_run_with_transient_faults_matches_clean_run(stub_server, tmp_path: Path) -> None:
    """Over HTTP (the stub), logprob mode: transient 429/500 faults are retried and every answer equals the clean run's."""
    from tests.stub_server import FaultRule

    spec = parse_model_spec("stub-model@" + stub_server.url)
    plan = build_mbti_plan(spec, subjects=["Men", "Women"], testings=2, limit_statements=4, answer_mode="logprob").model_dump()
    fast = RetryPolicy(max_attempts=4, base_delay_s=0.01, max_delay_s=0.05)
    cols = ["subject", "testing", "statement_id", "option_order", "letter", "option_index", "valid", "cache_key"]

    def answers(store: Store, run_id: str):
        return store.table(ANSWERS.name, [run_id]).sort_values(cols[:3]).reset_index(drop=True)[cols]

    with Store(tmp_path / "ref.db") as ref_store:
        methods.create_run(ref_store, "mbti", spec, plan, "ref")
        assert methods.execute_run(ref_store, "ref", retry=fast).status == "completed"
        ref = answers(ref_store, "ref")
    assert len(ref) == 16 and ref["valid"].all() and ref["letter"].notna().all()
    stub_server.configure([FaultRule("429", modulo=3, residue=0, retry_after=0.01), FaultRule("500", modulo=3, residue=1, times=2)])
    with Store(tmp_path / "faulted.db") as store:
        methods.create_run(store, "mbti", spec, plan, "faulted")
        summary = methods.execute_run(store, "faulted", retry=fast)
        got = answers(store, "faulted")
    assert (summary.status, summary.failed) == ("completed", 0)
    assert sum(1 for e in stub_server.calls() if e["fault"]) > 0
    pd.testing.assert_frame_equal(got, ref)


def test_reply_length_is_the_models_own_and_a_cut_reply_is_flagged(tmp_path: Path, fake: type[FakeClient]) -> None:
    """No max_tokens is sent by default (the reference sends none); with ``--max-tokens`` a reply that hits the limit
    is flagged truncated: its verdict, read before the cut, is kept; cut before the verdict, it is invalid."""
    fake.answer = staticmethod(lambda q, r: "Generally correct. Most of them do so, although some of them do not at all.")
    with Store(tmp_path / "s.db") as store:
        full = run(store, subjects=["Men"], testings=1, limit_statements=2, answer_mode="text")
        cut = run(store, subjects=["Men"], testings=1, limit_statements=2, answer_mode="text", text_max_tokens=4)
        late = run(store, subjects=["Women"], testings=1, limit_statements=2, answer_mode="text", text_max_tokens=1)
        rows = {r: store.table(ANSWERS.name, [r]) for r in (full, cut, late)}
    assert all("max_tokens" not in dict(req.params) for req in fake.requests[:2])
    assert rows[full].truncated.tolist() == [0, 0] and rows[full].valid.tolist() == [1, 1]
    assert rows[cut].truncated.tolist() == [1, 1] and rows[cut].option.tolist() == ["Generally correct"] * 2
    assert rows[late].truncated.tolist() == [1, 1] and rows[late].valid.tolist() == [0, 0]


def test_json_answers(tmp_path: Path, fake: type[FakeClient]) -> None:
    """``--answer-format json``: every request carries the verdict schema (reasoning first, then one of the seven
    options as shown, in the shown order) and asks for the object; the answer field is read; a reply without JSON is
    read by the text reader, its reason saying so; a verdict outside the seven is invalid; JSON and text runs are two
    configurations."""
    from analysis.methods.mbti.families import FAMILY
    from analysis.runs import comparable

    def answer(question: str, request: ChatRequest) -> str:
        schema = json.loads(dict(request.params)["response_format"])["json_schema"]
        assert schema["name"] == "mbti_verdict" and list(schema["schema"]["properties"]) == ["reasoning", "answer"]
        shown = re.match(r"Is the following statement (.*)\? Why\?", question).group(1)
        assert ", ".join(schema["schema"]["properties"]["answer"]["enum"][:-1]) in shown
        assert '{"reasoning": "<why, in a few sentences>", "answer": "<one of the options above, as written>"}' in question
        if "crowded room" in question:
            return "It is partially wrong, since it depends."
        if "spur of the moment" in question:
            return json.dumps({"reasoning": "hm", "answer": "somewhat right"})
        return json.dumps({"reasoning": "Most do.", "answer": "generally correct"})

    fake.answer = staticmethod(answer)
    with Store(tmp_path / "s.db") as store:
        structured = run(store, subjects=["Men"], testings=1, limit_statements=4, answer_format="json")
        df = store.table(ANSWERS.name, [structured]).set_index("seq")
        assert store.get_run(structured)["plan"]["answer_format"] == "json"
        fake.answer = staticmethod(lambda q, r: "Generally correct.")
        text = run(store, subjects=["Men"], testings=1, limit_statements=4)
        assert "answer_format" not in store.get_run(text)["plan"]
        configs = comparable.configurations(comparable.store_runs(store), FAMILY)["fake"]
    assert list(df["option"].iloc[:3]) == ["Partially wrong", "Generally correct", "Generally correct"]
    assert df.loc[0, "reason"] == "text fallback: no JSON object in the reply" and df.loc[0, "valid"] == 1
    assert df.loc[1:2, "reason"].isna().all() and df.loc[1:2, "valid"].all()
    assert df.loc[3, "valid"] == 0 and df.loc[3, "reason"] == "\"answer\" 'somewhat right' is not one of the seven options"
    assert [c.run_ids for c in configs] == [(text,), (structured,)]
    assert configs[1].differs_from(configs[0]) == {"answer_format": "json"}


def test_json_answers_need_text_mode_and_the_flag_parses() -> None:
    from analysis.__main__ import build_parser
    from analysis.methods.mbti.cli import plan_from_args
    from analysis.methods.mbti.options import MbtiOptions
    from analysis.methods.options import from_args

    with pytest.raises(InputError, match="--answer-mode logprob reads one token's logprobs"):
        build_mbti_plan(SPEC, answer_mode="logprob", answer_format="json")
    args = build_parser().parse_args(["run", "mbti", "--model", "embedded", "--answer-format", "json"])
    assert from_args(MbtiOptions, args).answer_format == "json"
    assert plan_from_args(args, SPEC)["answer_format"] == "json"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "mbti", "--model", "embedded", "--answer-format", "xml"])
