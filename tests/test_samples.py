"""Samples (``analysis.samples``): every method's replies as one table, through the method contract; the filters, the
A-vs-B pairing, the matrix and the export, hand-worked on small frames; the key scrubbed from an export."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pandas as pd
import pytest

from analysis import methods
from analysis.runs.store import Store
from analysis.sample_export import EXPORT_COLUMNS, export_samples
from analysis.samples import (COLUMNS, INVALID, against_answers, against_answers_text, agreement, build, filter_samples,
                              matrix, page_of, scorable, side_by_side, sort_samples, store_samples)
from tests.app.fixture_store import build_fixture_store

#: Per method: table -> (kind, rows that are samples of it, valid column or status test)
VALID = {"values_answers": lambda t: t["valid"] == 1, "mbti_answers": lambda t: t["valid"] == 1,
         "trust_beliefs": lambda t: t["valid"] == 1, "trust_transfers": lambda t: t["valid"] == 1,
         "personagym_answers": lambda t: t["status"] == "ok",
         "personagym_grades": lambda t: (t["status"] == "ok") & t["score"].notna()}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    path = build_fixture_store(tmp_path_factory.mktemp("samples") / "fixture.db")
    with Store(path, read_only=True) as s:
        yield s


@pytest.mark.parametrize("method", [m.name for m in methods.all_methods() if m.parts is None])
def test_every_method_gives_its_samples_in_the_shared_columns(store: Store, method: str) -> None:
    """One row per stored reply of the method's tables, with its validity as the table holds it; parsed only where
    valid; ids unique; the run filter returns that run's rows only."""
    m = methods.get(method)
    assert m.samples is not None, f"{method}: no samples in its contract"
    frame = m.samples(store)
    assert list(frame.columns) == list(COLUMNS)
    assert len(frame) > 0 and set(frame["method"]) == {method}
    assert frame["sample_id"].is_unique
    assert frame.loc[~frame["valid"], "parsed"].isna().all()
    assert frame.loc[frame["valid"], "parsed"].notna().all()
    for table, valid in VALID.items():
        if table in m.tables or table in set(frame["table"]):
            rows = store.table(table)
            part = frame[frame["table"] == table]
            assert len(part) == len(rows), table
            assert int(part["valid"].sum()) == int(valid(rows).sum()), table
    run = frame["run_id"].iloc[0]
    assert set(m.samples(store, [run])["run_id"]) == {run}


@pytest.mark.parametrize("method", [m.name for m in methods.all_methods() if m.parts is not None])
def test_a_composite_run_s_samples_are_its_parts(store: Store, method: str) -> None:
    """A campaign's samples are its parts' replies, each as its own method gives them; listing every sample of the
    store (no run ids) gives none of them twice."""
    m = methods.get(method)
    assert m.samples(store).empty
    runs = store.runs()
    run = str(runs.loc[runs["method"] == method, "run_id"].iloc[0])
    frame = m.samples(store, [run])
    assert list(frame.columns) == list(COLUMNS) and len(frame) > 0
    parts = {name for name, _ in m.parts(store.get_run(run)["plan"])}
    assert set(frame["method"]) == parts
    for part_run, rows in frame.groupby("run_id"):
        own = methods.get(store.get_run(part_run)["method"]).samples(store, [part_run])
        assert len(rows) == len(own) and set(rows["sample_id"]) == set(own["sample_id"])


def test_the_store_samples_hold_every_method(store: Store) -> None:
    frame = store_samples(store)
    assert set(frame["method"]) == {m.name for m in methods.all_methods() if m.parts is None}  # a campaign's are its parts
    assert frame["sample_id"].is_unique
    assert {str(t) for t in frame["table"]} <= set(store.table_names())


def _rows(model: str, answers: list[str | None], replies: list[str] | None = None) -> pd.DataFrame:
    """A small answer table: persona p0/p1, items i0.., one context."""
    n = len(answers)
    return pd.DataFrame({"run_id": f"r-{model}", "model": model, "persona_id": [f"p{i % 2}" for i in range(n)],
                         "item_id": [f"i{i}" for i in range(n)], "context": "c", "answer": answers,
                         "valid": [a is not None for a in answers],
                         "reason": [None if a is not None else "no letter" for a in answers],
                         "raw": replies or [f"reply {i} {a}" for i, a in enumerate(answers)],
                         "cache_key": [f"k-{model}-{i}" for i in range(n)]})


