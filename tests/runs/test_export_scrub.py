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
from analysis.mbti.session import ANSWERS
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
