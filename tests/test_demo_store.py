"""The bundled demo archive: unpacked once into a hash-named file; a local build wins; packing is deterministic and
leaves an archive of the same content untouched; the demo's logprobs are slimmed without changing what they read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import json

from analysis.demo import slim_logprobs
from analysis.demo_store import bundled_demo_store, content_digest, pack


def _store(path: Path, value: str) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (v TEXT)")
    conn.execute("INSERT INTO t VALUES (?)", (value,))
    conn.commit()
    conn.close()
    return path


def test_archive_is_unpacked_once_under_its_hash(tmp_path: Path) -> None:
    store, archive, cache = tmp_path / "demo.db", tmp_path / "demo.db.xz", tmp_path / "cache"
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
    store, archive, cache = tmp_path / "demo.db", tmp_path / "demo.db.xz", tmp_path / "cache"
    assert bundled_demo_store(store, archive, cache) == store and not store.exists()
    pack(_store(tmp_path / "built.db", "archived"), archive)
    _store(store, "local")
    assert bundled_demo_store(store, archive, cache) == store


def test_packing_the_same_store_twice_gives_the_same_bytes(tmp_path: Path) -> None:
    built = _store(tmp_path / "built.db", "x")
    pack(built, tmp_path / "a.xz")
    pack(built, tmp_path / "b.xz")
    assert (tmp_path / "a.xz").read_bytes() == (tmp_path / "b.xz").read_bytes()


def _timed_store(path: Path, value: str, stamp: float) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE runs (run_id TEXT, created_at REAL, latency_s REAL)")
    conn.execute("INSERT INTO runs VALUES (?, ?, ?)", (value, stamp, stamp / 7))
    conn.commit()
    conn.close()
    return path


def test_a_rebuild_with_the_same_rows_leaves_the_archive_untouched(tmp_path: Path) -> None:
    archive = tmp_path / "demo.db.xz"
    first = _timed_store(tmp_path / "first.db", "r1", 1.0)
    assert pack(first, archive) is True
    written = archive.read_bytes()
    again = _timed_store(tmp_path / "again.db", "r1", 2.0)  # the same rows, built at another time
    assert content_digest(again) == content_digest(first)
    assert pack(again, archive) is False and archive.read_bytes() == written
    changed = _timed_store(tmp_path / "changed.db", "r2", 1.0)
    assert content_digest(changed) != content_digest(first)
    assert pack(changed, archive) is True and archive.read_bytes() != written


def test_slim_logprobs_keeps_the_top_ten_and_every_option_token(tmp_path: Path) -> None:
    top = {f"w{i}": -float(i) for i in range(30)} | {" C": -40.0, "(D": -41.0, " 7.": -42.0, "xy": -43.0, "a": -44.0}
    conn = sqlite3.connect(tmp_path / "s.db")
    conn.execute("CREATE TABLE calls (cache_key TEXT, logprobs TEXT)")
    conn.execute("INSERT INTO calls VALUES ('k', ?), ('none', NULL)", (json.dumps([top, {"A": -0.1}]),))
    assert slim_logprobs(conn) == 1
    kept = json.loads(conn.execute("SELECT logprobs FROM calls WHERE cache_key='k'").fetchone()[0])
    assert set(kept[0]) == {f"w{i}" for i in range(10)} | {" C", "(D", " 7."}  # not "xy", nor a lowercase letter
    assert kept[0]["w0"] == 0.0 and kept[1] == {"A": -0.1}
    assert slim_logprobs(conn) == 0  # idempotent
