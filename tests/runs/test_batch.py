"""Batch runs (issue 46): ``--via batch`` through the stub's ``/v1/files`` + ``/v1/batches``, and ``export-requests`` /
``import-replies`` in the OpenAI batch format, each checked against a live run of the same plan on the same stub."""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.runs.store import Store
from tests.stub_server import FaultRule, StubServer

REPO = Path(__file__).resolve().parents[2]
VALUES = ["--limit-personas", "3", "--limit-items", "6", "--contexts", "no_conv,topics_a", "--answer-mode", "text"]
PERSONAGYM = ["--personas", "2", "--questions-per-task", "1"]


def _run(method: str, url: str, store: Path, run_id: str, *extra: str) -> int:
    return main(["run", method, "--model", f"stub@{url}", "--store", str(store), "--quiet", "--run-id", run_id,
                 "--max-attempts", "1", *extra])


def _numbers(store: Path, method: str) -> str:
    """The method's metrics document without what names runs, models or times: equal for equal answers."""
    from analysis import methods

    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items()
                    if k not in ("run_id", "run_ids", "runs", "created_at", "generated_at", "model", "models")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    with Store(store, read_only=True) as s:
        doc = methods.get(method).report(s, n_boot=50)
    return json.dumps(strip(doc), sort_keys=True, default=str)


def _stub_run_batch(app, requests: Path, replies: Path) -> int:
    """What ``vllm run_batch`` does with a requests file, with the stub's replies: one result line per request."""
    lines = []
    for n, raw in enumerate(requests.read_bytes().splitlines()):
        request = json.loads(raw)
        status, body = app._batch_answer(request["body"], None, "offline")
        lines.append(json.dumps({"id": f"r{n}", "custom_id": request["custom_id"],
                                 "response": {"status_code": status, "body": body}, "error": None}))
    replies.write_text("\n".join(lines) + "\n")
    return len(lines)


@pytest.mark.parametrize("method,extra,waves", [("values", VALUES, 4), ("personagym", PERSONAGYM, 4)])
def test_a_plan_runs_end_to_end_through_provider_batches(tmp_path: Path, method: str, extra: list[str], waves: int) -> None:
    """One batch per wave (the method's ``waves``), every call answered, the same numbers as a live run."""
    from analysis import methods

    with StubServer() as server:
        code_batch = _run(method, server.url, tmp_path / "batch.db", "b", *extra, "--via", "batch", "--poll", "0.02")
        batches = server.app.batches.stats()["batches"]
        log = server.calls()
        code_live = _run(method, server.url, tmp_path / "live.db", "l", *extra)
    assert code_batch == code_live
    assert batches == waves and all(c.get("batch") for c in log)
    with Store(tmp_path / "batch.db", read_only=True) as store:
        plan = store.get_run("b")["plan"]
        kept = store.batches("b")
        calls = store.query_one("SELECT COUNT(*) AS n, SUM(cost IS NULL) AS unpriced FROM calls")
    assert methods.get(method).waves(plan) == waves
    assert len(kept) == waves and set(kept["status"]) == {"completed, collected"}
    assert calls["n"] == len(log)
    assert _numbers(tmp_path / "batch.db", method) == _numbers(tmp_path / "live.db", method)


