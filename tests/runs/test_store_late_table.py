"""Store.upsert into a method table registered after the store was opened (the runner imports methods lazily)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.runs import store as store_module
from analysis.runs.store import Store, Table, register_table


def test_upsert_creates_a_table_registered_after_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first upsert creates the late table and writes the rows; later upserts replace by key as usual."""
    monkeypatch.setattr(store_module, "_TABLES", dict(store_module._TABLES))  # the registration ends with the test
    with Store(tmp_path / "s.db") as store:
        late = register_table(Table("late_registered_answers", (("run_id", "TEXT"), ("k", "TEXT"), ("v", "INTEGER")),
                                    ("run_id", "k")))
        assert late.name not in store.table_names()
        store.upsert(late.name, [{"run_id": "r", "k": "a", "v": 1}, {"run_id": "r", "k": "b", "v": 2}])
        store.upsert(late.name, [{"run_id": "r", "k": "a", "v": 3}])
        rows = store.table(late.name).sort_values("k")
    assert rows[["k", "v"]].values.tolist() == [["a", 3], ["b", 2]]
