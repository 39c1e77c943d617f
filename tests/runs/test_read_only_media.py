"""A store on read-only media (issue 47, item 1): a read-only bind mount of a folder holding a store. Every reading
command works on it (opened immutable); writing commands are refused with one line; a -wal holding unmerged changes is
named rather than silently ignored."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.runs.store import Store
from tests.stub_server import StubServer


def _bind_read_only(source: Path, target: Path) -> bool:
    target.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "--bind", str(source), str(target)], capture_output=True)
    if done.returncode != 0:
        return False
    subprocess.run(["mount", "-o", "remount,ro,bind", str(target)], check=True, capture_output=True)
    return True


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(writable source folder, the same folder mounted read-only); skipped where this process cannot mount."""
    source, target = tmp_path / "src", Path("/tmp") / f"rolescope-ro-{uuid.uuid4().hex[:8]}"
    source.mkdir()
    if not _bind_read_only(source, target):
        shutil.rmtree(target, ignore_errors=True)
        pytest.skip("cannot make a read-only bind mount here (needs root or CAP_SYS_ADMIN); the immutable open is "
                    "then untested on real read-only media")
    try:
        yield source, target
    finally:
        subprocess.run(["umount", "-l", str(target)], capture_output=True)  # lazy: a connection may still be open
        shutil.rmtree(target, ignore_errors=True)


def _small_store(path: Path) -> None:
    with StubServer() as server:
        assert main(["run", "values", "--model", f"stub@{server.url}", "--store", str(path), "--quiet", "--run-id", "r",
                     "--limit-personas", "3", "--limit-items", "6", "--contexts", "no_conv", "--answer-mode", "text"]) == 0


def test_every_reading_command_works_on_a_read_only_mount(read_only_folder: tuple[Path, Path], tmp_path: Path,
                                                          capfd: pytest.CaptureFixture[str]) -> None:
    source, mounted = read_only_folder
    _small_store(source / "s.db")
    store = mounted / "s.db"
    with pytest.raises(OSError):
        (mounted / "probe").write_text("x")
    capfd.readouterr()
    assert main(["runs", "--store", str(store), "--json"]) == 0
    assert '"run_id":"r"' in capfd.readouterr().out
    assert main(["metrics", "values", "--store", str(store), "--json"]) == 0
    assert main(["leaderboard", "--store", str(store), "--json"]) == 0
    assert main(["export", "--store", str(store), "--format", "csv", "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "values_answers.csv").exists()
    capfd.readouterr()
    assert main(["resume", "r", "--store", str(store), "--quiet"]) == 2
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "read-only" in err[0]
    with Store(store, read_only=True) as s:
        assert s.immutable and len(s.table("values_answers")) == 18


def test_a_wal_with_unmerged_changes_is_named(read_only_folder: tuple[Path, Path],
                                              capfd: pytest.CaptureFixture[str]) -> None:
    source, mounted = read_only_folder
    scratch = source.parent / "scratch"
    scratch.mkdir()
    _small_store(scratch / "s.db")
    writer = sqlite3.connect(scratch / "s.db")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("UPDATE runs SET status='cancelled'")
    writer.commit()
    shutil.copy(scratch / "s.db", source / "s.db")  # a snapshot taken while a writer held changes in its -wal
    shutil.copy(scratch / "s.db-wal", source / "s.db-wal")
    writer.close()
    capfd.readouterr()
    assert main(["runs", "--store", str(mounted / "s.db")]) == 2
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "changes not yet merged in s.db-wal" in err[0]
