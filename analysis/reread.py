"""``python -m analysis reread``: re-derive stored answers from stored replies with today's readers; no request sent.

Each run is replayed offline on a copy of the store (``execute_run(offline=True)``: every reply comes from the call
cache). A run whose replay needs a request the cache does not hold (a re-read answer changes a later prompt, e.g. an
answer kept in the conversation history) is left unchanged and reported. Otherwise its rows are replaced, in one
transaction, by the replayed rows, and the changes are listed per table: rows whose validity or value changed.
The cached chance draws are dropped when anything changed (they were simulated from the old answers).
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.runs.runner import NOT_CACHED
from analysis.runs.store import Store
from analysis.chance import NULL_TABLE

#: bookkeeping tables with a run_id column that reread leaves alone
_KEEP = ("runs", "run_calls", "call_failures", "run_owners", "call_claims")
_NOT_COMPARED = {"raw", "cache_key", "created_at", "updated_at", "seconds"}


@dataclass
class TableChange:
    table: str
    before: int
    after: int
    changed: int
    examples: list[str] = field(default_factory=list)


@dataclass
class RunReread:
    run_id: str
    status: str  # "changed", "unchanged", "skipped"
    why: str = ""
    tables: list[TableChange] = field(default_factory=list)


def _run_tables(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Tables holding a run's rows: name -> its columns (primary-key columns first when it has a key)."""
    out = {}
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"):
        info = list(conn.execute(f'PRAGMA table_info("{name}")'))
        cols = [c[1] for c in info]
        if name not in _KEEP and "run_id" in cols:
            out[name] = cols
    return out


def _keyed(conn: sqlite3.Connection, table: str, run_id: str) -> dict[tuple, dict[str, Any]]:
    info = list(conn.execute(f'PRAGMA table_info("{table}")'))
    key_cols = [c[1] for c in sorted(info, key=lambda c: c[5]) if c[5] > 0]
    conn.row_factory = sqlite3.Row
    try:
        rows = [dict(r) for r in conn.execute(f'SELECT * FROM "{table}" WHERE run_id=?', (run_id,))]
    finally:
        conn.row_factory = None
    if not key_cols:  # no primary key: rows compared as a whole
        return {tuple(sorted((k, str(v)) for k, v in r.items())): r for r in rows}
    return {tuple(r[c] for c in key_cols): r for r in rows}


def _diff(table: str, old: dict[tuple, dict], new: dict[tuple, dict]) -> TableChange:
    change = TableChange(table, len(old), len(new), 0)
    for key in sorted(set(old) | set(new), key=str):
        a, b = old.get(key), new.get(key)
        if a is None or b is None:
            change.changed += 1
            if len(change.examples) < 5:
                change.examples.append(f"{key}: {'added' if a is None else 'gone'}")
            continue
        cols = [c for c in a if c not in _NOT_COMPARED and a[c] != b.get(c)]
        if cols:
            change.changed += 1
            if len(change.examples) < 5:
                shown = ", ".join(f"{c}: {str(a[c])[:40]!r} -> {str(b.get(c))[:40]!r}" for c in cols[:4])
                change.examples.append(f"{key}: {shown}")
    return change


def _replay(copy: Path, run: dict[str, Any]) -> str | None:
    """Replay ``run`` offline in the store copy; the reason it cannot be re-read, or None."""
    from analysis.methods import create_run, execute_run

    with Store(copy) as store:
        store.delete_run(run["run_id"])
        create_run(store, run["method"], ModelSpec.model_validate(run["model_spec"]), run["plan"], run["run_id"])
        summary = execute_run(store, run["run_id"], concurrency=4, offline=True)
        missing = store.query_one("SELECT COUNT(*) AS n FROM call_failures WHERE run_id=? AND error LIKE ?",
                                  (run["run_id"], NOT_CACHED + "%"))
        if missing and missing["n"]:
            return (f"{missing['n']} request(s) of the replay are not in the call cache (a re-read answer changes a "
                    "later prompt); reread sends nothing, so the run is left as it was")
        if summary.status not in ("completed", "completed_with_failures", "cancelled"):
            return f"the replay ended {summary.status}"
    return None


def reread(store_path: Path, run_ids: list[str] | None = None,
           log: Callable[[str], None] = print) -> list[RunReread]:
    """Re-read every run (or ``run_ids``) of the store; see the module docstring."""
    if not Path(store_path).exists():
        raise InputError(f"store {store_path}: file not found")
    with Store(store_path) as store:
        runs = store.frame("SELECT run_id, status FROM runs ORDER BY created_at")
        known = set(runs["run_id"]) if len(runs) else set()
        for rid in run_ids or []:
            if rid not in known:
                raise InputError(f"run '{rid}' not found in {store_path}")
        chosen = [store.get_run(r) for r in (run_ids or sorted(known))]
    out: list[RunReread] = []
    with tempfile.TemporaryDirectory(prefix="rolescope-reread-") as tmp:
        copy = Path(tmp) / "copy.db"
        for run in chosen:
            rid = run["run_id"]
            if run["status"] == "imported":
                out.append(RunReread(rid, "skipped", "imported from a file: its answers were read at import"))
                continue
            for leftover in (copy, copy.with_name(copy.name + "-wal"), copy.with_name(copy.name + "-shm")):
                leftover.unlink(missing_ok=True)  # a skipped run's replay copy: a backup onto it keeps its longer file
            with sqlite3.connect(store_path) as src, sqlite3.connect(copy) as dst:
                src.backup(dst)
            why = _replay(copy, run)
            if why:
                out.append(RunReread(rid, "skipped", why))
                log(f"{rid}: skipped: {why}")
                continue
            result = _apply(Path(store_path), copy, rid)
            out.append(result)
            log(_describe(result))
    if any(r.status == "changed" for r in out):
        with Store(store_path) as store:
            if NULL_TABLE.name in store.table_names():
                store.clear(NULL_TABLE.name)  # simulated from the old answers
    return out


def _apply(store_path: Path, copy: Path, run_id: str) -> RunReread:
    """Compare the replayed rows with the stored ones and, when they differ, replace them in one transaction."""
    conn = sqlite3.connect(store_path)
    fresh = sqlite3.connect(copy)
    try:
        tables = _run_tables(conn)
        changes = [_diff(t, _keyed(conn, t, run_id), _keyed(fresh, t, run_id)) for t in tables]
        changed = [c for c in changes if c.changed]
        if changed:
            conn.execute("ATTACH DATABASE ? AS fresh", (str(copy),))
            with conn:
                for table, cols in tables.items():
                    names = ", ".join(f'"{c}"' for c in cols)
                    conn.execute(f'DELETE FROM main."{table}" WHERE run_id=?', (run_id,))
                    conn.execute(f'INSERT INTO main."{table}" ({names}) SELECT {names} FROM fresh."{table}" WHERE run_id=?',
                                 (run_id,))
            conn.execute("DETACH DATABASE fresh")
        return RunReread(run_id, "changed" if changed else "unchanged", tables=changed)
    finally:
        conn.close()
        fresh.close()


def _describe(result: RunReread) -> str:
    if result.status != "changed":
        return f"{result.run_id}: {result.status}{': ' + result.why if result.why else ''}"
    lines = [f"{result.run_id}: changed"]
    for t in result.tables:
        lines.append(f"  {t.table}: {t.changed} of {t.before} rows changed ({t.after} rows now)")
        lines.extend(f"    {e}" for e in t.examples)
    return "\n".join(lines)

