"""Reports kept in the store they describe, so a second ``metrics``, ``leaderboard``, page visit or Compare reads them.

A method's report (``Method.report``) is a pure function of the store's answers, the options asked for (model,
configuration, bootstrap resamples, chance simulations) and the method's code. The store keeps each report it
computed in ``report_cache`` under a key that hashes all three:

- the store's **content**: per table of answers or runs, its row count and largest rowid, and the runs' newest
  status change (``content_signature``): an import, a run, a re-read or a deletion changes it (rows are replaced by
  new rowids, never edited in place);
- the **options** (JSON);
- the **code**: the hash of the method's folder and the shared modules it declares (``code_fingerprint`` of
  ``Method.source_paths``; the caller names them, so this module never looks a method up).

A read-only store is read, never written: what is computed from it is kept in its side store
(``analysis.runs.side_store``). The null draws behind the chance bands are kept apart, per part of the
design (``analysis.chance.cached_parts``), so a report with other options still reuses them.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from analysis.runs.side_store import readable, writable
from analysis.runs.store import Store, Table, register_table

REPO_ROOT = Path(__file__).resolve().parents[1]

REPORT_TABLE = register_table(Table(
    "report_cache",
    [("key", "TEXT"), ("method", "TEXT"), ("doc", "TEXT"), ("created_at", "REAL")],
    ["key"],
))
#: Tables whose content is derived from the others (caches), or describes runs without changing a number (their
#: names, tags and notes): they do not count in the content signature.
DERIVED = ("report_cache", "null_draws", "run_labels", "run_batches")
#: Documents kept per kind (a method's reports, its chance bands, ...); older ones are dropped when a new one is written.
KEEP = 32


def content_signature(store: Store) -> str:
    """Row count and largest rowid of every table holding answers, runs or calls, and the runs' newest update."""
    parts = []
    for name in sorted(store.table_names()):
        if name in DERIVED or name.startswith("sqlite_"):
            continue
        row = store.query_one(f'SELECT COUNT(*) AS n, COALESCE(MAX(rowid), 0) AS r FROM "{name}"')
        parts.append(f"{name}:{row['n']}:{row['r']}")
    runs = store.query_one("SELECT COALESCE(MAX(updated_at), 0) AS u FROM runs") if "runs" in store.table_names() else None
    parts.append(f"runs-updated:{(runs or {}).get('u', 0):.6f}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


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
    ``sources``: ``Method.source_paths``); else computed and written back: into the store when it is writable, into
    its side store when it is read-only (``analysis.runs.side_store``)."""
    key = report_key(store, method, options, sources)
    for source in readable(store):
        if REPORT_TABLE.name in source.table_names():
            row = source.query_one(f'SELECT doc FROM "{REPORT_TABLE.name}" WHERE key = ?', (key,))
            if row is not None:
                return json.loads(row["doc"])
    doc = compute()
    with writable(store) as target:
        if target is not None:
            target.upsert(REPORT_TABLE.name, [{"key": key, "method": method, "doc": json.dumps(doc, allow_nan=False),
                                               "created_at": time.time()}])
            target.keep_newest(REPORT_TABLE.name, "method", method, "created_at", KEEP)
    return doc
