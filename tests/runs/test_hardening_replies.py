"""Replies that must not reach the store as they came: a key echoed inside a 200 reply (text or logprob tokens) or in
an error body cut at 200 characters, and malformed 200s (wrong types) that once poisoned the cache."""

from __future__ import annotations

import secrets
from pathlib import Path

import httpx
import pytest

from analysis.__main__ import main
from analysis.llm.client import http_status_error
from analysis.llm.keys import register_secret
from analysis.llm.specs import parse_model_spec
from analysis.runs.executor import RetryPolicy
from analysis.methods import create_run, execute_run
from tests.conftest import trust_spec
from analysis.runs.store import Store
from analysis.methods.values.plan import build_values_plan
from tests.runs.test_keys import _files_containing
from tests.stub_server import FaultRule, StubServer

KEYS = {"key-shaped": lambda: "sk-test-" + secrets.token_hex(16), "plain": lambda: "hunter2" + secrets.token_hex(6)}


@pytest.mark.parametrize("kind", list(KEYS))
@pytest.mark.parametrize("mode", ["text", "logprob"])
def test_key_echoed_in_successful_replies_is_never_stored(stub_server: StubServer, tmp_path: Path, kind: str, mode: str,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capfd: pytest.CaptureFixture[str]) -> None:
    key = KEYS[kind]()
    monkeypatch.setenv("ROLESCOPE_API_KEY", key)
    stub_server.configure([FaultRule("echo_auth_ok", modulo=1, times=None)])
    spec = parse_model_spec("stub-model@" + stub_server.url)
    trust_spec(spec)  # the user's own endpoint, as `run --model` makes it
    store = Store(tmp_path / "s.db")
    plan = build_values_plan(spec, limit_personas=2, limit_items=4, answer_mode=mode)
    create_run(store, "values", spec, plan.model_dump(), "e1")
    summary = execute_run(store, "e1", retry=RetryPolicy(max_attempts=1))
    assert summary.status == "completed" and summary.failed == 0
    replies = store.frame("SELECT reply, logprobs FROM calls")
    assert replies.reply.str.contains("Authorization: Bearer ***", regex=False).all()  # echoed, and redacted
    answers = store.table("values_answers", ["e1"])
    assert answers.valid.all()  # the answers still parse
    assert _files_containing(tmp_path, [key]) == []  # db, -wal and -shm while the store is open
    store.close()
    for fmt in ("csv", "json", "parquet"):
        assert main(["export", "--store", str(tmp_path / "s.db"), "--format", fmt, "--out", str(tmp_path / fmt)]) == 0
    out, err = capfd.readouterr()
    assert key not in out + err
    assert _files_containing(tmp_path, [key]) == []


@pytest.mark.parametrize("kind", list(KEYS))
def test_error_text_is_redacted_before_it_is_cut(kind: str) -> None:
    """The key at every offset around the 200-character cut: no prefix of it survives (cut first, a key straddling
    character 200 left 15-18 characters of itself that no rule could recognise)."""
    key = KEYS[kind]()
    register_secret(key)
    for pad in range(150, 205):
        body = "x" * pad + f"invalid credentials: Bearer {key}"
        message = str(http_status_error(httpx.Response(401, text=body)))
        for n in range(6, len(key) + 1):
            assert key[:n] not in message, (pad, n)


@pytest.mark.parametrize("fault", ["content_int", "content_null", "bad_logprobs", "bad_usage", "empty"])
def test_malformed_200_is_retried_not_cached_and_resume_completes(stub_server: StubServer, tmp_path: Path,
                                                                  fault: str) -> None:
    """A 200 with the wrong types is a retryable failure, never a cached success; once the endpoint recovers, resume
    asks again and every answer is valid."""
    spec = parse_model_spec("stub-model@" + stub_server.url)
    trust_spec(spec)  # the user's own endpoint, as `run --model` makes it
    store = Store(tmp_path / "s.db")
    plan = build_values_plan(spec, limit_personas=2, limit_items=4, answer_mode="logprob")
    create_run(store, "values", spec, plan.model_dump(), "m1")
    stub_server.configure([FaultRule(fault, modulo=2, residue=0, times=None)])
    first = execute_run(store, "m1", retry=RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.02))
    assert first.failed > 0
    failures = store.frame("SELECT error FROM call_failures")
    assert failures.error.str.startswith("malformed reply").all()
    n_cached = store.query_one("SELECT COUNT(*) AS n FROM calls")["n"]
    stub_server.configure([])
    second = execute_run(store, "m1", retry=RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.02))
    assert second.status == "completed" and second.failed == 0
    assert store.query_one("SELECT COUNT(*) AS n FROM calls")["n"] == n_cached + first.failed
    answers = store.table("values_answers", ["m1"])
    assert len(answers) == 2 * 4 and answers.valid.all()
    store.close()
