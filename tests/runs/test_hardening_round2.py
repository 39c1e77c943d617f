"""Hardening, round 2: no key in any stored field, keys go only where the user sent them, replies bounded.

Every leak is tried with a real key present where it could leak (key-shaped and plain), against a hostile endpoint
(``tests.hostile_server``); the store, its WAL, every export format (written by a new process that never learns the
key) and the console are scanned.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.llm.client import ChatReply, ChatRequest, _count
from analysis.llm.keys import REDACTED, clip, redact, redact_token_rows, register_secret
from analysis.llm.specs import ModelSpec
from analysis.runs.store import Store
from tests.hostile_server import VALID_MODES, HostileServer
from tests.runs.test_keys import _files_containing

REPO = Path(__file__).resolve().parents[2]
KEYS = {"key-shaped": lambda: "sk-test-" + secrets.token_hex(16), "plain": lambda: "hunter2" + secrets.token_hex(8)}
VALUES = ["run", "values", "--limit-personas", "2", "--limit-items", "4", "--contexts", "no_conv", "--quiet"]
METHOD_ARGS = {
    "values-logprob": [*VALUES, "--answer-mode", "logprob"],
    "values-text": [*VALUES, "--answer-mode", "text"],
    "mbti": ["run", "mbti", "--subjects", "Men", "--testings", "1", "--limit-statements", "3", "--order", "fixed",
             "--answer-mode", "text", "--quiet"],
    "trust": ["run", "trust", "--personas", "20", "--limit-personas", "3", "--attributes", "age", "--strategies",
              "ctx-tr", "--attribute-set", "rolescope15", "--quiet"],
    "personagym": ["run", "personagym", "--personas", "1", "--questions-per-task", "1", "--quiet"],
}


@pytest.fixture
def hostile():
    with HostileServer() as server:
        yield server


def _export_in_new_process(store: Path, out: Path) -> str:
    """Every format exported by a process whose environment holds no key; its console output."""
    env = {k: v for k, v in os.environ.items() if k not in ("ROLESCOPE_API_KEY",)}
    script = ("import sys; from analysis.__main__ import main\n"
              "for fmt in ('csv', 'json', 'parquet'):\n"
              f"    assert main(['export', '--store', {str(store)!r}, '--format', fmt, '--out', {str(out)!r} + '/' + fmt]) == 0")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def _parquet_text(out: Path) -> str:
    import pandas as pd

    return "".join(pd.read_parquet(p).to_csv() for p in (out / "parquet").glob("*.parquet"))


def _integrity_ok(store: Path) -> bool:
    with sqlite3.connect(store) as conn:
        return conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


# -- the four key leaks ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(KEYS))
@pytest.mark.parametrize("mode,method", [("finish_echo", "values-text"), ("finish_echo", "trust"),
                                         ("finish_echo", "personagym"), ("split_tokens", "values-logprob"),
                                         ("reply_echo", "values-logprob"), ("reply_echo", "mbti")])
def test_a_key_echoed_in_any_field_of_a_reply_is_never_stored(hostile: HostileServer, tmp_path: Path, kind: str,
                                                              mode: str, method: str, monkeypatch: pytest.MonkeyPatch,
                                                              capfd: pytest.CaptureFixture[str]) -> None:
    """Leaks 1 and 2: the key as the finish reason (stored by every method's table) and spelled across logprob tokens
    (3 pieces, each too short to be recognised alone), and everywhere at once."""
    key = KEYS[kind]()
    monkeypatch.setenv("ROLESCOPE_API_KEY", key)
    hostile.configure(mode, parts=3)
    store = tmp_path / "s.db"
    code = main([*METHOD_ARGS[method], "--model", f"m@{hostile.url}", "--store", str(store), "--max-attempts", "1"])
    assert code in (0, 1)
    calls = hostile.calls()
    assert calls and all(c["auth_sha256"] == hashlib.sha256(f"Bearer {key}".encode()).hexdigest() for c in calls)
    with Store(store, read_only=True) as st:
        stored = st.frame("SELECT reply, finish_reason, logprobs FROM calls")
        assert len(stored) > 0
        if mode == "split_tokens":
            rows = [json.loads(j) for j in stored.logprobs]
            assert all(REDACTED in row and "x" in row for call in rows for row in call)  # each piece gone, "x" kept
        if mode == "finish_echo":
            assert (stored.finish_reason == REDACTED).all()
    pieces = [key[i:i + 6] for i in range(0, len(key) - 5)]  # no 6-character piece of the key anywhere
    assert _files_containing(tmp_path, [key]) == []
    console = _export_in_new_process(store, tmp_path / "export")
    out, err = capfd.readouterr()
    for text in (console, out, err, _parquet_text(tmp_path / "export")):
        assert key not in text
    assert _files_containing(tmp_path, [key]) == []
    if kind == "plain":  # the plain key's pieces are rare enough to look for them all
        assert _files_containing(tmp_path, [p for p in pieces if len(p) >= 11]) == []
    assert _integrity_ok(store)


@pytest.mark.parametrize("kind", list(KEYS))
def test_a_key_in_a_token_count_is_redacted_before_the_cut(kind: str) -> None:
    """Leak 3: the token-count error cut at 40 characters: the key at every offset around the cut leaves no prefix."""
    key = KEYS[kind]()
    register_secret(key)
    for pad in range(0, 45):
        with pytest.raises(Exception) as exc:
            _count("x" * pad + key, "prompt_tokens")
        message = str(exc.value)
        for n in range(6, len(key) + 1):
            assert key[:n] not in message and key[-n:] not in message, (pad, n)


@pytest.mark.parametrize("kind", list(KEYS))
def test_clip_never_leaves_a_piece_of_a_key(kind: str) -> None:
    """``clip`` redacts, then cuts: for every cut position and every offset of the key, no 6-character piece of it."""
    key = KEYS[kind]()
    register_secret(key)
    for offset in range(0, 30):
        text = "e" * offset + key + " tail"
        for limit in range(1, len(text) + 2):
            cut = clip(text, limit)
            assert all(key[i:i + 6] not in cut for i in range(len(key) - 5)), (offset, limit)


def test_fragments_and_split_tokens_are_found() -> None:
    key = "plainsecret" + secrets.token_hex(8)
    register_secret(key)
    assert redact(f"cut here: {key[:-3]}") == f"cut here: {REDACTED}"  # a key cut before it was redacted
    assert redact(f"{key[5:]}!") == f"{REDACTED}!"
    assert redact("an ordinary sentence stays as it is") == "an ordinary sentence stays as it is"
    assert len(key) == 27
    rows = [{"He": -0.1}, {"llo " + key[:4]: -0.2, "x": -1.0}, {key[4:9]: -0.3}, {key[9:18]: -0.3, "y": -2.0},
            {key[18:] + " end": -0.4}, {"!": -0.5}]  # every piece shorter than a recognisable fragment
    clean = redact_token_rows(rows)
    assert clean[0] == {"He": -0.1} and clean[5] == {"!": -0.5} and clean[1]["x"] == -1.0 and clean[3]["y"] == -2.0
    assert all(REDACTED in row for row in clean[1:5])
    assert key not in json.dumps(clean) and key[4:9] not in json.dumps(clean)


def test_a_word_inside_a_secret_is_not_a_fragment_of_it(tmp_path: Path) -> None:
    """A secret holding a word ("environment") leaves that word alone elsewhere: a stored plan keeps its field names
    (it was stored as '***s_per_persona', unreadable); the secret itself and any cut of it with other characters go."""
    key = "from-environment-" + secrets.token_hex(4)
    register_secret(key)
    assert redact("environments_per_persona") == "environments_per_persona"
    assert redact(f"x {key[5:]} y") == f"x {REDACTED} y" and redact(key) == REDACTED
    with Store(tmp_path / "s.db") as store:
        store.create_run("r1", "personagym", "m", {"name": "m"}, {"environments": ["Market"], "environments_per_persona": None})
        assert store.get_run("r1")["plan"] == {"environments": ["Market"], "environments_per_persona": None}


@pytest.mark.parametrize("via", ["cli", "library"])
def test_resume_of_a_strangers_store_sends_no_key_without_confirmation(hostile: HostileServer, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch, via: str,
                                                                       capfd: pytest.CaptureFixture[str]) -> None:
    """Leak 4: a store someone else made names GITHUB_TOKEN and a base_url of theirs. ``resume`` refuses before any
    request (exit 2, naming the endpoint and --trust-endpoint); confirmed with --trust-endpoint, it is sent."""
    token = "ghp_" + secrets.token_hex(18)
    monkeypatch.setenv("GITHUB_TOKEN", token)
    store = tmp_path / "theirs.db"
    spec = ModelSpec(name="innocent", backend="custom", model="m", base_url=hostile.url, api_key_env="GITHUB_TOKEN")
    from analysis.methods.values.plan import build_values_plan

    plan = build_values_plan(spec, limit_personas=1, limit_items=2, answer_mode="logprob")
    with Store(store) as st:
        st.create_run("r1", "values", spec.name, spec.public_dict(), plan.model_dump())
    before = store.read_bytes()
    if via == "cli":
        assert main(["resume", "r1", "--store", str(store), "--quiet"]) == 2
        err = capfd.readouterr().err
        assert err.count("\n") == 1 and "--trust-endpoint" in err and hostile.url in err and token not in err
    else:
        from analysis.llm.keys import UntrustedEndpoint
        from analysis.methods import execute_run

        with Store(store) as st, pytest.raises(UntrustedEndpoint):
            execute_run(st, "r1")
    assert hostile.calls() == []
    with Store(store, read_only=True) as st:
        assert st.get_run("r1")["status"] == "created"  # untouched
    assert main(["resume", "r1", "--store", str(store), "--quiet", "--trust-endpoint", hostile.url]) == 0
    sent = {c["auth_sha256"] for c in hostile.calls()}
    assert sent == {hashlib.sha256(f"Bearer {token}".encode()).hexdigest()}
    assert before != store.read_bytes()


def test_a_stored_openai_spec_naming_another_variable_gets_no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built-in endpoints are trusted with their own variable only: api.openai.com with GITHUB_TOKEN is refused."""
    from analysis.llm.keys import UntrustedEndpoint, resolve_api_key
    from analysis.llm.specs import OPENAI_BASE_URL

    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + secrets.token_hex(18))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + secrets.token_hex(20))
    ok = ModelSpec(name="o", backend="openai", model="gpt", base_url=OPENAI_BASE_URL, api_key_env="OPENAI_API_KEY")
    assert resolve_api_key(ok) == os.environ["OPENAI_API_KEY"]
    bad = ok.model_copy(update={"api_key_env": "GITHUB_TOKEN"})
    with pytest.raises(UntrustedEndpoint):
        resolve_api_key(bad)
    evil = ok.model_copy(update={"base_url": "https://api.openai.com.evil.example/v1"})
    with pytest.raises(UntrustedEndpoint):
        resolve_api_key(evil)


