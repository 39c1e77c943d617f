"""The Ray driver (issue 61 item 4): exported waves sent by ``analysis.runs.ray_driver`` through Ray Data's HTTP
request stage, with Ray in local mode, to the stub server; the results imported until the run is done give a live
run's numbers, logprobs included. A failed request is its own error line, stored as that call's failure; the key is
sent, never written."""

from __future__ import annotations

import hashlib
import json
import secrets
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analysis.__main__ import main
from analysis.runs.ray_driver import Settings, drive
from analysis.runs.ray_driver import main as driver_main
from analysis.runs.store import Store
from tests.runs.test_batch import VALUES, _numbers, _run
from tests.stub_server import FaultRule, StubServer, messages_hash, reply_body

# The two tests that start Ray are marked slow (its processes, then an actor for each wave): 50-70 s together on
# two shared cores. The checks of bad input start nothing.
pytestmark = pytest.mark.timeout(400)

#: The values plan of test_batch.py (3 personas, 6 items, 2 contexts: 45 calls in 4 waves), read from logprobs.
LOGPROB = [*VALUES[:-2], "--answer-mode", "logprob"]
QUICK = Settings(concurrency=1, batch_size=16, pause_s=0.05, timeout_s=60, quiet=True)


@pytest.fixture(scope="module")
def ray_local() -> Iterator[Any]:
    """Ray in local mode on this machine, for the module's tests; shut down after them (no process left)."""
    import ray

    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short: Ray's socket paths must fit in 107 bytes
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAY_USAGE_STATS_ENABLED", "0")  # nothing sent off this machine
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 2**20, _temp_dir=temp,
                 log_to_driver=False, logging_level="warning")
        try:
            yield ray
        finally:
            ray.shutdown()
            shutil.rmtree(temp, ignore_errors=True)


def _requests(path: Path) -> dict[str, dict[str, Any]]:
    return {doc["custom_id"]: doc["body"] for doc in map(json.loads, path.read_text().splitlines())}


@pytest.mark.slow
def test_waves_through_ray_give_the_live_numbers(tmp_path: Path, ray_local: Any) -> None:
    """Every wave of a logprob run exported, sent through Ray, imported: the run completes with the live run's
    numbers. Each request reached the server as exported (no key added, no 20 turned 20.0), and each result's body
    is the server's whole reply, logprobs included."""
    store = tmp_path / "s.db"
    with StubServer() as server:
        assert _run("values", server.url, tmp_path / "live.db", "l", *LOGPROB) == 0
        live_calls = len(server.calls())
        requests = tmp_path / "requests-1.jsonl"
        assert _run("values", server.url, store, "e", *LOGPROB, "--via", "export", "--out", str(requests)) == 0
        waves, sent, results = 0, {}, {}
        while requests.exists():
            waves += 1
            replies = tmp_path / f"replies-{waves}.jsonl"
            summary = drive(requests, server.url, replies, settings=QUICK)
            sent |= _requests(requests)
            results |= {doc["custom_id"]: doc for doc in map(json.loads, replies.read_text().splitlines())}
            assert summary.requests == summary.answered == len(_requests(requests)) and summary.failed == 0
            nxt = tmp_path / f"requests-{waves + 1}.jsonl"
            assert main(["import-replies", "e", str(replies), "--store", str(store), "--out", str(nxt), "--quiet"]) == 0
            requests = nxt
            assert waves < 10
        received = server.calls()[live_calls:]
    with Store(store, read_only=True) as s:
        assert s.get_run("e")["status"] == "completed"
    assert waves == 4 and len(sent) == len(results) == len(received) == 45
    assert _numbers(store, "values") == _numbers(tmp_path / "live.db", "values")

    by_hash = {messages_hash(body["messages"]): body for body in sent.values()}
    for call in received:  # the body as exported: the same keys and the same JSON for each value
        body = by_hash[call["hash"]]
        assert json.dumps(call["params"]) == json.dumps({k: v for k, v in body.items() if k not in ("messages", "model")})
        assert call["auth_sha256"] is None
    with_logprobs = 0
    for key, result in results.items():
        assert result["error"] is None and result["response"]["status_code"] == 200
        body = result["response"]["body"]
        assert body == reply_body(sent[key], messages_hash(sent[key]["messages"]))
        with_logprobs += bool((body["choices"][0]["logprobs"] or {}).get("content"))
    assert with_logprobs == 36  # every item's reply: 3 personas x 6 items x 2 contexts


