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


def test_columns_a_newer_rolescope_declares_are_added(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store written before a table gained a column (e.g. trust tables' finish_reason) takes rows with it, on open and
    on upsert; the old rows read NULL there."""
    monkeypatch.setattr(store_module, "_TABLES", dict(store_module._TABLES))
    old = Table("evolving_answers", (("run_id", "TEXT"), ("v", "INTEGER")), ("run_id",))
    new = Table("evolving_answers", (("run_id", "TEXT"), ("v", "INTEGER"), ("finish_reason", "TEXT")), ("run_id",))
    register_table(old)
    with Store(tmp_path / "s.db") as store:
        store.upsert(old.name, [{"run_id": "a", "v": 1}])
    register_table(new)
    with Store(tmp_path / "s.db") as store:  # on open
        store.upsert(new.name, [{"run_id": "b", "v": 2, "finish_reason": "length"}])
        rows = store.table(new.name).sort_values("run_id")
    assert rows["finish_reason"].isna().tolist() == [True, False] and rows["finish_reason"].iloc[1] == "length"
    register_table(old)
    with Store(tmp_path / "t.db") as store:
        store.upsert(old.name, [{"run_id": "a", "v": 1}])
        register_table(new)  # registered while the store is open: the upsert adds the column
        store.upsert(new.name, [{"run_id": "b", "v": 2, "finish_reason": "stop"}])
        assert store.table(new.name).sort_values("run_id")["finish_reason"].fillna("-").tolist() == ["-", "stop"]