# -- replies that must not be stored as valid -----------------------------------------------------------------------
@pytest.mark.parametrize("mode,kw", [("nan_logprob", {}), ("inf_logprob", {}), ("surrogate", {}), ("huge_count", {}),
                                     ("negative_count", {}), ("big", {"size": 50 * 2**20}),
                                     ("gzip_bomb", {"size": 256 * 2**20}), ("deep_json", {}), ("not_json", {}),
                                     ("wrong_types", {}), ("huge_finish", {}), ("null_choice", {})])
def test_hostile_replies_fail_their_call_and_nothing_else(hostile: HostileServer, tmp_path: Path, mode: str,
                                                          kw: dict, capfd: pytest.CaptureFixture[str]) -> None:
    """Every other reply is hostile: those calls fail (retryably: stored as failures, asked again by resume), the
    run goes on, nothing hostile is stored, and a resume against a healed endpoint completes paying only the calls
    that failed."""
    hostile.configure(mode, every=2, **kw)
    store = tmp_path / "s.db"
    code = main([*METHOD_ARGS["values-logprob"], "--model", f"m@{hostile.url}", "--store", str(store),
                 "--max-attempts", "1", "--run-id", "h1"])
    err = capfd.readouterr().err
    assert code == 1 and "Traceback" not in err
    with Store(store, read_only=True) as st:
        failures = st.frame("SELECT error FROM call_failures")
        calls = st.frame("SELECT reply, logprobs, finish_reason, tokens_out FROM calls")
    assert len(failures) > 0 and failures.error.str.startswith("malformed reply").all()
    assert failures.error.str.len().max() <= 1000
    assert calls.reply.str.len().max() < 10_000 and "\ufffd" not in "".join(calls.reply)
    assert "NaN" not in "".join(calls.logprobs.fillna("")) and calls.tokens_out.max() < 10**9
    assert _integrity_ok(store)
    paid = len(hostile.calls())
    hostile.configure("ok")
    assert main(["resume", "h1", "--store", str(store), "--quiet"]) == 0
    assert len(hostile.calls()) - paid == len(failures)  # only the failed calls asked again


