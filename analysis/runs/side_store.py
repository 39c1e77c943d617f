"""Where what is computed from a store (its reports, the null draws behind its chance bands) is kept.

A writable store keeps them in its own tables (``report_cache``, ``null_draws``). A read-only store (the bundled demo,
a store file opened read-only) is never written: what is computed from it goes to a **side store**, a writable store of
its own under the cache folder (``$ROLESCOPE_CACHE_DIR``, default ``.cache/app``), one per store path. Reads look in the
store first (the bundled demo ships with its default reports filled in by ``demo build``), then in its side store.
Rows are keyed by what they were computed from (the store's content, the options, the code), so a side store never
answers for another content; from either place a row is believed only when this user sealed it
(``analysis.cache_trust``).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from analysis.errors import InputError
from analysis.runs.store import Store

REPO_ROOT = Path(__file__).resolve().parents[2]


def cache_dir() -> Path:
    return Path(os.environ.get("ROLESCOPE_CACHE_DIR", REPO_ROOT / ".cache/app"))


def side_path(store_path: str | Path) -> Path:
    """The side store of the store at ``store_path``: ``<cache folder>/derived/<name>-<hash of its full path>.db``."""
    path = Path(store_path).resolve()
    return cache_dir() / "derived" / f"{path.stem}-{hashlib.sha256(str(path).encode()).hexdigest()[:16]}.db"


def readable(store: Store) -> Iterator[Store]:
    """The stores to read derived rows from, in order: ``store``, then the side store of a read-only one (when there is
    one). The side store is closed when the iteration ends."""
    yield store
    if not getattr(store, "read_only", False):
        return
    path = side_path(store.path)
    if not path.exists():
        return
    try:
        side = Store(path, read_only=True)
    except (InputError, sqlite3.Error, OSError):
        return  # a damaged side store is a cache miss, rebuilt on the next write
    try:
        yield side
    finally:
        side.close()


@contextmanager
def writable(store: Store) -> Iterator[Store | None]:
    """The store to write derived rows to: ``store`` itself when writable, else its side store (created on first use);
    None when the cache folder cannot be written (the result is then computed again next time, never lost)."""
    if not getattr(store, "read_only", False):
        yield store
        return
    path = side_path(store.path)
    try:
        side = Store(path)
    except (InputError, sqlite3.Error, OSError):
        try:
            path.unlink(missing_ok=True)  # a damaged side store: start it again
            side = Store(path)
        except (InputError, sqlite3.Error, OSError):
            yield None
            return
    try:
        yield side
    finally:
        side.close()