def test_expired_failed_and_garbled_batches_leave_their_calls_to_resume(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    with StubServer() as server:
        server.configure(batch={"outcome": "expired", "partial": 0.5})
        assert _run("values", server.url, store, "x", *VALUES[:-4], "--contexts", "no_conv", "--answer-mode", "text",
                    "--via", "batch", "--poll", "0.02") == 1
        with Store(store, read_only=True) as s:
            failures = s.frame("SELECT error FROM call_failures")
            answered = s.query_one("SELECT COUNT(*) AS n FROM calls")["n"]
        assert answered == 9 and len(failures) == 9  # 3 personas x 6 items, half answered before it expired
        assert failures.error.str.startswith("batch expired before this request was answered").all()

        server.configure(batch={"outcome": "completed", "garble": [0], "drop": [1]})
        assert main(["resume", "x", "--store", str(store), "--quiet", "--via", "batch", "--poll", "0.02"]) == 1
        with Store(store, read_only=True) as s:
            errors = s.frame("SELECT error FROM call_failures ORDER BY id")["error"].tolist()[9:]
            answered = s.query_one("SELECT COUNT(*) AS n FROM calls")["n"]
        assert answered == 16 and len(errors) == 2
        assert all("no result for this request in the batch's output (1 output lines unreadable" in e for e in errors)

        server.configure(batch={"outcome": "cancelled", "partial": 0.5})  # cancelled at the provider: half answered
        assert main(["resume", "x", "--store", str(store), "--quiet", "--via", "batch", "--poll", "0.02"]) == 1
        with Store(store, read_only=True) as s:
            last = s.frame("SELECT error FROM call_failures ORDER BY id DESC LIMIT 1")["error"].tolist()
            assert s.query_one("SELECT COUNT(*) AS n FROM calls")["n"] == 17
        assert last == ["batch cancelled before this request was answered"]

        server.configure(batch={"outcome": "failed"})
        assert main(["resume", "x", "--store", str(store), "--quiet", "--via", "batch", "--poll", "0.02"]) == 1
        with Store(store, read_only=True) as s:
            last = s.frame("SELECT error FROM call_failures ORDER BY id DESC LIMIT 1")["error"].tolist()
        assert last == ["batch failed: invalid_request: line 1: model not found (stub)"]

        server.configure(faults=[FaultRule("500", modulo=1, times=None)])  # per-request errors: the error file
        assert main(["resume", "x", "--store", str(store), "--quiet", "--via", "batch", "--poll", "0.02"]) == 1
        server.configure()
        assert main(["resume", "x", "--store", str(store), "--quiet", "--via", "batch", "--poll", "0.02"]) == 0
        created = server.app.batches.stats()["batches"]
    with Store(store, read_only=True) as s:
        assert s.query_one("SELECT COUNT(*) AS n FROM calls")["n"] == 18
        assert s.get_run("x")["status"] == "completed"
        assert s.frame("SELECT error FROM call_failures WHERE error LIKE 'HTTP 500%'").shape[0] >= 1
    assert created == 6


def test_a_client_killed_while_polling_resumes_the_same_batch(tmp_path: Path) -> None:
    """SIGKILL during polling; ``resume`` (no --via: the open batch is found) collects that batch: no second one."""
    store = tmp_path / "s.db"
    with StubServer() as server:
        server.configure(batch={"outcome": "hold"})
        cmd = [sys.executable, "-m", "analysis", "run", "values", "--model", f"stub@{server.url}", "--store", str(store),
               "--quiet", "--run-id", "k", *VALUES[:-4], "--contexts", "no_conv", "--answer-mode", "text",
               "--via", "batch", "--poll", "0.05"]
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env={**os.environ, "PYTHONPATH": str(REPO)})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(b.polls >= 2 for b in server.app.batches.batches.values()):
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert server.app.batches.stats()["batches"] == 1
        with Store(store, read_only=True) as s:
            assert s.batches("k")["status"].tolist() == ["in_progress"]
        server.configure()  # the provider finishes it
        assert main(["resume", "k", "--store", str(store), "--quiet", "--poll", "0.02"]) == 0
        assert server.app.batches.stats()["batches"] == 1
        assert len(server.calls()) == 18  # each request answered once
    with Store(store, read_only=True) as s:
        assert s.query_one("SELECT COUNT(*) AS n FROM calls")["n"] == 18
        assert s.batches("k")["status"].tolist() == ["completed, collected"]


