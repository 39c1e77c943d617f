"""run/resume exit 1 when any call failed (0 only when every call was answered); the summary line counts failures
apart from answered calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.__main__ import main
from tests.stub_server import FaultRule, StubServer


def test_every_call_failing_exits_1_and_says_so(stub_server: StubServer, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    stub_server.configure([FaultRule("500", modulo=1, times=None)])
    store = str(tmp_path / "s.db")
    args = ["--store", store, "--quiet", "--max-attempts", "1"]
    code = main(["run", "mbti", "--model", "stub@" + stub_server.url, "--subjects", "Men", "--testings", "1",
                 "--limit-statements", "2", "--run-id", "f1", *args])
    err = capsys.readouterr().err
    assert code == 1
    assert "completed_with_failures; 0/2 calls answered (0 cached), 1 failed, 1 not asked;" in err
    # (was "2/2 calls (0 cached, 1 failed)": the testing stops at its first failed call)
    stub_server.configure([])
    # the endpoint recovered: every call answered; the stub's replies name no MBTI option, so there is nothing to
    # score, said as the app says it, and that exits 1 too
    assert main(["resume", "f1", *args]) == 1
    err = capsys.readouterr().err
    assert "2/2 calls answered (0 cached), 0 failed;" in err and "Nothing to score: no answer holds a valid value" in err
    assert "First error" not in err  # the failed call was answered on resume


def test_retry_after_is_bounded_per_call(stub_server: StubServer, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Retry-After: 3600 (capped per wait at max_retry_after_s) no longer makes a call wait max_attempts times: past
    --max-wait in all it gives up and stores the failure with the reason."""
    import time

    from analysis.runs.store import Store

    stub_server.configure([FaultRule("429", modulo=1, times=None, retry_after=3600)])
    store = tmp_path / "s.db"
    started = time.monotonic()
    code = main(["run", "mbti", "--model", "stub@" + stub_server.url, "--subjects", "Men", "--testings", "1",
                 "--limit-statements", "1", "--store", str(store), "--quiet", "--max-wait", "0", "--run-id", "w1"])
    assert code == 1 and time.monotonic() - started < 60
    assert len(stub_server.calls()) == 1  # no retry: even one capped wait (120 s) is past 0 s
    with Store(store, read_only=True) as s:
        error = s.query_one("SELECT error FROM call_failures")["error"]
    assert error.startswith("HTTP 429") and "gave up: the next retry would wait 120s" in error


def test_nothing_to_score_is_said_and_exits_1(stub_server: StubServer, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 43, item 11: every reply unreadable, no call failed: the CLI tells the outcome the app tells (one
    function, ``analysis.run_outcome.run_outcome``: 'Nothing to score') and exits 1, not 0."""
    from analysis.run_outcome import run_outcome
    from analysis.runs.store import Store

    stub_server.configure([FaultRule("nonsense", modulo=1, times=None)])
    store = tmp_path / "s.db"
    code = main(["run", "mbti", "--model", "stub@" + stub_server.url, "--subjects", "Men", "--testings", "1",
                 "--limit-statements", "2", "--run-id", "n1", "--store", str(store), "--quiet", "--max-attempts", "1"])
    err = capsys.readouterr().err
    with Store(store, read_only=True) as s:
        told = run_outcome(s, "n1")
    assert told.level == "error" and told.title.startswith("Nothing to score")
    assert code == 1 and f"{told.title}. {told.detail}" in err
    c = told.counts
    assert f"{c.answered}/{c.planned} calls answered ({c.cached} cached), {c.failed} failed" in err


def test_a_personagym_run_whose_environments_cannot_be_read_says_why_nothing_else_was_asked(
        stub_server: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 43, item 11, end to end: every environment selection unreadable (asked again, then given up), so no
    question, answer or grade is asked. The CLI and the app tell one outcome: 'Nothing to score', every call counted
    (planned = sent + not asked, 0 failed), the reason the rest were not asked, exit 1."""
    from analysis.run_outcome import run_outcome
    from analysis.runs.store import Store

    stub_server.configure([FaultRule("nonsense", modulo=1, times=None)])
    store = tmp_path / "s.db"
    code = main(["run", "personagym", "--model", "stub@" + stub_server.url, "--personas", "1", "--questions-per-task",
                 "1", "--environments-per-persona", "2", "--run-id", "g1", "--store", str(store), "--quiet",
                 "--max-attempts", "1"])
    err = capsys.readouterr().err
    with Store(store, read_only=True) as s:
        told = run_outcome(s, "g1")
    c = told.counts
    assert code == 1 and told.level == "error" and told.title.startswith("Nothing to score")
    assert c.failed == 0 and c.sent == c.answered > 0 and c.not_asked > 0 and c.planned == c.sent + c.not_asked
    assert f"Not asked ({c.not_asked}): " in told.detail and "environment" in told.detail.split("Not asked", 1)[1]
    assert f"{told.title}. {told.detail}" in err
