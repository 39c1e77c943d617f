"""Names and ids the CLI prints come from outside: a provider's batch ids and statuses, a store's model names and
run labels (written by another tool or an older version), file names. Issue 58: an escape sequence ("\\x1b[31m") or
a newline in one was printed raw, recolouring the terminal or forging a line of the CLI's output. Each prints with
its control characters written as escapes (``analysis.errors.one_line``)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.runs.store import Store
from tests.stub_server import StubServer

HOSTILE = "\x1b[31mRED\nFORGED: all calls answered\r\u2028"
VALUES = ["--limit-personas", "2", "--limit-items", "3", "--contexts", "no_conv", "--answer-mode", "text"]


def _clean(text: str) -> None:
    """No escape sequence, and no line (or part of one a carriage return starts) forged by a name."""
    assert "\x1b" not in text and "\u2028" not in text, repr(text[:500])
    for line in text.replace("\r", "\n").splitlines():
        assert not line.startswith("FORGED"), repr(line)


def test_a_provider_batch_id_prints_on_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capfd: pytest.CaptureFixture[str]) -> None:
    """The batch id a provider returns shows in the progress bar while the run waits, and in a failed call's
    reason (told by the run's outcome) when the batch is lost."""
    monkeypatch.setenv("ROLESCOPE_PROGRESS", "1")  # the bar, as on a terminal
    store = tmp_path / "s.db"
    with StubServer() as server:
        batches = server.app.batches
        plain_id = batches._new_id
        monkeypatch.setattr(batches, "_new_id", lambda prefix: f"{plain_id(prefix)}{HOSTILE}" if prefix == "batch"
                            else plain_id(prefix))
        server.configure(batch={"outcome": "completed", "polls": 2})
        capfd.readouterr()
        code = main(["run", "values", "--model", f"stub@{server.url}", "--store", str(store), "--run-id", "b",
                     "--max-attempts", "1", "--via", "batch", "--poll", "0.02", *VALUES])
        err = capfd.readouterr().err
    assert code == 0, err
    with Store(store, read_only=True) as s:
        kept = s.batches("b")["batch_id"].tolist()
    assert kept and all(HOSTILE in b for b in kept)  # the id is kept as the provider gave it
    assert "\\x1b[31mRED" in err, repr(err)  # shown, escaped
    _clean(err)


def test_a_lost_batch_is_told_on_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capfd: pytest.CaptureFixture[str]) -> None:
    """A batch the provider stops knowing: each call's stored reason names the batch id, and the run's outcome tells
    the reasons."""
    store = tmp_path / "s.db"
    with StubServer() as server:
        batches = server.app.batches
        plain_id, plain_route = batches._new_id, batches.route
        monkeypatch.setattr(batches, "_new_id", lambda prefix: f"{plain_id(prefix)}{HOSTILE}" if prefix == "batch"
                            else plain_id(prefix))
        monkeypatch.setattr(batches, "route", lambda method, path, *rest: (404, {"error": {"message": "gone"}})
                            if method == "GET" and "/batches/" in path else plain_route(method, path, *rest))
        capfd.readouterr()
        code = main(["run", "values", "--model", f"stub@{server.url}", "--store", str(store), "--run-id", "b", "--quiet",
                     "--max-attempts", "1", "--via", "batch", "--poll", "0.02", *VALUES])
        err = capfd.readouterr().err
    assert code == 1, err
    with Store(store, read_only=True) as s:
        reasons = s.frame("SELECT error FROM call_failures")["error"].tolist()
    assert reasons and all(HOSTILE in r for r in reasons)
    assert "First error: batch batch-stub00002\\x1b[31mRED\\nFORGED" in err, err
    _clean(err)


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The app fixture's values runs, one model renamed (as another tool could have written it) to hold escapes."""
    from tests.app.fixture_store import MODELS, build_fixture_store

    path = build_fixture_store(tmp_path_factory.mktemp("names") / "s.db", methods=("values",))
    conn = sqlite3.connect(path)
    with conn:
        for table in ("runs", "values_answers"):
            conn.execute(f"UPDATE {table} SET model = ? WHERE model = ?", (f"m{HOSTILE}", MODELS[0]))
    conn.close()
    return path


def test_stored_model_names_and_file_names_print_on_one_line(hostile_store: Path, tmp_path: Path,
                                                             capfd: pytest.CaptureFixture[str]) -> None:
    """``leaderboard`` prints the store's model names; ``report`` and ``import rolescope-report`` print file names. The
    import refuses the model name holding control characters (issue 58: names from a file hold none), naming it
    escaped on one line, and stores nothing."""
    store = Path(shutil.copy(hostile_store, tmp_path / "s.db"))
    capfd.readouterr()
    assert main(["leaderboard", "--store", str(store), "--n-boot", "0", "--chance", "0"]) == 0
    shown = capfd.readouterr()
    assert "m\\x1b[31mRED\\nFORGED" in shown.out, shown.out
    _clean(shown.out + shown.err)
    report = tmp_path / f"r{HOSTILE}.html"
    assert main(["report", "--store", str(store), "--out", str(report), "--n-boot", "0", "--chance", "0"]) == 0
    assert main(["import", "rolescope-report", str(report), "--store", str(tmp_path / "restored.db")]) == 2
    shown = capfd.readouterr()
    refusal = shown.err.strip().splitlines()[-1]  # the line before it is the report's own
    assert refusal.count("r\\x1b[31mRED\\nFORGED") == 1 and "m\\x1b[31mRED\\nFORGED" in refusal
    assert "holds a control character" in refusal and len(shown.err.strip().splitlines()) == 2
    _clean(shown.out + shown.err)
    assert not (tmp_path / "restored.db").exists()