def test_a_drip_fed_reply_meets_the_total_deadline(hostile: HostileServer, tmp_path: Path) -> None:
    """A reply sent a byte every 0.3 s never trips a per-read timeout; the call's total deadline (2 s) stops it."""
    import asyncio

    from analysis.llm.client import CallError, LLMClient

    hostile.configure("drip", drip_s=0.3)
    spec = ModelSpec(name="d", backend="custom", model="m", base_url=hostile.url, timeout_s=2.0)
    client = LLMClient(spec)
    started = time.perf_counter()
    with pytest.raises(CallError) as exc:
        asyncio.run(client.complete(ChatRequest.build([{"role": "user", "content": "hi"}], {"max_tokens": 5})))
    assert time.perf_counter() - started < 6 and exc.value.retryable and "timeout" in str(exc.value)


def test_nan_parameters_are_never_sent() -> None:
    import asyncio

    from analysis.llm.client import CallError, LLMClient

    client = LLMClient(ModelSpec(name="n", backend="custom", model="m", base_url="http://127.0.0.1:9/v1"))
    with pytest.raises(CallError) as exc:
        asyncio.run(client.complete(ChatRequest.build([{"role": "user", "content": "x"}], {"temperature": float("nan")})))
    assert not exc.value.retryable and "not sent" in str(exc.value)


