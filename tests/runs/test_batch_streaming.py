"""Issue 61 item 2: a results file is indexed, not held, and answered a chunk at a time; an export is written as it is
made. Each test runs the chunked path with chunks far smaller than the wave (``answering.CHUNK``,
``offline_batch.EXPORT_CHUNK``), so what holds for 100,000 calls in chunks of 2,000 shows on 18 in chunks of 4."""

from __future__ import annotations

import asyncio
import gc
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.errors import InputError
from analysis.llm.client import ChatReply, ChatRequest
from analysis.runs import answering, batch_file, offline_batch
from analysis.runs.batch_file import Oversized, file_lines_at
from analysis.runs.results_index import ResultsIndex
from analysis.runs.store import Store
from analysis.runs.waves import WaveCollector
from tests.runs.test_batch import _run, _stub_run_batch
from tests.stub_server import StubServer

REPO = Path(__file__).resolve().parents[2]
#: 3 personas × 6 items without conversation: 18 calls in one wave, answered by logprobs (2 positions each).
PLAN = ["--limit-personas", "3", "--limit-items", "6", "--contexts", "no_conv", "--answer-mode", "logprob"]
N_CALLS = 18
SMALL = 4


def _exported(tmp_path: Path) -> tuple[Path, Path, Path, list[dict]]:
    """A run awaiting its one wave (store), its requests, the stub's replies, and a live run of the same plan."""
    store, requests, replies, live = (tmp_path / "s.db", tmp_path / "requests.jsonl", tmp_path / "replies.jsonl",
                                      tmp_path / "live.db")
    with StubServer() as server:
        assert _run("values", server.url, store, "e", *PLAN, "--via", "export", "--out", str(requests)) == 0
        _stub_run_batch(server.app, requests, replies)
        assert _run("values", server.url, live, "l", *PLAN) == 0
    return store, replies, live, [json.loads(line) for line in replies.read_text().splitlines()]


def _stored(store: Path) -> tuple[list[tuple], list[tuple]]:
    """The calls (what each reply holds) and the answers rows of a store, without run ids or times."""
    conn = sqlite3.connect(store)
    try:
        calls = conn.execute("SELECT cache_key, reply, finish_reason, logprobs, tokens_in, tokens_out FROM calls "
                             "ORDER BY cache_key").fetchall()
        cur = conn.execute("SELECT * FROM values_answers ORDER BY cache_key")
        names = [d[0] for d in cur.description]
        answers = [tuple(v for n, v in zip(names, row) if n not in ("run_id", "created_at", "updated_at"))
                   for row in cur.fetchall()]
    finally:
        conn.close()
    return calls, answers


def _count(store: Path, table: str) -> int:
    conn = sqlite3.connect(store)
    try:
        return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def _import(store: Path, replies: Path) -> int:
    return main(["import-replies", "e", str(replies), "--store", str(store), "--quiet"])


@pytest.mark.parametrize("breakage,message", [
    ("malformed", f"line {N_CALLS}: not JSON"),
    ("duplicate", f"line {N_CALLS + 1}: custom_id"),
    ("unknown", f"line {N_CALLS + 1}: custom_id ffffffffffff… is not a request this run awaits now"),
    ("bad_body", f"line {N_CALLS}: not a usable chat completion"),
    ("other_model", f"line {N_CALLS}: the reply names the model 'stub-other'"),
    ("bad_logprobs", f"line {N_CALLS}: not a usable chat completion (malformed reply: logprob"),
])
def test_a_bad_last_line_stores_nothing_though_the_wave_is_answered_in_chunks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], breakage: str,
        message: str) -> None:
    """The whole file is checked before the first chunk is stored: a line that breaks at the end, found only after
    every other body was read, leaves the store as it was (exit 2, one line naming the file and line)."""
    monkeypatch.setattr(answering, "CHUNK", SMALL)
    store, replies, _, lines = _exported(tmp_path)
    texts = [json.dumps(line) for line in lines]
    last = lines[-1]
    if breakage == "malformed":
        texts[-1] = texts[-1][:-5]
    elif breakage == "duplicate":
        texts.append(texts[0])
    elif breakage == "unknown":
        texts.append(json.dumps({**last, "custom_id": "f" * 64}))
    elif breakage == "bad_body":
        texts[-1] = json.dumps({**last, "response": {"status_code": 200, "body": {"choices": []}}})
    elif breakage == "other_model":
        last["response"]["body"]["model"] = "stub-other"
        texts[-1] = json.dumps(last)
    elif breakage == "bad_logprobs":
        last["response"]["body"]["choices"][0]["logprobs"]["content"][1]["top_logprobs"][0]["logprob"] = float("nan")
        texts[-1] = json.dumps(last)
    replies.write_text("\n".join(texts) + "\n")
    capfd.readouterr()
    assert _import(store, replies) == 2
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(replies) in err[0] and message in err[0], err
    assert _count(store, "calls") == _count(store, "call_failures") == _count(store, "values_answers") == 0
    with Store(store, read_only=True) as s:
        assert s.get_run("e")["status"] == "awaiting_replies"


