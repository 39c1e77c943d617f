"""Exports scrub secrets whatever the column dtype: a key that reached the store (e.g. echoed in a reply before the
client redacted replies) is in no exported file, no zip, no single-table download.

Before, only ``object`` columns were scrubbed; under pandas 3 text columns are ``StringDtype``, so nothing was.
"""

from __future__ import annotations

import io
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
    register_secret(PLAIN_KEY)
    path = tmp_path / "leaky.db"
    with Store(path) as store:
        store.create_run("r", "mbti", "m", {}, {"method": "mbti"})
        request = ChatRequest.build([{"role": "user", "content": "hi"}], {})
        store.record_call("r", "u", "k1", "m", request, ChatReply(f"Authorization: Bearer {PLAIN_KEY} / {SHAPED_KEY}", "stop"))
        store.upsert(ANSWERS.name, [{"run_id": "r", "model": "m", "subject": "Men", "order_mode": "fixed", "testing": 0,
                                     "statement_id": "1", "raw": f"echo {PLAIN_KEY}", "reason": f"x {SHAPED_KEY}",
                                     "valid": 0}])
    return path


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
