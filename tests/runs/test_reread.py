"""``python -m analysis reread``: stored answers re-derived from the stored replies, with no request sent."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.demo_store import bundled_demo_store

REPO = Path(__file__).resolve().parents[2]
RUN = "demo-trust-population-smollm2-greedy"


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    path = bundled_demo_store()
    if not path.exists():
        pytest.skip("no bundled demo store")
    copy = tmp_path / "demo.db"
    with sqlite3.connect(path) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    return copy


def _rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return sorted(conn.execute(sql).fetchall(), key=repr)


def test_reread_restores_what_the_replies_say_and_sends_nothing(demo_copy: Path) -> None:
    """A wrong parser's rows (every transfer stored as a valid $9) go back to what the replies decide; the call cache
    is untouched, and the change is printed."""
    before = _rows(demo_copy, f"SELECT persona_id, sent, valid FROM trust_transfers WHERE run_id='{RUN}'")
    calls = _rows(demo_copy, "SELECT cache_key FROM calls")
    with sqlite3.connect(demo_copy) as conn:
        conn.execute(f"UPDATE trust_transfers SET sent = 9, valid = 1, reason = NULL WHERE run_id='{RUN}'")
    out = subprocess.run([sys.executable, "-m", "analysis", "reread", "--store", str(demo_copy), "--run", RUN],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert f"{RUN}: changed" in out.stdout and "trust_transfers:" in out.stdout
    assert "1 run(s): 1 changed" in out.stdout
    assert _rows(demo_copy, f"SELECT persona_id, sent, valid FROM trust_transfers WHERE run_id='{RUN}'") == before
    assert _rows(demo_copy, "SELECT cache_key FROM calls") == calls


def test_reread_leaves_a_run_that_would_need_a_request(demo_copy: Path) -> None:
    """A reply missing from the cache would have to be requested again: reread skips the run and changes nothing."""
    from analysis.reread import reread

    with sqlite3.connect(demo_copy) as conn:
        key = conn.execute(f"SELECT cache_key FROM trust_transfers WHERE run_id='{RUN}' LIMIT 1").fetchone()[0]
        conn.execute("DELETE FROM calls WHERE cache_key=?", (key,))
        conn.execute(f"UPDATE trust_transfers SET sent = 9 WHERE run_id='{RUN}'")
    before = _rows(demo_copy, f"SELECT * FROM trust_transfers WHERE run_id='{RUN}'")
    [result] = reread(demo_copy, [RUN], log=lambda m: None)
    assert result.status == "skipped" and "not in the call cache" in result.why
    assert _rows(demo_copy, f"SELECT * FROM trust_transfers WHERE run_id='{RUN}'") == before


def test_a_skipped_run_leaves_no_copy_that_spoils_the_next(demo_copy: Path) -> None:
    """After a run is skipped (its replay grew the working copy), the next run is re-read from a fresh copy, never
    refused as damaged ("bytes after its last page": a backup onto the longer WAL file kept its length)."""
    from analysis.reread import reread

    skipped = "demo-trust-population-smollm2-t07"
    with sqlite3.connect(demo_copy) as conn:
        key = conn.execute(f"SELECT cache_key FROM trust_transfers WHERE run_id='{skipped}' LIMIT 1").fetchone()[0]
        conn.execute("DELETE FROM calls WHERE cache_key=?", (key,))
        conn.execute(f"UPDATE trust_transfers SET sent = 9, valid = 1, reason = NULL WHERE run_id='{RUN}'")
    first, second = reread(demo_copy, [skipped, RUN], log=lambda m: None)
    assert first.status == "skipped" and second.status == "changed"


def test_reread_of_an_unknown_run_is_one_line_exit_2(demo_copy: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "analysis", "reread", "--store", str(demo_copy), "--run", "nope"],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and out.stderr.strip().count("\n") == 0 and "run 'nope' not found" in out.stderr