# -- paid twice, deleted while running, the wrong store ---------------------------------------------------------------
def test_a_claim_lost_during_a_retry_wait_is_not_paid_twice(tmp_path: Path) -> None:
    """The lease ran out during a Retry-After wait and another process claimed the request and stored its reply:
    the first caller must read that reply, not send the request again."""
    import asyncio

    from analysis.llm.client import CallError
    from analysis.runs.executor import Executor, RetryPolicy

    store = Store(tmp_path / "s.db")
    store.create_run("r", "values", "m", {}, {})
    request = ChatRequest.build([{"role": "user", "content": "hi"}], {})
    sent: list[int] = []

    class Client:
        spec = ModelSpec(name="m", backend="custom", model="m", base_url="http://127.0.0.1:9/v1", timeout_s=1.0)

        async def complete(self, req: ChatRequest) -> ChatReply:
            sent.append(1)
            if len(sent) == 1:  # the first attempt: 429; while we wait, another process takes over and answers
                key = req.cache_key(self.spec.identity)
                store._conn.execute("UPDATE call_claims SET owner='otherhost:1:x', expires_at=? WHERE cache_key=?",
                                    (time.time() + 600, key))
                store.record_call("other", "u", key, "m", req, ChatReply("their reply", "stop"))
                raise CallError("HTTP 429", retryable=True, retry_after=0.01)
            return ChatReply("paid again", "stop")

    executor = Executor(store, "r", Client(), retry=RetryPolicy(max_attempts=3))  # type: ignore[arg-type]
    outcome = asyncio.run(executor.call("u", request))
    assert sent == [1] and outcome.reply is not None and outcome.reply.text == "their reply" and outcome.cached
    store.close()