def _samples(model: str, answers: list[str | None], **kw) -> pd.DataFrame:
    return build(_rows(model, answers, **kw), method="m", kind="answer", table="t", key=("run_id", "persona_id", "item_id"),
                 persona_id="persona_id", item="item_id", context="context", parsed="answer", reply="raw",
                 valid="valid", scored=True)


def test_side_by_side_pairs_the_same_prompts_and_marks_differences() -> None:
    """A answers (x, y, -, x), B (x, z, z): 3 shared prompts; they differ on item 1 (y vs z) and item 2 (invalid vs z)."""
    frame = pd.concat([_samples("A", ["x", "y", None, "x"]), _samples("B", ["x", "z", "z"])], ignore_index=True)
    paired = side_by_side(frame, "A", "B")
    assert list(paired["item"]) == ["i0", "i1", "i2"]
    assert list(paired["answer_a"]) == ["x", "y", INVALID] and list(paired["answer_b"]) == ["x", "z", "z"]
    assert list(paired["differ"]) == [False, True, True]
    assert agreement(paired) == {"prompts": 3, "differ": 2, "invalid_a": 1, "invalid_b": 0}
    assert list(side_by_side(frame, "A", "B", only_differ=True)["item"]) == ["i1", "i2"]


def test_matrix_is_prompts_by_models() -> None:
    frame = pd.concat([_samples("A", ["x", None, "y"]), _samples("B", ["x", "x"])], ignore_index=True)
    table, n = matrix(frame)
    assert n == 3
    assert table[["item", "A", "B"]].fillna("").values.tolist() == [["i0", "x", "x"], ["i1", INVALID, "x"],
                                                                     ["i2", "y", ""]]
    table, n = matrix(frame, limit=2)
    assert n == 3 and len(table) == 2


def test_filters_search_sort_and_pages() -> None:
    frame = _samples("A", ["x", None, "y", "x"], replies=["Hello there", "no idea", "HELLO again", "fine"])
    assert list(filter_samples(frame, valid=False)["item"]) == ["i1"]
    assert list(filter_samples(frame, parsed=["x"])["item"]) == ["i0", "i3"]
    assert list(filter_samples(frame, parsed=[INVALID])["item"]) == ["i1"]
    assert list(filter_samples(frame, search="hello")["item"]) == ["i0", "i2"]
    assert list(filter_samples(frame, persona=["p1"], valid=True)["item"]) == ["i3"]
    assert list(filter_samples(frame, reason=["no letter"])["item"]) == ["i1"]
    assert filter_samples(frame, truncated=True).empty  # not recorded: never "truncated"
    assert list(sort_samples(frame, "parsed", descending=True)["item"]) == ["i2", "i0", "i3", "i1"]  # missing last
    rows, pages = page_of(frame, 2, 3)
    assert pages == 2 and list(rows["item"]) == ["i3"]
    assert list(page_of(frame, 9, 3)[0]["item"]) == ["i3"]  # clamped to the last page
    with pytest.raises(ValueError):
        filter_samples(frame, reply=["x"])


def test_scorable_counts_valid_scored_samples() -> None:
    frame = _samples("A", ["x", None, None])
    assert scorable(frame) == (3, 1)
    assert scorable(frame.assign(scored=False)) == (0, 0)


