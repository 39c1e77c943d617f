"""An API key is sent to the endpoint but never lands in the store, exports, CLI output, logs or failure records."""

from __future__ import annotations

import hashlib
import logging
import secrets
from pathlib import Path

import pandas as pd
import pytest

from analysis.__main__ import main
from tests.conftest import trust_spec
from analysis.runs.store import Store
from tests.stub_server import FaultRule, StubServer


def _files_containing(root: Path, needles: list[str]) -> list[str]:
    """Files under root whose bytes contain any needle (utf-8 or utf-16)."""
    hits = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if any(n.encode() in data or n.encode("utf-16-le") in data for n in needles):
            hits.append(str(path))
    return hits


def test_key_is_used_but_never_stored_or_shown(stub_server: StubServer, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
                                               caplog: pytest.LogCaptureFixture) -> None:
    """Run + export (csv/json/parquet) + CLI errors with a stub that echoes the Authorization header in 401s."""
    secret_part = secrets.token_hex(16)
    key = "sk-test-" + secret_part
    needles = [key, secret_part]
    monkeypatch.setenv("ROLESCOPE_API_KEY", key)
    caplog.set_level(logging.DEBUG)
    stub_server.configure([FaultRule("echo_auth", modulo=3, residue=0, times=None)])
    run_dir = tmp_path / "work"
    store_path = run_dir / "store.db"
    model = "stub-model@" + stub_server.url

    code = main(["run", "values", "--model", model, "--contexts", "no_conv,topics_a", "--limit-personas", "3",
                 "--limit-items", "4", "--messages", "3", "--answer-mode", "text", "--store", str(store_path),
                 "--run-id", "k1", "--quiet", "--max-attempts", "2"])
    assert code == 1  # some calls failed (the 401s)
    calls = stub_server.calls()
    assert calls and {c["auth_sha256"] for c in calls} == {hashlib.sha256(f"Bearer {key}".encode()).hexdigest()}
    assert any(c["status"] == 401 for c in calls) and any(c["status"] == 200 for c in calls)

    # the echoed header reached the failure records, redacted
    with Store(store_path, read_only=True) as store:
        failures = store.frame("SELECT error FROM call_failures")
        answers = store.table("values_answers")
        runs = store.runs()
    assert len(failures) > 0 and failures.error.str.contains(r"HTTP 401: .*Bearer \*\*\*", regex=True).all()
    assert answers.reason.fillna("").str.contains("Bearer ***", regex=False).any()
    assert runs.status.tolist() == ["completed_with_failures"]

    for fmt in ("csv", "json", "parquet"):
        assert main(["export", "--store", str(store_path), "--format", fmt, "--out", str(run_dir / f"export_{fmt}")]) == 0
    exported = pd.read_parquet(run_dir / "export_parquet" / "call_failures.parquet")
    assert exported.error.str.contains("Bearer ***", regex=False).all()
    parquet_text = "".join(pd.read_parquet(p).to_csv() for p in (run_dir / "export_parquet").glob("*.parquet"))

    # CLI error cases: credentials in the URL, unknown run, resume printing its summary
    assert main(["run", "values", "--model", f"m@http://user:{key}@127.0.0.1:1/v1", "--store", str(store_path)]) == 2
    assert main(["resume", "nope", "--store", str(store_path)]) == 2
    assert main(["resume", "k1", "--store", str(store_path), "--quiet", "--max-attempts", "1"]) == 1
    assert main(["runs", "--store", str(store_path), "--json"]) == 0

    out, err = capfd.readouterr()
    assert "error:" in err and "k1" in out
    for text in (out, err, caplog.text, parquet_text, failures.to_csv(), answers.to_csv()):
        assert not any(n in text for n in needles)
    assert len(list(run_dir.rglob("*"))) > 5
    assert _files_containing(run_dir, needles) == []
    assert _files_containing(tmp_path, needles) == []  # also the stub's call log (it keeps a hash only)


def test_wal_file_is_key_free_while_store_is_open(stub_server: StubServer, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """With the store still open (WAL not checkpointed), neither the db nor its -wal file holds the key."""
    from analysis.llm.specs import parse_model_spec
    from analysis.methods import create_run, execute_run
    from analysis.runs.executor import RetryPolicy
    from analysis.methods.values.plan import build_values_plan

    key = "sk-test-" + secrets.token_hex(16)
    monkeypatch.setenv("ROLESCOPE_API_KEY", key)
    stub_server.configure([FaultRule("echo_auth", modulo=2, residue=1, times=None)])
    spec = parse_model_spec("stub-model@" + stub_server.url)
    trust_spec(spec)  # the user's own endpoint, as `run --model` makes it
    store = Store(tmp_path / "open.db")
    plan = build_values_plan(spec, limit_personas=2, limit_items=5, answer_mode="logprob")
    create_run(store, "values", spec, plan.model_dump(), "w1")
    summary = execute_run(store, "w1", retry=RetryPolicy(max_attempts=1))
    wal = tmp_path / "open.db-wal"
    assert summary.failed > 0 and wal.exists() and wal.stat().st_size > 0
    assert _files_containing(tmp_path, [key, key[8:]]) == []
    store.close()