def test_an_import_in_chunks_stores_what_a_live_run_stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Answered 4 at a time or all at once (one chunk: as before the chunks), the import stores the same replies
    (text, both logprob positions, token counts) and the same answers, and they are the live run's."""
    store, replies, live, _ = _exported(tmp_path)
    at_once = tmp_path / "at-once.db"
    shutil.copy(store, at_once)
    monkeypatch.setattr(answering, "CHUNK", SMALL)
    assert _import(store, replies) == 0
    monkeypatch.setattr(answering, "CHUNK", 10**6)
    assert _import(at_once, replies) == 0
    chunked = _stored(store)
    assert len(chunked[0]) == len(chunked[1]) == N_CALLS
    assert all(json.loads(logprobs) and len(json.loads(logprobs)) == 2 for _, _, _, logprobs, _, _ in chunked[0])
    assert chunked == _stored(at_once) == _stored(live)


def test_the_replies_of_a_chunk_are_let_go_before_the_next_is_unpacked(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """At no point does the import hold more than a chunk of replies (the sessions store them and drop them before
    the next chunk is unpacked): answering them all at once held the whole wave's."""
    monkeypatch.setattr(answering, "CHUNK", SMALL)
    store, replies, _, _ = _exported(tmp_path)
    alive: list[int] = []
    real = answering.until_idle

    async def counting() -> None:
        gc.collect()
        alive.append(sum(type(o) is ChatReply for o in gc.get_objects()))  # handed over, not stored yet
        await real()
        gc.collect()
        alive.append(sum(type(o) is ChatReply for o in gc.get_objects()))  # stored by the sessions

    monkeypatch.setattr(answering, "until_idle", counting)
    assert _import(store, replies) == 0
    handed, stored = alive[0::2], alive[1::2]  # the run may end (and this wait be cancelled) once the last is stored
    assert len(handed) == -(-N_CALLS // SMALL) and max(handed) <= SMALL and max(stored) == 0, alive


@pytest.mark.slow
def test_an_import_killed_between_chunks_keeps_what_it_stored_and_is_imported_again(tmp_path: Path) -> None:
    """SIGKILL while the third chunk is being stored: the first two stay stored, the third is lost whole (its
    transaction), and the same file imported again skips the calls stored (the cache) and answers the rest; the
    store then holds what an uninterrupted import stores."""
    store, replies, _, _ = _exported(tmp_path)
    whole = tmp_path / "whole.db"
    shutil.copy(store, whole)
    killer = textwrap.dedent(f"""
        import os, signal, sys
        from analysis.runs import answering
        answering.CHUNK = {SMALL}
        real, chunks = answering.until_idle, []
        async def until_idle():
            await real()
            chunks.append(1)
            if len(chunks) == 3:
                os.kill(os.getpid(), signal.SIGKILL)
        answering.until_idle = until_idle
        from analysis.__main__ import main
        sys.exit(main(["import-replies", "e", {str(replies)!r}, "--store", {str(store)!r}, "--quiet"]))
    """)
    proc = subprocess.run([sys.executable, "-c", killer], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                          capture_output=True, timeout=300)
    assert proc.returncode == -9, proc.stderr.decode()
    assert _count(store, "calls") == _count(store, "values_answers") == 2 * SMALL
    assert _import(store, replies) == 0
    assert _import(whole, replies) == 0
    assert _stored(store) == _stored(whole)
    with Store(store, read_only=True) as s:
        assert s.get_run("e")["status"] == "completed"
        assert s.query_one("SELECT COUNT(*) AS n FROM run_calls WHERE run_id='e'")["n"] == N_CALLS


def test_an_export_in_chunks_is_the_file_written_at_once_and_atomic(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Written 4 requests at a time, the requests file is byte for byte the one written from one list (as before);
    an export that fails mid-way leaves the file that was there, and no temporary file."""
    store, _, _, _ = _exported(tmp_path)
    chunked, at_once = tmp_path / "out" / "chunked.jsonl", tmp_path / "out" / "at-once.jsonl"

    def export(out: Path) -> int:
        return main(["export-requests", "e", "--store", str(store), "--out", str(out), "--quiet"])

    monkeypatch.setattr(offline_batch, "EXPORT_CHUNK", SMALL)
    assert export(chunked) == 0
    monkeypatch.setattr(offline_batch, "EXPORT_CHUNK", 10**6)
    assert export(at_once) == 0
    assert chunked.read_bytes() == at_once.read_bytes() == (tmp_path / "requests.jsonl").read_bytes()
    assert len(chunked.read_bytes().splitlines()) == N_CALLS

    real, made = offline_batch.batch_lines, []

    def failing(entries):  # the third chunk cannot be made
        made.append(len(entries))
        if len(made) == 3:
            raise RuntimeError("disk gone")
        return real(entries)

    monkeypatch.setattr(offline_batch, "EXPORT_CHUNK", SMALL)
    monkeypatch.setattr(offline_batch, "batch_lines", failing)
    before = chunked.read_bytes()
    assert export(chunked) == 1
    assert chunked.read_bytes() == before and sorted(p.name for p in chunked.parent.iterdir()) == [
        "at-once.jsonl", "chunked.jsonl"]


def test_line_offsets_point_at_each_line_across_read_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read 7 bytes at a time, each line's offset is where it starts in the file (CRLF, blank, oversized and
    unterminated lines included), so a line is read back from its offset and length alone."""
    monkeypatch.setattr(batch_file, "CHUNK_BYTES", 7)
    data = b'{"a": 1}\r\n\n' + b"x" * 40 + b'\n{"bc": [2, 3]}\n  \nlast'
    lines = list(file_lines_at(io.BytesIO(data), max_line=30))
    assert [offset for offset, _ in lines] == [0, 10, 11, 52, 67, 70]
    assert isinstance(lines[2][1], Oversized) and len(lines[2][1]) == 40
    for offset, line in lines:
        if not isinstance(line, Oversized):
            assert data[offset:offset + len(line)] == line


def test_an_index_names_a_line_that_changed_after_it_was_read(tmp_path: Path) -> None:
    """Only offsets are kept: a line read back is parsed again, and one that no longer holds its ``custom_id`` (or is
    no longer JSON) is named by its number, never taken for another request's reply."""
    key, other = "a" * 64, "c" * 64
    good = {"custom_id": key, "response": {"status_code": 200, "body": {"choices": []}}, "error": None}
    failed = {"custom_id": "b" * 64, "response": {"status_code": 500, "body": {"error": {"message": "oom"}}}}
    path = tmp_path / "replies.jsonl"
    path.write_text(json.dumps(failed) + "\n\n" + json.dumps(good) + "\n")
    with open(path, "rb+") as handle:
        index = ResultsIndex()
        index.add(handle, "replies.jsonl")
        assert len(index) == 2 and index.line(key) == 3 and index.line("b" * 64) == 1
        assert [r.body for r in index.read([key])] == [good["response"]["body"]]
        assert [r.error for r in index.read(["b" * 64])] == ["HTTP 500: oom"]  # kept in the index, not read again
        handle.seek(-len(json.dumps(good)) - 1, 2)
        handle.write(json.dumps({**good, "custom_id": other}).encode())
        with pytest.raises(InputError, match=r"replies.jsonl: line 3: changed while it was read \(custom_id a{12}…"):
            list(index.read([key]))
        handle.truncate(handle.tell() - 5)
        with pytest.raises(InputError, match=r"replies.jsonl: line 3: not JSON"):
            list(index.read([key]))


def test_a_group_of_writes_is_one_transaction_and_a_failed_write_is_undone_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with Store(path) as store:
        with pytest.raises(KeyError), store.grouped():
            store.set_meta("a", "1")
            with pytest.raises(ZeroDivisionError), store._tx() as c:  # noqa: SLF001
                c.execute("INSERT INTO meta VALUES ('b', '2')")
                raise ZeroDivisionError
            store.set_meta("c", "3")
            other = sqlite3.connect(path)
            assert other.execute("SELECT COUNT(*) FROM meta WHERE key IN ('a', 'c')").fetchone()[0] == 0  # not yet
            other.close()
            raise KeyError("the block fails: what was written stays written")
        assert (store.get_meta("a"), store.get_meta("b"), store.get_meta("c")) == ("1", None, "3")
        store.set_meta("d", "4")  # a write after the group is a transaction of its own again
    with Store(path, read_only=True) as again:
        assert (again.get_meta("a"), again.get_meta("c"), again.get_meta("d")) == ("1", "3", "4")


def test_a_unit_cancelled_leaves_the_other_unit_of_its_request_waiting() -> None:
    """Two units of one request wait on futures of their own: cancelling one does not cancel the other."""
    reply = ChatReply("(B", "stop")

    async def scenario() -> ChatReply:
        async def handler(wave):
            await asyncio.sleep(0.05)
            assert [e.units for e in wave] == [["u1", "u2"]]
            for entry in wave:
                entry.resolve(reply)

        collector = WaveCollector(handler, settle_s=0.01)

        async def unit(name: str) -> ChatReply:
            return await collector.submit(name, "k" * 64, ChatRequest.build([{"role": "user", "content": "x"}]),
                                          object())

        first, second = asyncio.ensure_future(unit("u1")), asyncio.ensure_future(unit("u2"))
        await asyncio.sleep(0.02)
        first.cancel()
        got = await second
        assert first.cancelled()
        await collector.aclose()
        return got

    assert asyncio.run(scenario()) is reply


def test_equal_params_are_shared_and_params_written_otherwise_keep_their_keys() -> None:
    build = lambda params: ChatRequest.build([{"role": "user", "content": "x"}], params)  # noqa: E731
    a, b = build({"temperature": 0.0, "stop": ["\n"]}), build({"stop": ["\n"], "temperature": 0.0})
    assert a.params is b.params
    keys = {build(p).cache_key("m") for p in ({"temperature": 0}, {"temperature": 0.0}, {"logprobs": True},
                                              {"logprobs": 1}, {"temperature": -0.0})}
    assert len(keys) == 5
    assert build({"response_format": {"type": "json_object"}}).params[0][1] == {"type": "json_object"}
