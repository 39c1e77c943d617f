"""The bundled demo archive: unpacked once into a hash-named file; a local build wins; packing is deterministic."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from analysis.demo_store import bundled_demo_store, pack


def _store(path: Path, value: str) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (v TEXT)")
    conn.execute("INSERT INTO t VALUES (?)", (value,))
    conn.commit()
    conn.close()
    return path


def test_archive_is_unpacked_once_under_its_hash(tmp_path: Path) -> None:
    store, archive, cache = tmp_path / "demo.db", tmp_path / "demo.db.gz", tmp_path / "cache"
    pack(_store(tmp_path / "built.db", "first"), archive)
    opened = bundled_demo_store(store, archive, cache)
    assert opened.parent == cache and opened.read_bytes() == (tmp_path / "built.db").read_bytes()
    stamp = opened.stat().st_mtime_ns
    assert bundled_demo_store(store, archive, cache) == opened and opened.stat().st_mtime_ns == stamp  # not unpacked again
    pack(_store(tmp_path / "rebuilt.db", "second"), archive)
    reopened = bundled_demo_store(store, archive, cache)
    assert reopened != opened  # a new archive is a new file, never the old unpacked one
    assert sqlite3.connect(reopened).execute("SELECT v FROM t").fetchone() == ("second",)
    assert not list(cache.glob("*.tmp"))


def test_local_build_wins_and_missing_everything_returns_the_store_path(tmp_path: Path) -> None:
    store, archive, cache = tmp_path / "demo.db", tmp_path / "demo.db.gz", tmp_path / "cache"
    assert bundled_demo_store(store, archive, cache) == store and not store.exists()
    pack(_store(tmp_path / "built.db", "archived"), archive)
    _store(store, "local")
    assert bundled_demo_store(store, archive, cache) == store


def test_packing_the_same_store_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    built = _store(tmp_path / "built.db", "x")
    pack(built, tmp_path / "a.gz")
    pack(built, tmp_path / "b.gz")
    assert (tmp_path / "a.gz").read_bytes() == (tmp_path / "b.gz").read_bytes()
