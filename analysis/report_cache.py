"""Reports kept in the store they describe, so a second ``metrics``, ``leaderboard``, page visit or Compare reads them.

A method's report (``Method.report``) is a pure function of the store's answers, the options asked for (model,
configuration, bootstrap resamples, chance simulations) and the method's code. The store keeps each report it
computed in ``report_cache`` under a key that hashes all three:

- the store's **content** (``content_signature``): a hash of every row of every table a report can read (all but
  the caches derived from them, the call cache and a run's leases: ``NOT_CONTENT``), computed in SQL, so an answer
  changed in place (``python -m analysis reread``, an ``UPDATE``) changes the key as an import, a run or a deletion
  does. ~0.2 s on the bundled demo (79 MB, ~90,000 rows hashed), once per state of a store and process: it is kept
  until the store is written (SQLite's ``data_version`` and ``total_changes()``);
- the **options** (JSON);
- the **code**: the hash of the method's folder and the shared modules it declares (``code_fingerprint`` of
  ``Method.source_paths``; the caller names them).

A kept report is believed only when this user sealed it and it is a well-formed document of no more than
``analysis.cache_trust.MAX_ENTRY_BYTES``; a method's report must also be of the shared ``Report`` type
(``is_report``, ``analysis.cache_trust``). Anything else (a store handed over, a forged or damaged entry) is computed again and
written back; a read never fails. A read-only store is read, never written: what is computed from it is kept in its
side store (``analysis.runs.side_store``). The null draws behind the chance bands are kept apart, per part of the
design (``analysis.chance.cached_parts``), under the same rules, so a report with other options still reuses them.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from analysis.cache_trust import MAX_ENTRY_BYTES, read_sealed_object, seal
from analysis.runs.side_store import readable, writable
from analysis.runs.store import Store, Table, register_table

REPO_ROOT = Path(__file__).resolve().parents[1]

REPORT_TABLE = register_table(Table(
    "report_cache",
    [("key", "TEXT"), ("method", "TEXT"), ("doc", "BLOB"), ("created_at", "REAL"), ("mac", "TEXT")],
    ["key"],
))
#: Tables whose content is derived from the others (caches), or describes runs without changing a number (their
#: names, tags and notes, a run's provider batches).
DERIVED = ("report_cache", "null_draws", "run_labels", "run_batches")
#: Tables left out of the content hash: the derived ones, the call cache (no report reads a reply: runs and
#: ``reread`` read them into the method tables, which are hashed) and the leases of a run in progress.
NOT_CONTENT = (*DERIVED, "calls", "call_claims", "run_owners")
#: Documents kept per kind (a method's reports, its chance bands, ...); older ones are dropped when a new one is written.
KEEP = 32
#: Rows hashed per query (bounds the memory a content hash takes, whatever the size of a table).
CHUNK_ROWS = 2048

_signatures: weakref.WeakKeyDictionary[Store, tuple[tuple[int, int], str]] = weakref.WeakKeyDictionary()


def content_signature(store: Store) -> str:
    """A hash of every row of every table a report can read (``NOT_CONTENT`` aside), in rowid order: two stores share
    it only when those rows are equal. Kept per store object until anyone writes the store (``_write_state``)."""
    before = _write_state(store)
    kept = _signatures.get(store)
    if kept is not None and kept[0] == before:
        return kept[1]
    digest = hashlib.sha256()
    for name in sorted(store.table_names()):
        if name not in NOT_CONTENT and not name.startswith("sqlite_"):
            digest.update(_table_hash(store, name))
    signature = digest.hexdigest()[:32]
    if _write_state(store) == before:  # not written meanwhile: the hash is of one state
        _signatures[store] = (before, signature)
    return signature


def _write_state(store: Store) -> tuple[int, int]:
    """Changes when the store is written: by another connection (``PRAGMA data_version``) or this one
    (``total_changes()``)."""
    version = store.query_one("PRAGMA data_version")
    own = store.query_one("SELECT total_changes() AS n")
    return int(next(iter(version.values()))), int(own["n"])


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _table_hash(store: Store, name: str) -> bytes:
    """The hash of a table's name, columns and rows; each row one JSON array, SQL-side (``_row_json``)."""
    columns = store.query(f"PRAGMA table_info({_ident(name)})")
    digest = hashlib.sha256(f"{name}({','.join(c['name'] for c in columns)})".encode())
    try:
        for chunk in _row_chunks(store, name, _row_json(columns)):
            digest.update(chunk)
    except sqlite3.OperationalError:  # a BLOB in a TEXT column, a table without rowid: one quoted row each, at once
        digest = hashlib.sha256(f"{name}({len(columns)})".encode())
        quoted = " || ',' || ".join(f"quote({_ident(c['name'])})" for c in columns)
        row = store.query_one(f"SELECT CAST(group_concat({quoted}, char(10)) AS BLOB) AS rows FROM {_ident(name)}")
        digest.update(row["rows"] or b"")
    return digest.digest()


