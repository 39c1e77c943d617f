"""The results store: one SQLite file (WAL) holding runs, LLM calls and method answers.

Every finished call and every parsed answer is committed on its own, so a crash loses nothing
that finished. Several processes may write one store at once (WAL + busy timeout; each write is
one short transaction). A read-only store (the bundled demo) is opened with ``read_only=True``.

Tables
------
meta            key/value; ``schema_version``
runs            run_id, method, model (display name), model_spec (JSON, no secrets), plan (JSON),
                status, n_units, created_at, updated_at, finished_at, error
calls           the content-addressed call cache: cache_key -> request, reply, logprobs, tokens,
                latency, cost (successful calls only)
call_failures   failed units: run_id, unit, cache_key, error, attempts (kept as history)
run_calls       which cache entries a run used: run_id, unit, cache_key, cached (1 = cache hit)
call_claims     requests being sent right now: cache_key -> owner (a process's executor), lease expiry; another
                process wanting the same request waits for its reply instead of paying again
<method>_*      parsed answers, declared by each method (``register_table``)
"""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import quote

import pandas as pd

from analysis.errors import InputError, RunFailure
from analysis.importers.files import check_regular_file
from analysis.llm.keys import Scrubber

if TYPE_CHECKING:  # imported lazily: openai costs ~1 s, and reading a store (the app, `runs`, `export`) needs none of it
    from analysis.llm.client import ChatReply, ChatRequest

SCHEMA_VERSION = 1

