"""A values run against the stub injecting 429/500/timeout/malformed/empty faults completes with exact retries."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from analysis.llm.specs import ModelSpec, parse_model_spec
from analysis.runs.executor import RetryPolicy
from analysis.methods import create_run, execute_run
from analysis.runs.runner import RunSummary
from analysis.runs.store import Store
from analysis.methods.values.plan import build_values_plan
from tests.stub_server import FaultRule, StubServer, messages_hash

PLAN = {"contexts": ["no_conv", "topics_a"], "limit_personas": 3, "limit_items": 6, "messages": 3}
N_CALLS = 3 * 6 + 3 * (3 + 6)  # no_conv items + (3 generated messages + items) per persona
FAST = RetryPolicy(max_attempts=4, base_delay_s=0.01, max_delay_s=0.05)
RETRY_AFTER_S = 1.0
TOLERANCE_S = 0.05  # scheduler/clock slack allowed below the Retry-After value
# transient faults, assigned round-robin to the hashes that are not permanently faulted: (kind, failing attempts)
TRANSIENT = [("429", 1), ("500", 2), ("timeout", 1), ("malformed", 2), (None, 0), (None, 0)]
ANSWER_COLUMNS = ["persona_id", "context", "item_id", "sample", "perm_seed", "option_order", "letter", "option_label",
                  "score", "valid", "reason", "logprob", "raw", "cache_key"]


def _run(store: Store, spec: ModelSpec, mode: str, run_id: str) -> RunSummary:
    plan = build_values_plan(spec, answer_mode=mode, **PLAN)
    create_run(store, "values", spec, plan.model_dump(), run_id)
    return execute_run(store, run_id, concurrency=8, retry=FAST)


def _hash_by_key(store: Store) -> dict[str, str]:
    """cache_key -> stub hash for every stored call."""
    calls = store.frame("SELECT cache_key, request FROM calls")
    return {k: messages_hash(json.loads(r)["messages"]) for k, r in zip(calls.cache_key, calls.request)}


def _is_item(request: str) -> bool:
    return "where X is the letter" in json.loads(request)["messages"][-1]["content"]


def _answers(store: Store, run_id: str) -> pd.DataFrame:
    df = store.table("values_answers", [run_id])
    key = ["context", "persona_id", "item_id"]
    return df.sort_values(key).set_index(key)[ANSWER_COLUMNS[3:]]


def _plain(df: pd.DataFrame) -> pd.DataFrame:
    """Object columns with None for missing values (all-missing columns otherwise differ in dtype)."""
    return df.astype(object).where(df.notna(), None)


@pytest.mark.parametrize("mode", ["text", "logprob"])
def test_faulted_run_matches_fault_free_run(stub_server: StubServer, tmp_path: Path, mode: str) -> None:
    """Transient faults are retried exactly as scheduled, permanent ones become failures/invalid answers, the rest match."""
    spec = parse_model_spec("stub-model@" + stub_server.url).model_copy(update={"timeout_s": 3.0})
    ref_store = Store(tmp_path / "ref.db")
    ref = _run(ref_store, spec, mode, "ref")
    assert (ref.status, ref.done, ref.failed) == ("completed", N_CALLS, 0)
    ref_answers = _answers(ref_store, "ref")
    assert len(ref_answers) == 3 * 6 * 2 and ref_answers["valid"].all()

    calls = ref_store.frame("SELECT cache_key, request FROM calls")
    hash_of = _hash_by_key(ref_store)
    assert len(set(hash_of.values())) == N_CALLS
    items = sorted(hash_of[k] for k, r in zip(calls.cache_key, calls.request) if _is_item(r))
    failing, empty = set(items[:2]), set(items[2:4])
    others = sorted(set(hash_of.values()) - failing - empty)
    schedule = {h: TRANSIENT[i % len(TRANSIENT)] for i, h in enumerate(others)}
    rules = [FaultRule("500", hashes=sorted(failing), times=None), FaultRule("empty", hashes=sorted(empty), times=None)]
    for kind, times in TRANSIENT[:4]:
        hashes = sorted(h for h, (k, _) in schedule.items() if k == kind)
        rules.append(FaultRule(kind, hashes=hashes, times=times, retry_after=RETRY_AFTER_S, hang_s=6.0))
    stub_server.configure(rules)
    first = len(stub_server.calls())

    store = Store(tmp_path / "faulted.db")
    summary = _run(store, spec, mode, "faulted")
    assert summary.status == "completed_with_failures"
    assert (summary.done, summary.failed) == (N_CALLS, len(failing) + len(empty))

    # exactly the scheduled attempts per request hash
    log = stub_server.calls()[first:]
    expected: dict[str, int] = {h: 1 + times for h, (_, times) in schedule.items()}
    expected |= {h: FAST.max_attempts for h in failing | empty}  # an empty 200 is retried, never cached
    assert Counter(e["hash"] for e in log) == Counter(expected)
    assert {e["fault"] for e in log} == {"429", "500", "timeout", "malformed", "empty", None}

    # Retry-After respected: the retry of a 429 comes at least RETRY_AFTER_S later
    gaps = []
    for i, entry in enumerate(log):
        if entry["fault"] == "429":
            retry = next(e for e in log[i + 1:] if e["hash"] == entry["hash"])
            gaps.append(retry["t"] - entry["t"])
    assert gaps and min(gaps) >= RETRY_AFTER_S - TOLERANCE_S

    # permanent failures: call_failures rows and invalid answers saying why
    key_of = {h: k for k, h in hash_of.items()}
    failures = store.frame("SELECT cache_key, error, attempts FROM call_failures WHERE run_id='faulted'")
    assert set(failures.cache_key) == {key_of[h] for h in failing | empty}
    assert (failures.attempts == FAST.max_attempts).all()
    assert set(failures.error) == {"HTTP 500: {\"error\": {\"message\": \"internal error (stub)\"}}",
                                   "malformed reply: empty content"}

    answers = _answers(store, "faulted")
    assert answers.index.equals(ref_answers.index)
    failed_rows = answers[answers.cache_key.isin([key_of[h] for h in failing])]
    assert len(failed_rows) == 2 and (failed_rows.valid == 0).all() and failed_rows.raw.isna().all()
    assert failed_rows.reason.str.startswith("call failed: HTTP 500").all()
    empty_rows = answers[answers.cache_key.isin([key_of[h] for h in empty])]
    assert len(empty_rows) == 2 and (empty_rows.valid == 0).all() and empty_rows.raw.isna().all()
    assert set(empty_rows.reason) == {"call failed: malformed reply: empty content"}
    assert store.query_one("SELECT COUNT(*) AS n FROM calls WHERE reply = ''")["n"] == 0  # no empty reply cached

    rest = ~answers.cache_key.isin([key_of[h] for h in failing | empty])
    pd.testing.assert_frame_equal(_plain(answers[rest]), _plain(ref_answers[rest]))
    conv = ["persona_id", "context", "turn", "speaker", "content", "valid", "cache_key"]
    turns = [s.table("values_conversations", [r])[conv].sort_values(conv[:3]).reset_index(drop=True)
             for s, r in ((store, "faulted"), (ref_store, "ref"))]
    assert len(turns[0]) == 3 * 4  # per persona: the opening + 3 generated messages
    pd.testing.assert_frame_equal(_plain(turns[0]), _plain(turns[1]))


def test_schedule_counts_attempts_per_hash(stub_server: StubServer) -> None:
    """The stub's transient schedule fails the first k attempts of a hash, then answers; 'always' never answers."""
    import httpx

    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "A. x\nB. y"}]}
    digest = messages_hash(body["messages"])
    stub_server.configure([FaultRule("500", hashes=[digest], times=2)])
    statuses = [httpx.post(stub_server.url + "/chat/completions", json=body).status_code for _ in range(4)]
    assert statuses == [500, 500, 200, 200]
    stub_server.configure([FaultRule("429", hashes=[digest], times=None, retry_after=3)])
    replies = [httpx.post(stub_server.url + "/chat/completions", json=body) for _ in range(3)]
    assert [r.status_code for r in replies] == [429, 429, 429] and replies[0].headers["retry-after"] == "3"