def test_a_live_resume_is_refused_while_a_batch_is_open(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    with StubServer() as server:
        server.configure(batch={"outcome": "hold"})
        from analysis.llm.specs import parse_model_spec

        with Store(store) as s:
            s.create_run("r", "values", "m", parse_model_spec(f"stub@{server.url}").public_dict(), {})
            s.record_batch("batch-1", "r", "m", "id", 1, {"a" * 64: ["u"]}, status="in_progress")
        from analysis.errors import InputError
        from analysis.methods import execute_run

        with Store(store) as s, pytest.raises(InputError, match="resume with --via batch"):
            execute_run(s, "r", via="live")


def test_the_key_goes_in_the_header_never_in_a_batch_file_or_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capfd: pytest.CaptureFixture[str]) -> None:
    secret = secrets.token_hex(16)
    key = "sk-batch-" + secret
    monkeypatch.setenv("ROLESCOPE_API_KEY", key)
    store = tmp_path / "work" / "s.db"
    store.parent.mkdir()
    with StubServer(log_path=tmp_path / "work" / "calls.jsonl") as server:
        server.configure([FaultRule("echo_auth_ok", modulo=2, times=None)])  # a leaky proxy echoes the header back
        code = main(["run", "values", "--model", f"stub-model@{server.url}", "--store", str(store), "--quiet",
                     "--run-id", "k", *VALUES, "--via", "batch", "--poll", "0.02"])
        files = [content for _, _, content in server.app.batches.files.values()]
        batches = list(server.app.batches.batches.values())
    assert code in (0, 1)
    assert batches and {hashlib.sha256(b.auth).hexdigest() for b in batches} == {
        hashlib.sha256(f"Bearer {key}".encode()).hexdigest()}
    uploads = [f for f in files if b'"custom_id"' in f and b'"url":"/v1/chat/completions"' in f]
    assert uploads and not any(secret.encode() in f for f in uploads)
    with Store(store, read_only=True) as s:
        echoed = s.query_one("SELECT COUNT(*) AS n FROM calls WHERE reply LIKE '%Bearer ***%'")["n"]
    assert echoed > 0
    out, err = capfd.readouterr()
    assert secret not in out + err
    hits = [p for p in (tmp_path / "work").rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert hits == []


@pytest.mark.parametrize("method,extra", [("values", VALUES), ("personagym", PERSONAGYM)])
def test_export_run_batch_import_gives_the_live_report(tmp_path: Path, method: str, extra: list[str]) -> None:
    """Waves exported, answered by a stub ``run_batch``, imported, until the plan is done: the live run's numbers."""
    store = tmp_path / "s.db"
    with StubServer() as server:
        assert _run(method, server.url, tmp_path / "live.db", "l", *extra) in (0, 1)
        requests = tmp_path / "requests-1.jsonl"
        assert _run(method, server.url, store, "e", *extra, "--via", "export", "--out", str(requests)) == 0
        with Store(store, read_only=True) as s:
            assert s.get_run("e")["status"] == "awaiting_replies"
            assert s.query_one("SELECT COUNT(*) AS n FROM calls")["n"] == 0
        waves = 0
        while requests.exists():
            waves += 1
            replies = tmp_path / f"replies-{waves}.jsonl"
            _stub_run_batch(server.app, requests, replies)
            nxt = tmp_path / f"requests-{waves + 1}.jsonl"
            assert main(["import-replies", "e", str(replies), "--store", str(store), "--out", str(nxt), "--quiet"]) in (0, 1)
            requests = nxt
            assert waves < 10
    with Store(store, read_only=True) as s:
        status = s.get_run("e")["status"]
    assert waves == 4 and status in ("completed", "completed_with_failures")
    assert _numbers(store, method) == _numbers(tmp_path / "live.db", method)


def _exported(tmp_path: Path, server: StubServer) -> tuple[Path, Path, list[dict]]:
    store, requests = tmp_path / "s.db", tmp_path / "requests.jsonl"
    assert _run("values", server.url, store, "e", *VALUES[:-4], "--contexts", "no_conv", "--answer-mode", "text",
                "--via", "export", "--out", str(requests)) == 0
    replies = tmp_path / "replies.jsonl"
    _stub_run_batch(server.app, requests, replies)
    return store, replies, [json.loads(line) for line in replies.read_text().splitlines()]


@pytest.mark.parametrize("breakage,message", [
    ("unknown", "is not a request this run awaits now"),
    ("duplicate", "again (first on line 1)"),
    ("missing", "no result for 1 of the 18 requests"),
    ("malformed", "line 3: not JSON"),
    ("bad_id", "is not a RoleScope call key"),
    ("bad_body", "line 2: not a usable chat completion"),
    ("deep", "line 2: not JSON (nested too deeply)"),
    ("deep_list", "line 2: not JSON (nested too deeply)"),
    ("huge_int", "line 2: not JSON (a number of more than 4,300 digits)"),
])
def test_a_bad_replies_file_is_named_and_nothing_is_stored(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                                          breakage: str, message: str) -> None:
    with StubServer() as server:
        store, replies, lines = _exported(tmp_path, server)
    texts = [json.dumps(line) for line in lines]
    if breakage == "unknown":
        texts.append(json.dumps({**lines[0], "custom_id": "f" * 64}))
    elif breakage == "duplicate":
        texts.append(texts[0])
    elif breakage == "missing":
        texts.pop()
    elif breakage == "malformed":
        texts[2] = texts[2][:40]
    elif breakage == "bad_id":
        texts[1] = json.dumps({**lines[1], "custom_id": "item-1"})
    elif breakage == "bad_body":
        texts[1] = json.dumps({**lines[1], "response": {"status_code": 200, "body": {"choices": []}}})
    elif breakage == "deep":  # issue 58: a RecursionError, exit 1
        texts[1] = texts[1][:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    elif breakage == "deep_list":
        texts[1] = "[" * 100_000
    elif breakage == "huge_int":  # issue 58: Python's integer-digits ValueError, exit 1
        texts[1] = texts[1].replace('"prompt_tokens": ', '"prompt_tokens": ' + "9" * 5000, 1)
    replies.write_text("\n".join(texts) + "\n")
    before = store.read_bytes()
    capfd.readouterr()
    assert main(["import-replies", "e", str(replies), "--store", str(store), "--quiet"]) == 2
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and str(replies) in err[0]
    with Store(store, read_only=True) as s:
        assert s.query_one("SELECT COUNT(*) AS n FROM calls")["n"] == 0
        assert s.query_one("SELECT COUNT(*) AS n FROM call_failures")["n"] == 0
        assert s.get_run("e")["status"] == "awaiting_replies"
    assert len(before) > 0


def _rows(store: Path) -> tuple:
    """What a refused import must leave as it was: the runs (but when they were last touched), the calls and the
    failures."""
    with Store(store, read_only=True) as s:
        frames = [s.frame(f"SELECT * FROM {table} ORDER BY 1") for table in ("runs", "calls", "call_failures")]
    return tuple(frame.drop(columns=["updated_at"], errors="ignore").to_json() for frame in frames)


def test_a_reply_naming_another_model_is_refused_and_nothing_is_stored(tmp_path: Path,
                                                                       capfd: pytest.CaptureFixture[str]) -> None:
    """Issue 58 item 6: a results line whose body names another model than the run's (``stub``) is refused in one
    line naming the file, the line and both models (escaped), exit 2; the store's runs and rows are as they were. The
    same file with the run's model echoed as providers do (a prefix, capitals, a dated snapshot) imports."""
    with StubServer() as server:
        store, replies, lines = _exported(tmp_path, server)
    lines[3]["response"]["body"]["model"] = "gpt-4o-mini\x1b[2J"
    replies.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    before = _rows(store)
    capfd.readouterr()
    assert main(["import-replies", "e", str(replies), "--store", str(store), "--quiet"]) == 2
    err = capfd.readouterr().err.strip().splitlines()
    assert err == [f"error: {replies}: line 4: the reply names the model 'gpt-4o-mini\\x1b[2J', not 'stub' that its "
                   "request was sent to (the only such line); nothing was stored"]
    assert _rows(store) == before

    for line in lines:
        line["response"]["body"]["model"] = "vendor/STUB-2024-08-06"
    del lines[5]["response"]["body"]["model"]  # a body naming no model is accepted
    replies.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert main(["import-replies", "e", str(replies), "--store", str(store), "--quiet"]) == 0
    with Store(store, read_only=True) as s:
        assert s.query_one("SELECT COUNT(*) AS n FROM calls")["n"] == len(lines) == 18
        assert s.get_run("e")["status"] == "completed"


def test_provider_batch_replies_of_another_model_are_failures_asked_again(tmp_path: Path) -> None:
    """``--via batch``: an output line whose body names another model is not stored as the run's answer; its call
    fails naming the batch, the line and both models (the other lines, paid for, are kept), and resume asks it again."""
    store = tmp_path / "s.db"
    with StubServer() as server:
        server.configure(faults=[FaultRule("other_model", modulo=3)])
        assert _run("values", server.url, store, "x", *VALUES[:-4], "--contexts", "no_conv", "--answer-mode", "text",
                    "--via", "batch", "--poll", "0.02") == 1
        with Store(store, read_only=True) as s:
            errors = s.frame("SELECT error FROM call_failures")["error"].tolist()
            answered = s.query_one("SELECT COUNT(*) AS n FROM calls")["n"]
        assert errors and answered == 18 - len(errors)
        assert all(re.fullmatch(r"batch \S+: line \d+: the reply names the model 'stub-other', not 'stub' that its "
                                r"request was sent to", e) for e in errors), errors
        server.configure()
        assert main(["resume", "x", "--store", str(store), "--quiet", "--via", "batch", "--poll", "0.02"]) == 0
    with Store(store, read_only=True) as s:
        assert s.query_one("SELECT COUNT(*) AS n FROM calls")["n"] == 18
        assert s.get_run("x")["status"] == "completed"


def test_nesting_at_the_parsers_limit_is_imported_or_refused_never_a_crash(tmp_path: Path,
                                                                          capfd: pytest.CaptureFixture[str]) -> None:
    """A result line nested just below what the file reader parses is parsed again, deeper in the stack, when the run
    uses it: each depth around Python's recursion limit is imported (exit 0) or refused in one line naming the file
    and line (exit 2), never a RecursionError (exit 1); a refused file stores nothing."""
    import shutil
    import sys as _sys

    with StubServer() as server:
        store, replies, lines = _exported(tmp_path, server)
    fresh = tmp_path / "fresh.db"
    shutil.copy(store, fresh)
    texts = [json.dumps(line) for line in lines]
    limit = _sys.getrecursionlimit()
    codes = set()
    for depth in range(limit - 120, limit + 10, 6):
        shutil.copy(fresh, store)
        deep = texts[1][:-1] + ', "x": ' + "[" * depth + "]" * depth + "}"
        replies.write_text("\n".join([texts[0], deep, *texts[2:]]) + "\n")
        capfd.readouterr()
        code = main(["import-replies", "e", str(replies), "--store", str(store), "--quiet"])
        err = capfd.readouterr().err.strip().splitlines()
        assert code in (0, 2), (depth, err)
        if code == 2:
            assert len(err) == 1 and f"{replies}: line 2: " in err[0] and "nested too deeply" in err[0], err
            with Store(store, read_only=True) as s:
                assert s.query_one("SELECT COUNT(*) AS n FROM calls")["n"] == 0
        codes.add(code)
    assert codes == {0, 2}


def test_error_lines_are_stored_as_failures_and_asked_again(tmp_path: Path) -> None:
    with StubServer() as server:
        store, replies, lines = _exported(tmp_path, server)
        lines[0] = {**lines[0], "response": {"status_code": 400, "body": {"error": {"message": "context too long"}}}}
        lines[1] = {"custom_id": lines[1]["custom_id"], "response": None, "error": {"code": "server_error", "message": "oom"}}
        replies.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
        assert main(["import-replies", "e", str(replies), "--store", str(store), "--quiet"]) == 1  # 2 calls failed
        with Store(store, read_only=True) as s:
            errors = sorted(s.frame("SELECT error FROM call_failures")["error"])
            assert s.get_run("e")["status"] == "completed_with_failures"
        assert errors == ["HTTP 400: context too long", "batch error: server_error: oom"]
        again = tmp_path / "again.jsonl"
        assert main(["export-requests", "e", "--store", str(store), "--out", str(again), "--quiet"]) == 0
        asked = [json.loads(line)["custom_id"] for line in again.read_text().splitlines()]
        assert sorted(asked) == sorted([lines[0]["custom_id"], lines[1]["custom_id"]])


def test_import_replies_names_the_command_that_continues(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """Issue 61 item 5: after an import that left calls failed, the printed command is ``export-requests`` (a
    ``resume`` would send them live), and followed as printed it exports exactly them; a vLLM error line's plain
    string is stored as its text; once the plan is done, the printed command reads the numbers (``metrics``)."""
    import shlex

    from analysis.__main__ import build_parser

    with StubServer() as server:
        store, replies, lines = _exported(tmp_path, server)
    failed = {lines[0]["custom_id"], lines[1]["custom_id"]}
    # vllm run_batch: an exception as a string; its ErrorResponse (Requested sample logprobs ...) as an object
    lines[0] = {"id": "vllm-1", "custom_id": lines[0]["custom_id"],
                "response": {"status_code": 400, "request_id": "vllm-batch-1", "body": None}, "error": "boom"}
    lines[1] = {"id": "vllm-2", "custom_id": lines[1]["custom_id"],
                "response": {"status_code": 400, "request_id": "vllm-batch-2", "body": None},
                "error": {"error": {"message": "Requested sample logprobs of 20, which is greater than max allowed: 5",
                                    "type": "BadRequestError", "param": "logprobs", "code": 400}}}
    replies.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    capfd.readouterr()
    assert main(["import-replies", "e", str(replies), "--store", str(store), "--quiet"]) == 1
    err = capfd.readouterr().err
    with Store(store, read_only=True) as s:
        errors = sorted(s.frame("SELECT error FROM call_failures")["error"])
    assert errors == ["batch error: 400: Requested sample logprobs of 20, which is greater than max allowed: 5",
                      "batch error: boom"]
    assert "resume with" not in err and "python -m analysis resume" not in err, err
    hint = next(line for line in err.splitlines() if "2 calls failed; continue with: " in line)
    argv = shlex.split(hint.split("continue with: ", 1)[1])
    assert argv[:4] == ["python", "-m", "analysis", "export-requests"] and argv[argv.index("--store") + 1] == str(store)
    again = tmp_path / "again.jsonl"
    argv[argv.index("--out") + 1] = str(again)  # requests.jsonl, here in tmp_path
    assert main([*argv[3:], "--quiet"]) == 0
    asked = [json.loads(line) for line in again.read_text().splitlines()]
    assert {line["custom_id"] for line in asked} == failed

    answers = tmp_path / "answers.jsonl"
    with StubServer() as server:
        _stub_run_batch(server.app, again, answers)
    capfd.readouterr()
    assert main(["import-replies", "e", str(answers), "--store", str(store), "--quiet"]) == 0
    err = capfd.readouterr().err
    done = next(line for line in err.splitlines() if "is complete; its numbers: " in line)
    argv = shlex.split(done.split("its numbers: ", 1)[1])
    assert argv[:4] == ["python", "-m", "analysis", "metrics"] and build_parser().parse_args(argv[3:]).method == "values"
    assert "continue with" not in err


def test_export_waves_match_the_method_hook_for_every_method(tmp_path: Path) -> None:
    """Every method's contract plan, exported and imported wave by wave: as many waves as ``Method.waves`` says."""
    import importlib

    from analysis import methods

    with StubServer() as server:
        for name in methods.names():
            extra = importlib.import_module(f"tests.methods.{name}").CONTRACT_RUN
            store, requests = tmp_path / f"{name}.db", tmp_path / f"{name}-1.jsonl"
            assert _run(name, server.url, store, "w", *extra, "--via", "export", "--out", str(requests)) == 0
            waves = 0
            while requests.exists() and waves < 200:
                waves += 1
                replies = tmp_path / f"{name}-replies-{waves}.jsonl"
                _stub_run_batch(server.app, requests, replies)
                requests = tmp_path / f"{name}-{waves + 1}.jsonl"
                main(["import-replies", "w", str(replies), "--store", str(store), "--out", str(requests), "--quiet"])
            with Store(store, read_only=True) as s:
                run = s.get_run("w")
            assert waves == methods.get(name).waves(run["plan"]), name
            assert run["status"] in ("completed", "completed_with_failures"), name


def _method_names() -> list[str]:
    from analysis import methods

    return methods.names()


@pytest.mark.parametrize("name", _method_names())
def test_every_method_through_provider_batches_gives_the_live_report(tmp_path: Path, name: str) -> None:
    """The contract plan of every method (tests/methods/<m>/CONTRACT_RUN) via the stub's batch API: as many batches as
    its waves, the same exit code and the same numbers as live."""
    import importlib

    from analysis import methods

    extra = importlib.import_module(f"tests.methods.{name}").CONTRACT_RUN
    with StubServer() as server:
        code_batch = _run(name, server.url, tmp_path / "batch.db", "b", *extra, "--via", "batch", "--poll", "0.02")
        batches = server.app.batches.stats()["batches"]
        code_live = _run(name, server.url, tmp_path / "live.db", "l", *extra)
    with Store(tmp_path / "batch.db", read_only=True) as store:
        plan = store.get_run("b")["plan"]
    assert code_batch == code_live
    assert batches == methods.get(name).waves(plan)
    assert _numbers(tmp_path / "batch.db", name) == _numbers(tmp_path / "live.db", name)


def test_values_samples_are_waves_one_after_another(tmp_path: Path) -> None:
    from analysis import methods

    with StubServer() as server:
        assert _run("values", server.url, tmp_path / "s.db", "v", *VALUES, "--samples", "2", "--via", "batch",
                    "--poll", "0.02") == 0
        batches = server.app.batches.stats()["batches"]
    with Store(tmp_path / "s.db", read_only=True) as store:
        plan = store.get_run("v")["plan"]
    assert batches == methods.get("values").waves(plan) == 3 + 2