_CORE_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, method TEXT NOT NULL, model TEXT NOT NULL, model_spec TEXT NOT NULL,
    plan TEXT NOT NULL, status TEXT NOT NULL, n_units INTEGER,
    created_at REAL NOT NULL, updated_at REAL NOT NULL, finished_at REAL, error TEXT
);
CREATE TABLE IF NOT EXISTS calls (
    cache_key TEXT PRIMARY KEY, model TEXT NOT NULL, request TEXT NOT NULL, reply TEXT NOT NULL,
    finish_reason TEXT, logprobs TEXT, tokens_in INTEGER, tokens_out INTEGER, cached_tokens INTEGER,
    latency_s REAL, cost REAL, run_id TEXT, created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS call_failures (
    id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, unit TEXT NOT NULL,
    cache_key TEXT NOT NULL, error TEXT NOT NULL, attempts INTEGER NOT NULL, created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS run_calls (
    run_id TEXT NOT NULL, unit TEXT NOT NULL, cache_key TEXT NOT NULL, cached INTEGER NOT NULL,
    created_at REAL NOT NULL, PRIMARY KEY (run_id, unit)
);
CREATE TABLE IF NOT EXISTS call_claims (
    cache_key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS run_owners (
    run_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS run_batches (
    batch_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, model TEXT NOT NULL, identity TEXT NOT NULL, wave INTEGER NOT NULL,
    status TEXT NOT NULL, n_requests INTEGER NOT NULL, units TEXT NOT NULL, detail TEXT,
    created_at REAL NOT NULL, updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS call_failures_run ON call_failures(run_id);
"""
#: A provider batch's states that may still produce replies (OpenAI's; the others are final).
OPEN_BATCH = ("validating", "in_progress", "finalizing", "cancelling", "submitted")


@dataclass(frozen=True)
class Table:
    """A method's answer table: name, columns with SQL types, primary key columns, and the rules a row from outside
    (a report file) must keep beyond its types (``rules``: ``analysis.runs.row_checks.RowRules``, ranges and allowed
    values, which may depend on the row's run); ``own_model``: whether a row's ``model`` column is its run's model
    (False where other models made the rows, such as a generator's questions)."""

    name: str
    columns: tuple[tuple[str, str], ...]
    key: tuple[str, ...]
    rules: Callable[[Any, Any], Any] | None = None
    own_model: bool = True

    def ddl(self) -> str:
        cols = ", ".join(f'"{c}" {t}' for c, t in self.columns)
        return f'CREATE TABLE IF NOT EXISTS "{self.name}" ({cols}, PRIMARY KEY ({", ".join(self.key)}))'


_TABLES: dict[str, Table] = {}


def _ensure_table(conn: sqlite3.Connection | _ScrubbingConnection, table: Table) -> None:
    """Create a registered table, or add the columns a newer RoleScope declares for it (``ALTER TABLE ADD COLUMN``;
    older rows read NULL there)."""
    conn.execute(table.ddl())
    have = {row[1] for row in conn.execute(f'PRAGMA table_info("{table.name}")')}
    for column, sql_type in table.columns:
        if column not in have:
            conn.execute(f'ALTER TABLE "{table.name}" ADD COLUMN "{column}" {sql_type}')


def registered_tables() -> frozenset[str]:
    """The names of the method tables registered so far (``register_table``)."""
    return frozenset(_TABLES)


def registered_table(name: str) -> Table | None:
    """The method table registered under ``name``, or None."""
    return _TABLES.get(name)


def register_table(table: Table) -> Table:
    """Declare a method table; every store creates it on open."""
    _TABLES[table.name] = table
    return table


def _enable_wal(conn: sqlite3.Connection, wait: float = 60.0) -> None:
    """Switch to WAL. Switching needs an exclusive lock that SQLite does not wait for (no busy handler), so two
    processes opening a new store at once would fail with 'database is locked': retry until ``wait`` runs out."""
    deadline = time.monotonic() + wait
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class Store:
    """A connection to one store file. Thread-safe (one lock around one connection)."""

    def __init__(self, path: str | Path, read_only: bool = False):
        self.path = Path(path)
        self.read_only = read_only
        self.immutable = False
        self._lock = threading.RLock()
        self._grouped = False  # inside ``grouped``: each write transaction is a savepoint of the group's
        if read_only or self.path.exists() or self.path.is_symlink():
            check_regular_file(self.path)  # a folder, FIFO or link loop is named as such, not "disk I/O error"
        if read_only:
            if not self.path.exists():
                raise InputError(f"store {self.path}: file not found")
            # mode=ro (not immutable): a WAL store being written by a run stays readable and current. The path is
            # quoted: '%41', '?' or '#' in a file name are part of the name, not of the URI. On read-only media
            # (a read-only mount, a container volume, a dataset snapshot) SQLite cannot make the -shm file a WAL read
            # needs: the file is opened immutable, after making sure no -wal holds changes it would not see
            self.immutable = not _can_write_beside(self.path)
            if self.immutable:
                _refuse_unmerged_wal(self.path)
            uri = f"file:{quote(str(self.path.resolve()))}?mode=ro" + ("&immutable=1" if self.immutable else "")
            self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
            try:
                self._refuse_other_schema()
            except sqlite3.DatabaseError as exc:
                self._conn.close()
                raise InputError(f"store {self.path}: not a RoleScope store ({exc})") from None
            self._check_version()
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(self.path, timeout=60.0, check_same_thread=False, isolation_level=None)
            self._refuse_other_schema()  # before any DDL or pragma: a refused store is left byte-identical
            _enable_wal(self._conn)
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA busy_timeout=60000")
            with self._tx():
                for stmt in _CORE_SCHEMA.strip().split(";"):
                    if stmt.strip():
                        self._conn.execute(stmt)
                for table in _TABLES.values():
                    _ensure_table(self._conn, table)
                self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.DatabaseError as exc:
            if "readonly" in str(exc).replace(" ", "") or not os.access(self.path if self.path.exists() else self.path.parent, os.W_OK):
                raise InputError(f"store {self.path}: read-only (file system or permissions); commands that only read "
                                 "it (runs, metrics, export) still work") from None
            raise InputError(f"store {self.path}: not a RoleScope store ({exc})") from None
        self._check_version()

    def _refuse_other_schema(self) -> None:
        """InputError (connection closed) when the file is a store of another schema version, an SQLite file that is
        no store at all (tables but no RoleScope ``meta``, or a ``meta`` of its own without RoleScope's schema version
        or tables), or a damaged one (bytes after its last page; ``PRAGMA quick_check``): nothing is added to it. Reads
        only."""
        # one read of the names: another process creating the store between two reads must not look like a stranger
        names = [r[0] for r in self._conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'")]
        if not names:
            return
        if "meta" not in names:
            self._refuse(f"an SQLite file that is not a RoleScope store (it holds {_shown(names)})")
        if not {"runs", "calls"} <= set(names) or not _has_columns(self._conn, "meta", {"key", "value"}):
            self._refuse(f"an SQLite file with a 'meta' table of its own, not a RoleScope store (it holds {_shown(names)})")
        row = self._conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None:
            self._refuse("an SQLite file whose 'meta' table has no RoleScope schema version")
        if str(row[0]) != str(SCHEMA_VERSION):
            self._refuse(f"schema version {row[0]}, this RoleScope reads {SCHEMA_VERSION}")
        if not _has_columns(self._conn, "runs", {"run_id", "method", "model", "model_spec", "plan", "status"}):
            self._refuse("its 'runs' table is not RoleScope's")
        self._refuse_damage()

    def _refuse_damage(self) -> None:
        """Bytes after the last page (a file that grew outside SQLite: appended garbage, a bad copy), or what
        ``PRAGMA quick_check`` finds; checked once per file version (path, size, modification time) per process."""
        stat = self.path.stat()
        page_size = self._conn.execute("PRAGMA page_size").fetchone()[0]
        pages = self._conn.execute("PRAGMA page_count").fetchone()[0]
        if stat.st_size > pages * page_size:
            self._refuse(f"damaged: {stat.st_size - pages * page_size:,} bytes after its last page")
        version = (str(self.path.resolve()), stat.st_size, stat.st_mtime_ns)
        if version in _CHECKED:
            return
        problems = [r[0] for r in self._conn.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            self._refuse(f"damaged (quick_check: {problems[0][:200]})")
        _CHECKED.add(version)

    def _refuse(self, why: str) -> NoReturn:
        self._conn.close()
        raise InputError(f"store {self.path}: {why}; nothing was changed")

    def _check_version(self) -> None:
        try:
            row = self._conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise InputError(f"store {self.path}: not a RoleScope store ({exc})") from None
        if row is None or int(row[0]) != SCHEMA_VERSION:
            raise InputError(f"store {self.path}: schema version {row[0] if row else 'missing'}, this RoleScope reads {SCHEMA_VERSION}")

    @contextmanager
    def _tx(self) -> Iterator[_ScrubbingConnection]:
        """One write transaction, taken with BEGIN IMMEDIATE so concurrent writers queue, not fail. Every statement in
        it goes through the scrubber (``_ScrubbingConnection``): no string reaches the file with a secret in it.
        Inside ``grouped`` it is a savepoint of the group's transaction: undone alone if it fails."""
        if self.read_only:
            raise RunFailure(f"store {self.path} is read-only (the bundled demo); write to a user store with --store")
        with self._lock:
            begin, commit, rollback = (("SAVEPOINT tx", "RELEASE tx", "ROLLBACK TO tx") if self._grouped else
                                       ("BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"))
            self._conn.execute(begin)
            try:
                yield _ScrubbingConnection(self._conn)
            except BaseException:
                self._conn.execute(rollback)
                if self._grouped:
                    self._conn.execute(commit)
                raise
            else:
                self._conn.execute(commit)

    @contextmanager
    def grouped(self) -> Iterator[None]:
        """The writes made inside (by this thread; others wait) share one transaction, committed at the end, also when
        the block is left by an exception: what each write stored stays stored, as it would have alone. Why: a wave of
        100,000 imported replies, each committed with its answer one by one, spent more time committing than storing.
        A process killed inside loses the group's writes, all together (a resume asks those calls again)."""
        if self.read_only:
            raise RunFailure(f"store {self.path} is read-only (the bundled demo); write to a user store with --store")
        with self._lock:
            if self._grouped:
                yield
                return
            self._conn.execute("BEGIN IMMEDIATE")
            self._grouped = True
            try:
                yield
            finally:
                self._grouped = False
                self._conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- runs ---------------------------------------------------------------------------------
    def create_run(self, run_id: str, method: str, model: str, model_spec: dict[str, Any], plan: dict[str, Any]) -> None:
        check_run_id(run_id)
        now = time.time()
        with self._tx() as c:
            if c.execute("SELECT 1 FROM runs WHERE run_id=?", (run_id,)).fetchone():
                raise InputError(f"run id '{run_id}' already exists in {self.path}; use 'resume {run_id}' or another --run-id")
            c.execute(
                "INSERT INTO runs (run_id, method, model, model_spec, plan, status, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)",
                (run_id, method, model, json.dumps(model_spec, sort_keys=True), json.dumps(plan, sort_keys=True), "created", now, now),
            )

    def set_run_status(self, run_id: str, status: str, *, n_units: int | None = None, error: str | None = None) -> None:
        now = time.time()
        finished = now if status in ("completed", "failed", "cancelled") else None
        with self._tx() as c:
            c.execute(
                "UPDATE runs SET status=?, updated_at=?, finished_at=?, error=?, n_units=COALESCE(?, n_units) WHERE run_id=?",
                (status, now, finished, error, n_units, run_id),
            )

    def redate_run(self, run_id: str, created_at: float, *, with_parts: bool = False) -> None:
        """Set when ``run_id`` was created (which configuration is a model's latest follows from it); ``with_parts``:
        also the runs it made, ``<run_id>-<part>`` (a campaign's)."""
        with self._tx() as c:
            c.execute("UPDATE runs SET created_at=?, updated_at=? WHERE run_id=? OR (? AND run_id LIKE ?)",
                      (created_at, time.time(), run_id, int(with_parts), f"{run_id}-%"))

    def own_run(self, run_id: str, owner: str, lease_s: float) -> None:
        """Mark ``run_id`` as executing in ``owner`` (``claim_owner``) for ``lease_s`` seconds (renewed while it runs)."""
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO run_owners VALUES (?,?,?)", (run_id, owner, time.time() + lease_s))

    def release_run(self, run_id: str, owner: str) -> None:
        with self._tx() as c:
            c.execute("DELETE FROM run_owners WHERE run_id=? AND owner=?", (run_id, owner))

    def run_executor(self, run_id: str) -> str | None:
        """The owner executing ``run_id`` now, or None (never run, finished, or its process is gone)."""
        if "run_owners" not in self.table_names():
            return None
        row = self.query_one("SELECT owner, expires_at FROM run_owners WHERE run_id=?", (run_id,))
        if row is None or row["expires_at"] <= time.time() or not _owner_alive(row["owner"]):
            return None
        return str(row["owner"])

    def delete_run(self, run_id: str, *, calls: bool = False) -> int:
        """Remove a run and every row it owns, in one transaction; returns the number of cached calls removed.

        Its calls stay in the call cache by default, so running the same plan again costs nothing; with ``calls``
        the calls only this run used are removed too (a call another run links to is always kept). A run that is
        executing (``run_executor``) is refused: its process would go on writing rows for a run that is gone."""
        executing = self.run_executor(run_id)
        if executing:
            host, _, pid = executing.partition(":")
            raise InputError(f"run {run_id} is executing (process {pid.partition(':')[0]} on {host}); cancel it or let "
                             "it finish, then delete it")
        with self._tx() as c:
            own = []
            if calls:
                own = [r[0] for r in c.execute(
                    "SELECT DISTINCT cache_key FROM run_calls WHERE run_id=? AND cache_key NOT IN "
                    "(SELECT cache_key FROM run_calls WHERE run_id<>?)", (run_id, run_id))]
            tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
            for table in tables:
                if table not in ("runs", "calls") and any(col[1] == "run_id" for col in c.execute(f'PRAGMA table_info("{table}")')):
                    c.execute(f'DELETE FROM "{table}" WHERE run_id=?', (run_id,))
            c.execute("DELETE FROM runs WHERE run_id=?", (run_id,))
            c.executemany("DELETE FROM calls WHERE cache_key=?", [(k,) for k in own])
        return len(own)

    def get_run(self, run_id: str) -> dict[str, Any]:
        row = self.query_one("SELECT * FROM runs WHERE run_id=?", (run_id,))
        if row is None:
            raise InputError(f"run '{run_id}' not found in {self.path}")
        for field in ("plan", "model_spec"):
            try:
                row[field] = json.loads(row[field])
            except (TypeError, ValueError) as exc:
                raise InputError(f"run '{run_id}' in {self.path}: field '{field}': the stored JSON is corrupted "
                                 f"({str(exc).splitlines()[0][:80]})") from None
        return row

    def runs(self) -> pd.DataFrame:
        """All runs with their call/failure counts, newest first."""
        return self.frame(
            """SELECT r.run_id, r.method, r.model, r.status, r.n_units, r.created_at, r.finished_at, r.error,
                      (SELECT COUNT(*) FROM run_calls rc WHERE rc.run_id = r.run_id) AS n_calls,
                      (SELECT COUNT(DISTINCT unit) FROM call_failures f WHERE f.run_id = r.run_id
                          AND NOT EXISTS (SELECT 1 FROM run_calls rc2 WHERE rc2.run_id=f.run_id AND rc2.unit=f.unit)) AS n_failed
               FROM runs r ORDER BY r.created_at DESC"""
        )

    # -- calls --------------------------------------------------------------------------------
    def cached_reply(self, cache_key: str) -> ChatReply | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT reply, finish_reason, logprobs, tokens_in, tokens_out, cached_tokens, latency_s, cost FROM calls WHERE cache_key=?",
                (cache_key,),
            ).fetchone()
        if row is None:
            return None
        from analysis.llm.client import ChatReply

        return ChatReply(row[0], row[1], json.loads(row[2]) if row[2] else None, row[3], row[4], row[5] or 0, row[6], row[7])

    def record_call(self, run_id: str, unit: str, cache_key: str, model: str, request: ChatRequest, reply: ChatReply) -> None:
        """Persist a successful call and link it to the run, in one transaction."""
        now = time.time()
        with self._tx() as c:
            c.execute(
                "INSERT OR IGNORE INTO calls VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    cache_key, model, json.dumps(request.to_json(), ensure_ascii=False), reply.text, reply.finish_reason,
                    json.dumps(c.scrubber.token_rows(reply.top_logprobs)) if reply.top_logprobs is not None else None,
                    reply.tokens_in, reply.tokens_out, reply.cached_tokens, reply.latency_s, reply.cost, run_id, now,
                ),
            )
            c.execute("INSERT OR REPLACE INTO run_calls VALUES (?,?,?,0,?)", (run_id, unit, cache_key, now))
            c.execute("DELETE FROM call_claims WHERE cache_key=?", (cache_key,))

    def claim_call(self, cache_key: str, owner: str, lease_s: float) -> bool:
        """Take (or renew) the right to send the request ``cache_key`` for ``lease_s`` seconds. False while another
        owner holds an unexpired claim. A claim left by a crashed process expires with its lease, or at once when its
        owner (``claim_owner``: host, pid, token) was a process of this machine that is gone. False too when the
        reply is already stored: another owner may have recorded it (ending its claim) after this caller last looked
        in the cache, and the caller must read it rather than pay again."""
        now = time.time()
        with self._tx() as c:
            if c.execute("SELECT 1 FROM calls WHERE cache_key=?", (cache_key,)).fetchone() is not None:
                return False
            row = c.execute("SELECT owner, expires_at FROM call_claims WHERE cache_key=?", (cache_key,)).fetchone()
            if row is not None and row[0] != owner and row[1] > now and _owner_alive(row[0]):
                return False
            c.execute("INSERT OR REPLACE INTO call_claims VALUES (?,?,?)", (cache_key, owner, now + lease_s))
            return True

    def release_claim(self, cache_key: str, owner: str) -> None:
        """Give up a claim (the call failed): a waiting process may then send the request itself."""
        with self._tx() as c:
            c.execute("DELETE FROM call_claims WHERE cache_key=? AND owner=?", (cache_key, owner))

    def stored_calls(self, keys: Sequence[str]) -> set[str]:
        """Which of ``keys`` have a stored reply (the call cache)."""
        found: set[str] = set()
        with self._lock:
            for start in range(0, len(keys), 500):
                part = keys[start:start + 500]
                found.update(r[0] for r in self._conn.execute(
                    f"SELECT cache_key FROM calls WHERE cache_key IN ({','.join('?' * len(part))})", part))
        return found

    def link_cached_call(self, run_id: str, unit: str, cache_key: str) -> None:
        with self._tx() as c:
            c.execute("INSERT OR IGNORE INTO run_calls VALUES (?,?,?,1,?)", (run_id, unit, cache_key, time.time()))

    def record_failure(self, run_id: str, unit: str, cache_key: str, error: str, attempts: int) -> None:
        with self._tx() as c:
            c.execute(
                "INSERT INTO call_failures (run_id, unit, cache_key, error, attempts, created_at) VALUES (?,?,?,?,?,?)",
                (run_id, unit, cache_key, error, attempts, time.time()),
            )

    # -- provider batches ---------------------------------------------------------------------
    def record_batch(self, batch_id: str, run_id: str, model: str, identity: str, wave: int,
                     units: dict[str, list[str]], status: str = "submitted") -> None:
        """Keep a batch created at a provider (its id first of all): a process killed while it waits resumes polling
        this batch rather than paying for its requests again. ``units``: content key -> the run's units asking it."""
        now = time.time()
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO run_batches VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                      (batch_id, run_id, model, identity, wave, status, len(units), json.dumps(units), None, now, now))

    def set_batch_status(self, batch_id: str, status: str, detail: str | None = None) -> None:
        with self._tx() as c:
            c.execute("UPDATE run_batches SET status=?, detail=?, updated_at=? WHERE batch_id=?",
                      (status, detail, time.time(), batch_id))

    def open_batches(self, identity: str) -> list[dict[str, Any]]:
        """The batches of a model (``ModelSpec.identity``) that may still produce replies, oldest first, with their
        ``units`` ({content key: units}). A store made before batches existed has none."""
        if "run_batches" not in self.table_names():
            return []
        marks = ",".join("?" * len(OPEN_BATCH))
        rows = self.query(f"SELECT * FROM run_batches WHERE identity=? AND status IN ({marks}) ORDER BY created_at",
                          (identity, *OPEN_BATCH))
        for row in rows:
            row["units"] = json.loads(row["units"])
        return rows

    def open_batch_ids(self, run_id: str) -> list[str]:
        """The ids of a run's batches that may still produce replies, oldest first."""
        batches = self.batches(run_id)
        return batches.loc[batches["status"].isin(OPEN_BATCH), "batch_id"].tolist()

    def batches(self, run_id: str) -> pd.DataFrame:
        """A run's provider batches (without their unit lists), oldest first."""
        if "run_batches" not in self.table_names():
            return pd.DataFrame(columns=["batch_id", "model", "wave", "status", "n_requests", "detail", "created_at"])
        return self.frame("SELECT batch_id, model, wave, status, n_requests, detail, created_at, updated_at "
                          "FROM run_batches WHERE run_id=? ORDER BY created_at", (run_id,))

    # -- method tables ------------------------------------------------------------------------
    def upsert(self, table: str, rows: Sequence[dict[str, Any]]) -> None:
        """Insert or replace rows of a registered method table, in one transaction."""
        if not rows:
            return
        sql, values = _upsert_statement(table, rows)
        try:
            with self._tx() as c:
                c.executemany(sql, values)
        except sqlite3.OperationalError as exc:
            if "no such table" not in str(exc) and "has no column named" not in str(exc):
                raise
            with self._tx() as c:  # registered after this store was opened (the runner imports methods lazily)
                _ensure_table(c, _TABLES[table])
                c.executemany(sql, values)

    def clear(self, table: str) -> None:
        """Delete every row of a registered table that is not a run's (e.g. cached null draws); absent is fine."""
        if table not in _TABLES or any(c == "run_id" for c, _ in _TABLES[table].columns):
            raise ValueError(f"clear: {table} is not a registered table without runs")
        if table in self.table_names():
            with self._tx() as c:
                c.execute(f'DELETE FROM "{table}"')

    def keep_newest(self, table: str, column: str, value: str, order: str, keep: int) -> None:
        """Delete the rows of a registered cache table whose ``column`` = ``value``, but the ``keep`` newest by
        ``order``."""
        if table not in _TABLES or table not in self.table_names():
            return
        with self._tx() as c:
            c.execute(f'DELETE FROM "{table}" WHERE "{column}" = ? AND rowid NOT IN (SELECT rowid FROM "{table}" '
                      f'WHERE "{column}" = ? ORDER BY "{order}" DESC LIMIT ?)', (value, value, keep))

    def import_run(self, run_id: str, method: str, model: str, model_spec: dict[str, Any], plan: dict[str, Any],
                   tables: dict[str, Sequence[dict[str, Any]]], *, status: str = "imported") -> bool:
        """Create a finished run together with its method-table rows in ONE transaction (all or nothing).

        For importers: returns False and writes nothing when ``run_id`` exists already.
        """
        check_run_id(run_id)
        now = time.time()
        statements = [(_TABLES[name], *_upsert_statement(name, rows)) for name, rows in tables.items() if rows]
        with self._tx() as c:
            if c.execute("SELECT 1 FROM runs WHERE run_id=?", (run_id,)).fetchone():
                return False
            c.execute(
                "INSERT INTO runs (run_id, method, model, model_spec, plan, status, n_units, created_at, updated_at, finished_at) "
                "VALUES (?,?,?,?,?,?,?,?,?,?)",
                (run_id, method, model, json.dumps(model_spec, sort_keys=True), json.dumps(plan, sort_keys=True), status,
                 sum(len(rows) for rows in tables.values()), now, now, now),
            )
            for table, sql, values in statements:
                _ensure_table(c, table)  # the table may be registered after this store was opened
                c.executemany(sql, values)
        return True

    def restore_run(self, run: dict[str, Any], tables: dict[str, Sequence[dict[str, Any]]]) -> bool:
        """Put back a run exactly as another store held it (its ``runs`` row: ids, status, dates, spec, plan) with its
        rows of registered tables, in ONE transaction; False, writing nothing, when ``run_id`` exists already."""
        check_run_id(str(run.get("run_id")))
        with self._tx() as c:
            columns = [r[1] for r in c.execute("PRAGMA table_info(runs)")]
            if c.execute("SELECT 1 FROM runs WHERE run_id=?", (run["run_id"],)).fetchone():
                return False
            row = {k: v for k, v in run.items() if k in columns}
            c.execute(f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values()))
            for name, rows in tables.items():
                if rows:
                    sql, values = _upsert_statement(name, rows)
                    _ensure_table(c, _TABLES[name])
                    c.executemany(sql, values)
        return True

    # -- reading ------------------------------------------------------------------------------
    def frame(self, sql: str, params: Iterable[Any] = ()) -> pd.DataFrame:
        with self._lock:
            return pd.read_sql_query(sql, self._conn, params=tuple(params))

    def set_meta(self, key: str, value: str) -> None:
        """Store ``value`` under ``key`` in the store's ``meta`` table (one row per key; ``schema_version`` is kept)."""
        if key == "schema_version":
            raise ValueError("meta key 'schema_version' is the store's own")
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def get_meta(self, key: str) -> str | None:
        """The ``meta`` value under ``key``, or None."""
        row = self.query_one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row["value"])

    def query_one(self, sql: str, params: Iterable[Any] = ()) -> dict[str, Any] | None:
        with self._lock:
            cur = self._conn.execute(sql, tuple(params))
            row = cur.fetchone()
            return dict(zip([d[0] for d in cur.description], row)) if row else None

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        """Every row of ``sql`` as a dict (no DataFrame: for small lookups)."""
        with self._lock:
            cur = self._conn.execute(sql, tuple(params))
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]

    def table(self, name: str, run_ids: Sequence[str] | None = None, *, without: Sequence[str] = ()) -> pd.DataFrame:
        """A whole table (optionally only some runs, and ``without`` some columns: a report needs no reply text);
        empty frame with columns if missing."""
        if name not in self.table_names():
            cols = [c for c, _ in _TABLES[name].columns] if name in _TABLES else []
            return pd.DataFrame(columns=[c for c in cols if c not in without])
        what = "*"
        if without:
            with self._lock:
                cols = [r[1] for r in self._conn.execute(f'PRAGMA table_info("{name}")')]
            what = ", ".join(f'"{c}"' for c in cols if c not in without)
        if run_ids is None:
            return self.frame(f'SELECT {what} FROM "{name}"')
        marks = ",".join("?" * len(run_ids))
        return self.frame(f'SELECT {what} FROM "{name}" WHERE run_id IN ({marks})', run_ids)

    def table_names(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]

    def table_sizes(self) -> dict[str, int]:
        """Table -> its number of rows, in name order (what ``Method.has_data`` reads)."""
        return {name: int(self.query_one(f'SELECT COUNT(*) AS n FROM "{name}"')["n"]) for name in sorted(self.table_names())}


class _ScrubbingConnection:
    """The store's write path: a connection whose ``execute``/``executemany`` pass every string parameter through one
    ``Scrubber`` (the secrets in play, looked up once per transaction) before SQLite sees it. Replies, reasons,
    errors, finish reasons, plans, specs, model names and JSON blobs all arrive here as strings, so none can miss it.
    A lone surrogate, which SQLite cannot encode, is stored as U+FFFD instead of aborting the write."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn
        self.scrubber = Scrubber()

    def _clean(self, params: Iterable[Any] | dict[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        if isinstance(params, dict):
            return {k: self._value(v) for k, v in params.items()}
        return tuple(self._value(v) for v in params)

    def _value(self, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        value = self.scrubber.text(value)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = value.encode("utf-8", "replace").decode("utf-8")
        return value

    def execute(self, sql: str, params: Iterable[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        return self._conn.execute(sql, self._clean(params))

    def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> sqlite3.Cursor:
        return self._conn.executemany(sql, (self._clean(r) for r in rows))


#: A run id: a letter or digit, then letters, digits and ``. _ - @ : + =``; no ``..``; at most 200 characters. A run id
#: may end up in a file name (exports, figures, a batch's metadata): no path separator, no way out of a folder.
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@:+=-]{0,199}")


def check_run_id(run_id: str) -> str:
    """``run_id`` if it is a safe run id (``RUN_ID``), else InputError saying the rule."""
    if not isinstance(run_id, str) or not RUN_ID.fullmatch(run_id) or ".." in run_id:
        shown = json.dumps(run_id, ensure_ascii=True)[:80]
        raise InputError(f"run id {shown}: use letters, digits and . _ - @ : + = (starting with a letter or digit, "
                         "no '..', at most 200 characters)")
    return run_id


#: File versions (path, size, mtime) whose quick_check passed in this process.
_CHECKED: set[tuple[str, int, int]] = set()


def _shown(names: list[str]) -> str:
    return ", ".join(names[:3]) + (", …" if len(names) > 3 else "")


def _has_columns(conn: sqlite3.Connection, table: str, wanted: set[str]) -> bool:
    return wanted <= {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}


def _can_write_beside(path: Path) -> bool:
    """Whether SQLite can create files beside ``path`` (its -shm and -wal): False on read-only media."""
    return os.access(path.resolve().parent, os.W_OK)


def _refuse_unmerged_wal(path: Path) -> None:
    """InputError when a store that must be opened immutable has a non-empty -wal: its newest changes are there, and
    an immutable open would silently read the store without them."""
    wal = path.with_name(path.name + "-wal")
    size = wal.stat().st_size if wal.exists() else 0
    if size:
        raise InputError(f"store {path}: on read-only media, with {size:,} bytes of changes not yet merged in {wal.name}; "
                         "copy the store and its -wal to a writable folder (or open it once where it was written) "
                         "and read the copy")


def claim_owner(token: str) -> str:
    """A claim owner id: ``host:pid:token``, so that a claim of a dead local process can be taken over at once."""
    return f"{socket.gethostname()}:{os.getpid()}:{token}"


def _owner_alive(owner: str) -> bool:
    """False only when ``owner`` is a process of this host that no longer exists."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _upsert_statement(table: str, rows: Sequence[dict[str, Any]]) -> tuple[str, list[tuple[Any, ...]]]:
    cols = [c for c, _ in _TABLES[table].columns]
    sql = f'INSERT OR REPLACE INTO "{table}" ({", ".join(cols)}) VALUES ({", ".join("?" * len(cols))})'
    return sql, [tuple(_sql_value(r.get(c)) for c in cols) for r in rows]


def _sql_value(value: Any) -> Any:
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False)
    return value