def test_a_running_run_cannot_be_deleted(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """A run with a live owner (its process is alive) is refused with one line; once it has ended, it is deleted."""
    from analysis.runs.store import claim_owner

    path = tmp_path / "s.db"
    with Store(path) as st:
        st.create_run("r", "values", "m", {}, {})
        st.own_run("r", claim_owner("t"), 300)
    assert main(["delete", "r", "--store", str(path), "--yes"]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "is executing" in err
    with Store(path) as st:
        with pytest.raises(Exception) as exc:
            st.delete_run("r")
        assert "executing" in str(exc.value)
        st.release_run("r", claim_owner("t"))
        st.delete_run("r")
        assert st.runs().empty
    with Store(path) as st:  # a dead process's ownership does not block
        st.create_run("r2", "values", "m", {}, {})
        st.own_run("r2", f"{claim_owner('t').split(':')[0]}:999999999:x", 300)
        st.delete_run("r2")


def test_a_store_path_is_not_read_as_a_uri(tmp_path: Path) -> None:
    """``runs --store 's%41.db'`` lists s%41.db, not sA.db; '#' and '?' in a name work."""
    for name in ("s%41.db", "a#b.db", "c?d.db"):
        with Store(tmp_path / name) as st:
            st.create_run(f"run-{len(name)}-{name[0]}", "values", "m", {}, {})
    with Store(tmp_path / "sA.db") as st:
        st.create_run("decoy", "values", "m", {}, {})
    for name in ("s%41.db", "a#b.db", "c?d.db"):
        with Store(tmp_path / name, read_only=True) as st:
            assert st.runs().run_id.tolist() == [f"run-{len(name)}-{name[0]}"]


def test_an_unrelated_sqlite_file_is_refused_untouched(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER, text TEXT)")
        conn.execute("INSERT INTO notes VALUES (1, 'mine')")
    before = path.read_bytes()
    assert main([*METHOD_ARGS["values-logprob"], "--model", "m@http://127.0.0.1:9/v1", "--store", str(path)]) == 2
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "not a RoleScope store" in err and "notes" in err
    assert path.read_bytes() == before


def test_a_read_only_store_is_called_read_only(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes through file permissions")
    path = tmp_path / "ro.db"
    Store(path).close()
    path.chmod(0o444)
    tmp_path.chmod(0o555)
    try:
        assert main([*METHOD_ARGS["values-logprob"], "--model", "m@http://127.0.0.1:9/v1", "--store", str(path)]) == 2
        assert "read-only" in capfd.readouterr().err
    finally:
        tmp_path.chmod(0o755)


# -- the fuzz test: hostile replies through every method's entry point -----------------------------------------------
@pytest.mark.parametrize("method", ["values-logprob", "values-text", "mbti", "trust", "personagym"])
def test_fuzz_hostile_replies_through_every_method(hostile: HostileServer, tmp_path: Path, method: str,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capfd: pytest.CaptureFixture[str]) -> None:
    """Request n gets hostile mode n (``tests.hostile_server.MIXED``), with a plain key present. The run ends with
    one-line messages and no traceback; the store passes ``PRAGMA integrity_check`` and holds no key; a resume on the
    healed endpoint asks only what was not stored; every valid reply paid for is stored exactly once."""
    key = KEYS["plain"]()
    monkeypatch.setenv("ROLESCOPE_API_KEY", key)
    hostile.configure("mixed")
    store = tmp_path / "s.db"
    code = main([*METHOD_ARGS[method], "--model", f"m@{hostile.url}", "--store", str(store), "--max-attempts", "1",
                 "--run-id", "f1"])
    err = capfd.readouterr().err
    assert code in (0, 1) and "Traceback" not in err, err
    assert not any(line.startswith((" ", "\t")) for line in err.splitlines()), err  # no traceback frame
    assert _integrity_ok(store)
    with Store(store, read_only=True) as st:
        n_runs_before = len(st.runs())
    hostile.configure("ok")
    code = main(["resume", "f1", "--store", str(store), "--quiet"])
    assert code in (0, 1) and "Traceback" not in capfd.readouterr().err
    assert _integrity_ok(store) and _files_containing(tmp_path, [key]) == []
    with Store(store, read_only=True) as st:
        assert len(st.runs()) == n_runs_before  # nothing lost, nothing added
        stored = st.query_one("SELECT COUNT(*) AS n FROM calls")["n"]
        linked = st.query_one("SELECT COUNT(*) AS n FROM run_calls WHERE cached = 0")["n"]
    valid_paid = sum(c["mode"] in VALID_MODES for c in hostile.calls())
    assert valid_paid == stored == linked  # each valid reply paid once and kept once
