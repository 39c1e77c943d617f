"""The samples export a colleague can read on its own (``analysis.sample_export``): every sample column plus its stored
call (messages, parameters, logprobs, finish reason, tokens, cost) and its run's name, tags and note; no secret in any
format; CSV cells defused of formulas; Parquet read back as the same frame."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from analysis.llm.keys import register_secret
from analysis.runs.labels import set_label
from analysis.runs.store import Store
from analysis.sample_export import CALL_COLUMNS, EXPORT_COLUMNS, RUN_COLUMNS, export_frame, export_name, export_samples
from analysis.samples import COLUMNS, store_samples
from tests.app.fixture_store import build_fixture_store

PLAIN_KEY = "correct-horse-battery-export-7"  # not key-shaped: only known because the process registered it
SHAPED_KEY = "sk-test-" + "Z" * 32  # key-shaped: scrubbed even if never registered
FORMATS = ("csv", "json", "parquet")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fixture_store(tmp_path_factory.mktemp("sample-export") / "fixture.db")


@pytest.fixture
def store_path(built: Path, tmp_path: Path) -> Path:
    """A copy of the fixture store (closed, so one file) that a test may write."""
    return Path(shutil.copy(built, tmp_path / "fixture.db"))


def _with_call(samples: pd.DataFrame) -> pd.Series:
    """A sample whose call the store holds (the fixture's drill-down run)."""
    return samples[samples["cache_key"].notna()].iloc[0]


def _table(blob: bytes, fmt: str) -> pd.DataFrame:
    """An export's bytes read back (CSV and JSON: every cell as text, as a colleague's tool would first see it)."""
    if fmt == "csv":
        return pd.read_csv(io.BytesIO(blob), dtype=str, keep_default_na=False)
    if fmt == "json":
        return pd.DataFrame(json.loads(blob))
    return pd.read_parquet(io.BytesIO(blob))


def test_a_sample_exports_with_its_stored_call_and_its_run_s_labels(store_path: Path) -> None:
    """The messages and parameters are exactly the stored request's, the logprobs, finish reason and tokens the call
    row's; the run's name, tags and note those ``set_label`` wrote; the sample columns unchanged, in order."""
    with Store(store_path) as store:
        samples = store_samples(store)
        row = _with_call(samples)
        set_label(store, str(row["run_id"]), name="pilot", tags=["baseline", "greedy"], note="first try")
        call = store.query_one("SELECT * FROM calls WHERE cache_key=?", (row["cache_key"],))
        out = export_frame(store, samples)
    assert list(out.columns) == list(EXPORT_COLUMNS)
    pd.testing.assert_frame_equal(out[list(COLUMNS)], samples.reset_index(drop=True))
    got = out[out["sample_id"] == row["sample_id"]].iloc[0]
    request = json.loads(call["request"])
    assert json.loads(got["messages"]) == request["messages"] and len(request["messages"]) >= 2
    assert json.loads(got["params"]) == request["params"] and got["sample_index"] == request["sample"]
    assert got["call_model"] == call["model"] and got["finish_reason"] == call["finish_reason"]
    assert json.loads(got["top_logprobs"]) == json.loads(call["logprobs"])
    assert (got["tokens_in"], got["tokens_out"], got["cached_tokens"]) == (call["tokens_in"], call["tokens_out"],
                                                                         call["cached_tokens"])
    assert got["latency_s"] == call["latency_s"] and pd.isna(got["cost"]) and call["cost"] is None
    assert (got["run_name"], json.loads(got["run_tags"]), got["run_note"]) == ("pilot", ["baseline", "greedy"],
                                                                               "first try")
    same_run = out[out["run_id"] == row["run_id"]]
    assert (same_run["run_name"] == "pilot").all()
    assert out.loc[out["run_id"] != row["run_id"], list(RUN_COLUMNS)].isna().all().all()


def test_samples_without_a_stored_call_keep_empty_cells(store_path: Path) -> None:
    """Imported rows (no cache key) and a cache key the store does not hold: empty call cells, no error."""
    with Store(store_path, read_only=True) as store:
        samples = store_samples(store)
        bare = samples[samples["cache_key"].isna()].head(3)
        lost = _with_call(samples).to_frame().T.astype(samples.dtypes).assign(cache_key="not-a-stored-call")
        out = export_frame(store, pd.concat([bare, lost]))
        empty = export_frame(store, samples.iloc[0:0])
    assert len(out) == 4 and out[list(CALL_COLUMNS)].isna().all().all()
    assert list(out["sample_id"]) == [*bare["sample_id"], lost["sample_id"].iloc[0]]
    assert empty.empty and list(empty.columns) == list(EXPORT_COLUMNS)


def test_no_secret_in_any_format_and_csv_formulas_defused(store_path: Path) -> None:
    """A key that reached the store (written by another tool, past the write path's scrubber) in a call's messages,
    its logprobs and a run's note, and a reply echoing one: none is in the CSV, JSON or Parquet bytes, the rest of
    their text is; a run name opening a formula is quoted in CSV only."""
    register_secret(PLAIN_KEY)
    with Store(store_path) as store:
        row = _with_call(store_samples(store))
        set_label(store, str(row["run_id"]), name="=HYPERLINK(1)", note="placeholder")
    with sqlite3.connect(store_path) as raw:
        request = json.loads(raw.execute("SELECT request FROM calls WHERE cache_key=?", (row["cache_key"],)).fetchone()[0])
        request["messages"][-1]["content"] += f" my key {PLAIN_KEY}"
        raw.execute("UPDATE calls SET request=?, logprobs=? WHERE cache_key=?",
                    (json.dumps(request), json.dumps([{SHAPED_KEY: -0.1}]), row["cache_key"]))
        raw.execute("UPDATE run_labels SET note=? WHERE run_id=?", (f"note {SHAPED_KEY}", row["run_id"]))
    with Store(store_path, read_only=True) as store:
        samples = store_samples(store)
        samples.loc[samples["sample_id"] == row["sample_id"], "reply"] = f"echo {PLAIN_KEY}"
        assert PLAIN_KEY in export_frame(store, samples).to_csv()  # the frame holds them: the bytes must not
        blobs = {fmt: export_samples(store, samples, fmt) for fmt in FORMATS}
    for fmt, blob in blobs.items():
        text = _table(blob, fmt).to_csv(index=False)
        for key in (PLAIN_KEY, SHAPED_KEY):
            assert key.encode() not in blob and key not in text, (fmt, key)
        assert "my key ***" in text and "echo ***" in text and "note ***" in text, fmt
    named = {fmt: _table(blob, fmt).set_index("sample_id").loc[row["sample_id"], "run_name"]
             for fmt, blob in blobs.items()}
    assert named == {"csv": "'=HYPERLINK(1)", "json": "=HYPERLINK(1)", "parquet": "=HYPERLINK(1)"}


def test_parquet_reads_back_as_the_same_frame(store_path: Path) -> None:
    """Every column, dtype and empty cell of the export frame, read back by pandas from the Parquet bytes."""
    with Store(store_path) as store:
        samples = store_samples(store)
        set_label(store, str(_with_call(samples)["run_id"]), name="pilot", tags=["a"], note="ok")
        expected = export_frame(store, samples)
        blob = export_samples(store, samples, "parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(blob)), expected)


def test_export_names_say_what_they_hold() -> None:
    assert export_name("rolescope-demo.db", 120, 9220, "csv") == "samples-rolescope-demo-120-of-9220-with-calls.csv"
    assert export_name("My Store!.db", 5, 5, "parquet") == "samples-my-store-5-with-calls.parquet"
    assert export_name("...", 1, 2, "json") == "samples-store-1-of-2-with-calls.json"
