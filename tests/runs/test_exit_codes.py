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
    assert "completed_with_failures; 0/2 calls answered (0 cached), 1 failed, 1 not asked after a failure;" in err
    # (was "2/2 calls (0 cached, 1 failed)": the testing stops at its first failed call)
    stub_server.configure([])
    assert main(["resume", "f1", *args]) == 0  # the endpoint recovered: every call answered
    assert "2/2 calls answered (0 cached), 0 failed;" in capsys.readouterr().err


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