def _row_json(columns: list[dict[str, Any]]) -> str:
    """SQL for one row as a JSON array that tells every two rows apart: a TEXT-affinity column's value as it is (NULL
    or text), any other column's ``quote()`` (exact for a REAL, which JSON would round to 15 digits)."""
    def cell(c: dict[str, Any]) -> str:
        declared = str(c["type"] or "").upper()
        text = "INT" not in declared and any(k in declared for k in ("CHAR", "CLOB", "TEXT"))
        return _ident(c["name"]) if text else f"quote({_ident(c['name'])})"
    return f"json_array({', '.join(cell(c) for c in columns)})"


def _row_chunks(store: Store, name: str, row: str) -> Iterator[bytes]:
    """The table's rows as JSON arrays, ``CHUNK_ROWS`` at a time in rowid order, one line each."""
    sql = (f"SELECT MAX(r) AS last, CAST(group_concat(j, char(10)) AS BLOB) AS rows FROM "
           f"(SELECT rowid AS r, {row} AS j FROM {_ident(name)} WHERE rowid > ? ORDER BY rowid LIMIT {CHUNK_ROWS})")
    last = -(1 << 63)
    while True:
        got = store.query_one(sql, (last,))
        if got is None or got["last"] is None:
            return
        yield got["rows"] + b"\n"
        last = got["last"]


#: Files of a source folder a report can read: code and the data a method keeps beside it (``pairs.json``,
#: ``published.json``, an inventory's items).
SOURCE_SUFFIXES = frozenset({".py", ".json", ".toml", ".csv", ".yaml", ".yml", ".txt"})


@lru_cache(maxsize=None)
def code_fingerprint(sources: tuple[str, ...]) -> str:
    """Hash of the contents of the sources a report depends on (paths from the repository root: a method's
    ``Method.source_paths``, ``analysis.methods.source_paths`` by name): every code and data file of the folders (a
    changed ``pairs.json`` changes the cross-method report as much as a changed line of code)."""
    digest = hashlib.sha256()
    roots = [REPO_ROOT / r for r in sources]
    files = sorted(p for r in roots for p in ([r] if r.is_file() else r.rglob("*"))
                   if p.is_file() and p.suffix in SOURCE_SUFFIXES and "__pycache__" not in p.parts)
    for path in files:
        digest.update(str(path.relative_to(REPO_ROOT)).encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def report_key(store: Store, method: str, options: Mapping[str, Any], sources: tuple[str, ...]) -> str:
    text = json.dumps({"method": method, "options": options, "content": content_signature(store),
                       "code": code_fingerprint(sources)}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def cached_report(store: Store, method: str, options: Mapping[str, Any], compute: Callable[[], Any], *,
                  sources: tuple[str, ...]) -> Any:
    """The document ``compute()`` makes (a method's report, or another document of it: ``method`` names the kind, as
    ``chance-values``), read from the store when it holds one for this content, options and code (the method's
    ``sources``: ``Method.source_paths``) that may be believed (``believed``); else computed and written back: into
    the store when it is writable, into its side store when it is read-only (``analysis.runs.side_store``)."""
    key = report_key(store, method, options, sources)
    for source in readable(store):
        doc = believed(source, key, method)
        if doc is not None:
            return doc
    doc = compute()
    _keep(store, key, method, doc)
    return doc


def believed(source: Store, key: str, kind: str) -> dict[str, Any] | None:
    """The document ``source`` keeps under ``key`` when this user sealed it, it parses as a JSON object and it is a
    document of this kind (``is_report``); None otherwise (then it is computed again)."""
    if REPORT_TABLE.name not in source.table_names():
        return None
    doc = read_sealed_object(source, REPORT_TABLE.name, key)
    return doc if doc is not None and is_report(kind, doc) else None


#: Kinds of document that are no method's report: its chance bands (``chance-<method>``), a fit band
#: (``chance-values-fit``), each ``{model or part: bands}``. Every other kind is a method's report.
CHANCE_KINDS = "chance-"


def is_report(kind: str, doc: dict[str, Any]) -> bool:
    """Whether ``doc`` may be a document of ``kind``: a method's report must be of the shared ``Report`` type (per
    model its headlines as numbers with reasons, its counts: ``analysis.methods.report_model``, which
    ``Method.cached_report`` checks each report against before keeping it); a chance document any JSON object. The
    method's own type is not looked up here (this module never looks a method up): its headlines are checked when
    the report is computed."""
    from analysis.methods.report_model import Report

    if kind.startswith(CHANCE_KINDS):
        return True
    try:
        Report.model_validate(doc)
    except ValueError:
        return False
    return True


def _keep(store: Store, key: str, kind: str, doc: Any) -> None:
    """Write ``doc`` under ``key``, sealed (``analysis.cache_trust.seal``), secrets scrubbed as every store write is;
    a document larger than ``MAX_ENTRY_BYTES`` is not kept (it would never be read back)."""
    from analysis.llm.keys import Scrubber

    data = Scrubber().text(json.dumps(doc, allow_nan=False)).encode()
    if len(data) > MAX_ENTRY_BYTES:
        return
    with writable(store) as target:
        if target is not None:
            target.upsert(REPORT_TABLE.name, [{"key": key, "method": kind, "doc": data, "created_at": time.time(),
                                               "mac": seal(REPORT_TABLE.name, key, data)}])
            target.keep_newest(REPORT_TABLE.name, "method", kind, "created_at", KEEP)