def test_an_export_holds_no_key_a_reply_echoed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A reply that echoes a key in play (an env key variable) leaves the export without it, in CSV and JSON; a
    formula-looking reply is defused in CSV; samples whose calls the store does not hold export with empty call
    cells."""
    key = "rk-" + secrets.token_hex(16)
    monkeypatch.setenv("ROLESCOPE_TEST_API_KEY", key)
    frame = _samples("A", ["x", "y"], replies=[f"my key is {key}!", "=HYPERLINK(1)"])
    with Store(tmp_path / "empty.db") as store:
        for fmt in ("csv", "json"):
            blob = export_samples(store, frame, fmt).decode()
            assert key not in blob and key[:12] not in blob
            assert "my key is" in blob
        assert "'=HYPERLINK" in export_samples(store, frame, "csv").decode()
        records = json.loads(export_samples(store, frame, "json"))
    assert [r["item"] for r in records] == ["i0", "i1"] and list(records[0]) == list(EXPORT_COLUMNS)
    assert records[0]["messages"] is None and records[0]["run_name"] is None


def test_a_table_without_rows_gives_no_samples(tmp_path: Path) -> None:
    with Store(tmp_path / "empty.db") as s:
        assert store_samples(s).empty
        assert list(store_samples(s).columns) == list(COLUMNS)


def test_text_columns_convert_at_once_as_each_value_would():
    """``_text`` converts whole columns (text, integers, floats) at once; each value comes out as ``_one_text`` gives
    it one by one: whole floats without '.0', NaN/None/NA as missing, other values as ``str``."""
    import numpy as np

    from analysis.samples import _one_text, _text

    columns = [pd.Series([3.0, 0.1, np.nan, np.inf, -2.0, 1e20, 1 / 3]),
               pd.Series([1, None, 7], dtype="Int64"),
               pd.Series([1, 2, 3]),
               pd.Series(["a", None, "é"], dtype="string"),
               pd.Series(["a", None, np.nan, "b"], dtype=object),
               pd.Series([1, "x", 2.0, None, True], dtype=object),
               pd.Series([True, False]),
               pd.Series([np.nan, np.nan])]
    for column in columns:
        expected = pd.Series([_one_text(v) for v in column.astype(object)], index=column.index, dtype="string")
        pd.testing.assert_series_equal(_text(column, column.index), expected, check_names=False)


def test_source_keys_are_the_json_of_each_rows_key_fields():
    from analysis.samples import _json_keys

    rows = pd.DataFrame({"run_id": ["r1", "r1", "r\"2"], "n": [1, 2, 3], "x": [0.5, None, 2.0]})
    expected = [json.dumps({"run_id": r, "n": n, "x": None if x != x else x})
                for r, n, x in zip(rows["run_id"], rows["n"].tolist(), rows["x"])]
    assert _json_keys(rows, ("run_id", "n", "x")) == expected


def test_samples_against_answers_name_each_difference() -> None:
    """Rounds: 3 rows, 3 decisions and 2 forecasts (2 second replies); a stage table of 4 replies; 5 transfer rows of
    which 1 gave no sample; a table of 2 rows with 3 samples of one kind (1 more, its kind unknown)."""
    def rows(table: str, method: str, kind: str, n: int) -> pd.DataFrame:
        return pd.DataFrame({"table": [table] * n, "method": [method] * n, "kind": [kind] * n})

    frame = pd.concat([rows("rounds", "trust", "round", 3), rows("rounds", "trust", "round forecast", 2),
                       rows("stage", "gym", "questions", 4), rows("transfers", "trust", "transfer", 4),
                       rows("odd", "gym", "grade", 3)], ignore_index=True)
    tally = against_answers(frame, {"rounds": 3, "transfers": 5, "odd": 2})
    assert (tally["samples"], tally["answers"]) == (16, 10)
    assert [(p["table"], p["kind"], p["n"], p["why"]) for p in tally["parts"]] == [
        ("rounds", "round forecast", 2, "second"), ("stage", "questions", 4, "stage"), ("transfers", None, -1, "no reply"),
        ("odd", None, 1, "second")]
    assert tally["samples"] == tally["answers"] + sum(p["n"] for p in tally["parts"])
    assert against_answers_text(tally, str.upper) == (
        "16 samples (replies, as the Samples page counts them) behind 10 answers: 6 more — 2 TRUST round forecast and "
        "1 GYM odd, each stored on an answer row beside another reply (one answer, two replies); 4 GYM questions, "
        "replies of stages that give no answer; 1 answer row of transfers that gave no sample.")
    assert against_answers_text(against_answers(rows("t", "m", "answer", 2), {"t": 2})) is None