@pytest.mark.slow
def test_a_failed_request_is_its_error_line_and_the_key_is_written_nowhere(
        tmp_path: Path, ray_local: Any, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    """Through the command line, with a key: a request the server fails (HTTP 500) is an error line that
    ``import-replies`` stores as that call's failure, and the next wave asks it again; a 429 is retried; a reply that
    echoes the key is kept with the key scrubbed. The key reaches the server, never the results or the output."""
    secret = secrets.token_hex(16)
    monkeypatch.setenv("RS_RAY_TEST_KEY", f"sk-ray-{secret}")
    store, requests, replies = tmp_path / "s.db", tmp_path / "requests.jsonl", tmp_path / "replies.jsonl"
    one_wave = [*VALUES[:4], "--contexts", "no_conv", "--answer-mode", "logprob"]  # 18 items, one wave
    with StubServer() as server:
        assert _run("values", server.url, store, "f", *one_wave, "--via", "export", "--out", str(requests)) == 0
        server.configure([FaultRule("500", modulo=4, residue=0, times=None),
                          FaultRule("429", modulo=4, residue=1, retry_after=0),
                          FaultRule("echo_auth_ok", modulo=4, residue=2, times=None)])
        capfd.readouterr()
        code = driver_main([str(requests), "--base-url", server.url, "--out", str(replies), "--quiet",
                            "--api-key-env", "RS_RAY_TEST_KEY", "--batch-size", "8"])
        out, err = capfd.readouterr()
        calls = server.calls()
        faults = {call["fault"] for call in calls}
        assert code == 0 and faults == {None, "500", "429", "echo_auth_ok"}
        assert {call["auth_sha256"] for call in calls} == {hashlib.sha256(f"Bearer sk-ray-{secret}".encode()).hexdigest()}
        assert len(calls) == 18 + sum(call["fault"] == "429" for call in calls)  # each 429 asked once more
        lines = [json.loads(line) for line in replies.read_text().splitlines()]
        failed = [line for line in lines if line["response"]["status_code"] != 200]
        n_failed = sum(call["fault"] == "500" for call in calls)
        assert len(lines) == 18 and len(failed) == n_failed > 0
        assert all(line["response"]["body"] == {"error": {"message": "internal error (stub)"}} for line in failed)
        assert f"{replies}: 18 results, {18 - n_failed} answered, {n_failed} failed; the first failure: HTTP 500" in err
        assert "Bearer ***" in replies.read_text()

        assert main(["import-replies", "f", str(replies), "--store", str(store), "--quiet"]) == 1
        with Store(store, read_only=True) as s:
            errors = s.frame("SELECT error FROM call_failures")["error"].tolist()
            assert s.get_run("f")["status"] == "completed_with_failures"
        assert errors == ["HTTP 500: internal error (stub)"] * n_failed

        server.configure()  # the server recovers: the failed calls, exported again, complete the run
        again = tmp_path / "again.jsonl"
        assert main(["export-requests", "f", "--store", str(store), "--out", str(again), "--quiet"]) == 0
        assert {line["custom_id"] for line in failed} == set(_requests(again))
        assert drive(again, server.url, tmp_path / "answers.jsonl", api_key_env="RS_RAY_TEST_KEY",
                     settings=QUICK).answered == n_failed
        assert main(["import-replies", "f", str(tmp_path / "answers.jsonl"), "--store", str(store), "--quiet"]) == 0
    with Store(store, read_only=True) as s:
        assert s.get_run("f")["status"] == "completed"
    out2, err2 = capfd.readouterr()
    assert secret not in out + err + out2 + err2
    assert [p for p in tmp_path.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()] == []


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("case,message", [
    ("missing", "{requests}: file not found"),
    ("folder", "{tmp}: is a folder, expected a file"),
    ("results", "{requests}: line 1: a result line, not a request (give the file export-requests wrote)"),
    ("not_json", "{requests}: line 2: not JSON"),
    ("other_url", "{requests}: line 1: not a POST /v1/chat/completions request"),
    ("twice", "{requests}: line 2: custom_id aaaaaaaaaaaa… again (first on line 1)"),
    ("empty", "{requests}: no request lines"),
    ("unreachable", "--base-url http://127.0.0.1:{port}/v1: cannot connect to 127.0.0.1:{port} (Connection refused)"),
    ("not_http", "--base-url ftp://127.0.0.1/v1: not an http(s) URL"),
    ("no_key", "--api-key-env RS_RAY_UNSET_KEY: that environment variable is not set"),
])
def test_bad_input_is_one_line_naming_it_and_exit_2(tmp_path: Path, capfd: pytest.CaptureFixture[str], case: str,
                                                     message: str) -> None:
    """Checked before Ray starts: nothing is sent and no results file is written."""
    requests, out = tmp_path / "requests.jsonl", tmp_path / "replies.jsonl"
    port = _closed_port()
    line = {"custom_id": "a" * 64, "method": "POST", "url": "/v1/chat/completions",
            "body": {"model": "stub", "messages": [{"role": "user", "content": "hi"}]}}
    text = {"results": json.dumps({"custom_id": "a" * 64, "response": {"status_code": 200, "body": {}}, "error": None}),
            "not_json": json.dumps(line) + "\n{oops",
            "other_url": json.dumps({**line, "url": "/v1/embeddings"}),
            "twice": json.dumps(line) + "\n" + json.dumps(line),
            "empty": "\n\n"}.get(case, json.dumps(line))
    if case != "missing":
        requests.write_text(text + "\n")
    given = tmp_path if case == "folder" else requests
    url = {"not_http": "ftp://127.0.0.1/v1"}.get(case, f"http://127.0.0.1:{port}/v1")
    with StubServer() as server:
        if case not in ("unreachable", "not_http"):
            url = server.url
        extra = ["--api-key-env", "RS_RAY_UNSET_KEY"] if case == "no_key" else []
        capfd.readouterr()
        code = driver_main([str(given), "--base-url", url, "--out", str(out), "--quiet", *extra])
        err = capfd.readouterr().err.strip().splitlines()
        assert server.calls() == []
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("error: " + message.format(requests=requests, tmp=tmp_path, port=port)), err
    assert not out.exists()
