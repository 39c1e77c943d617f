"""Two `run values` processes writing one store at once both complete, each with exactly its own, correct rows."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.stub_server import messages_hash, read_log, stub_process

REPO = Path(__file__).resolve().parents[2]
PERSONAS, ITEMS = 6, 10
N_CALLS = PERSONAS * ITEMS + PERSONAS * (3 + ITEMS)  # 3 messages generated after the opening
RUNS = {"ra": "0", "rb": "1"}  # run id -> seed (different option permutations, shared conversation turns)


def _run_args(url: str, store: Path, run_id: str) -> list[str]:
    return [sys.executable, "-m", "analysis", "run", "values", "--model", f"stub@{url}", "--contexts", "no_conv,topics_a",
            "--limit-personas", str(PERSONAS), "--limit-items", str(ITEMS), "--messages", "3", "--answer-mode", "logprob",
            "--seed", RUNS[run_id], "--concurrency", "4", "--run-id", run_id, "--store", str(store), "--quiet"]


def _frame(store: Path, sql: str) -> pd.DataFrame:
    conn = sqlite3.connect(store)
    try:
        df = pd.read_sql_query(sql, conn)
    finally:
        conn.close()
    return df.astype(object).where(df.notna(), None)


def _answers(store: Path, run_id: str) -> pd.DataFrame:
    df = _frame(store, f"SELECT * FROM values_answers WHERE run_id='{run_id}'")
    return df.sort_values(["context", "persona_id", "item_id"]).reset_index(drop=True)


def _links(store: Path, run_id: str) -> set[tuple[str, str]]:
    df = _frame(store, f"SELECT unit, cache_key FROM run_calls WHERE run_id='{run_id}'")
    return set(zip(df.unit, df.cache_key))


def _item_hashes(store: Path, run_id: str) -> set[str]:
    """Stub hashes of the run's item questions (seed-specific, unlike the shared conversation turns)."""
    df = _frame(store, "SELECT c.request FROM calls c JOIN run_calls r USING (cache_key) "
                       f"WHERE r.run_id='{run_id}' AND r.unit LIKE '%/item%'")
    return {messages_hash(json.loads(r)["messages"]) for r in df.request}


@pytest.mark.slow
def test_two_processes_share_one_store(tmp_path: Path) -> None:
    """Both runs complete with answers/links equal to single-process runs; integrity_check ok; no cross-run rows."""
    log_path = tmp_path / "stub.jsonl"
    with stub_process(log_path, "--latency", "0.05") as (_, url):
        refs = {rid: tmp_path / f"ref_{rid}.db" for rid in RUNS}
        for rid, ref in refs.items():
            subprocess.run(_run_args(url, ref, rid), cwd=REPO, check=True, timeout=300)
        start = len(read_log(log_path))
        shared = tmp_path / "shared.db"
        procs = {rid: subprocess.Popen(_run_args(url, shared, rid), cwd=REPO, stderr=subprocess.PIPE, text=True) for rid in RUNS}
        results = {rid: (p.wait(timeout=300), p.stderr.read() if p.stderr else "") for rid, p in procs.items()}
        concurrent_log = read_log(log_path)[start:]

    for rid, (code, err) in results.items():
        assert code == 0, f"{rid}: {err}"
    # the two runs really overlapped in time at the endpoint
    spans = {}
    for rid in RUNS:
        items = _item_hashes(refs[rid], rid)
        times = [e["t"] for e in concurrent_log if e["hash"] in items]
        assert len(times) == 2 * PERSONAS * ITEMS  # each item question asked once
        spans[rid] = (min(times), max(times))
    assert spans["ra"][0] < spans["rb"][1] and spans["rb"][0] < spans["ra"][1]

    assert _frame(shared, "PRAGMA integrity_check").iloc[0, 0] == "ok"
    status = _frame(shared, "SELECT run_id, status, n_units FROM runs ORDER BY run_id")
    assert status.values.tolist() == [["ra", "completed", N_CALLS], ["rb", "completed", N_CALLS]]
    for rid, ref in refs.items():
        answers, expected = _answers(shared, rid), _answers(ref, rid)
        assert len(answers) == 2 * PERSONAS * ITEMS and (answers["valid"] == 1).all()
        pd.testing.assert_frame_equal(answers, expected)
        assert _links(shared, rid) == _links(ref, rid) and len(_links(ref, rid)) == N_CALLS
    assert _frame(shared, "SELECT COUNT(*) AS n FROM values_answers").n[0] == 2 * 2 * PERSONAS * ITEMS
    assert _frame(shared, "SELECT COUNT(*) AS n FROM call_failures").n[0] == 0
    orphans = _frame(shared, "SELECT COUNT(*) AS n FROM values_answers a WHERE NOT EXISTS "
                             "(SELECT 1 FROM run_calls r WHERE r.run_id = a.run_id AND r.cache_key = a.cache_key)")
    assert orphans.n[0] == 0
    assert _item_hashes(shared, "ra").isdisjoint(_item_hashes(shared, "rb"))


@pytest.mark.slow
def test_two_processes_running_the_same_plan_pay_once(tmp_path: Path) -> None:
    """The same plan run by two processes at once on one store: each request reaches the endpoint once (the second
    process waits for the first one's claimed call instead of paying again; before, 22 of 28 shared requests were
    paid twice), and both runs complete with identical answers."""
    from collections import Counter

    log_path = tmp_path / "stub.jsonl"
    shared = tmp_path / "shared.db"
    with stub_process(log_path, "--latency", "0.05") as (_, url):
        args = {}
        for rid in ("sa", "sb"):
            argv = _run_args(url, shared, "ra")  # the same plan (seed 0) ...
            argv[argv.index("--run-id") + 1] = rid  # ... under two run ids
            args[rid] = argv
        procs = {rid: subprocess.Popen(a, cwd=REPO, stderr=subprocess.PIPE, text=True) for rid, a in args.items()}
        results = {rid: (p.wait(timeout=300), p.stderr.read() if p.stderr else "") for rid, p in procs.items()}
        log = read_log(log_path)
    for rid, (code, err) in results.items():
        assert code == 0, f"{rid}: {err}"
    paid = Counter(e["hash"] for e in log)
    assert len(paid) == N_CALLS and set(paid.values()) == {1}
    cached = _frame(shared, "SELECT run_id, SUM(cached) AS n FROM run_calls GROUP BY run_id ORDER BY run_id").n.tolist()
    assert sum(cached) == N_CALLS  # every call paid by one run was a cache hit for the other
    pd.testing.assert_frame_equal(_answers(shared, "sa").drop(columns="run_id"), _answers(shared, "sb").drop(columns="run_id"))
    assert _frame(shared, "SELECT COUNT(*) AS n FROM call_claims").n[0] == 0
