"""A demo that cannot go stale silently (issue 55, item 6).

(a) Every imported source's stored answers are those a fresh import of the same public files gives with today's
    readers and importers. Changed source: a reader fix (e.g. ``parse_option_text`` reading "F. Very much like you" as
    E again) changes a fresh import's rows, and ``test_stored_imports_equal_a_fresh_import`` fails until
    ``python -m analysis demo build`` (which drops the demo's imported runs and imports afresh) is run;
    ``test_a_changed_row_is_found`` shows the comparison failing on one changed answer.
(b) Every run the embedded model made is either asked with the prompts today's campaign builds, or listed, with what
    differs, in the store's record of stale runs, which the Overview shows. Changed source: rewriting a bundled persona
    description (``data/values/populations``) or an instrument changes today's plans, so
    ``test_the_recorded_stale_runs_are_todays`` fails until ``demo build`` (re-asks them) or ``demo reports`` (records
    them) is run; ``test_a_changed_description_makes_a_run_stale`` shows it on one plan.
(c) Tables of numbers in the docs are generated: ``tests/test_doc_tables.py``.
"""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from analysis.demo import ANCHORS, CONFIGS, demo_parts
from analysis.demo_staleness import STALE_KEY, plan_differences, recorded_stale_runs, stale_runs, store_stale_runs
from analysis.demo_store import DEMO_ARCHIVE, bundled_demo_store
from analysis.methods import all_methods
from analysis.runs.store import Store

pytestmark = pytest.mark.skipif(not DEMO_ARCHIVE.exists(), reason="no bundled demo archive in this checkout")
#: Columns that record when, not what.
WHEN = {"created_at", "updated_at", "finished_at"}


@pytest.fixture(scope="module")
def demo() -> Store:
    with Store(bundled_demo_store(), read_only=True) as store:
        yield store


def _rows(store: Store, table: str, run_id: str) -> tuple[list[str], list[tuple]]:
    """A run's rows of ``table``: its columns (sorted; a store's column order depends on when each was added) and its
    rows as tuples in that order, sorted, with every missing value as None (NaN == NaN is false)."""
    frame = store.frame(f'SELECT * FROM "{table}" WHERE run_id = ?', (run_id,))
    columns = sorted(c for c in frame.columns if c not in WHEN)
    clean = frame[columns].astype(object).where(frame[columns].notna(), None)
    return columns, sorted(map(tuple, clean.itertuples(index=False, name=None)), key=repr)


def differences(stored: Store, fresh: Store, run_id: str, tables: tuple[str, ...]) -> list[str]:
    """What differs between a run's stored rows and plan in ``stored`` and in ``fresh`` (nothing: [])."""
    if stored.query_one("SELECT 1 AS x FROM runs WHERE run_id=?", (run_id,)) is None:
        return [f"{run_id}: not in the demo (a fresh import makes it)"]
    old, new = stored.get_run(run_id), fresh.get_run(run_id)
    out = []
    if plan_differences(old["plan"], new["plan"]):
        out.append(f"{run_id}: plan differs in {plan_differences(old['plan'], new['plan'])[:3]}")
    for table in tables:
        if table not in fresh.table_names():
            continue
        (ca, a), (cb, b) = _rows(stored, table, run_id), _rows(fresh, table, run_id)
        if ca != cb and a and b:
            out.append(f"{run_id}: {table}: columns differ ({sorted(set(ca) ^ set(cb))})")
        elif a != b:
            changed = sum((Counter(b) - Counter(a)).values())  # rows of the fresh import the demo does not hold
            out.append(f"{run_id}: {table}: {changed} of {len(b)} rows differ from a fresh import")
    return out


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> tuple[Store, list[tuple[str, tuple[str, ...]]]]:
    """Every declared source imported afresh, numbers only, as ``demo build`` imports it."""
    store = Store(tmp_path_factory.mktemp("fresh") / "fresh.db")
    runs = []
    for method in all_methods():
        for source in method.bundled_imports:
            if (ANCHORS / source.folder).is_dir():
                runs += [(r, method.tables) for r in source.load(store, ANCHORS / source.folder)]
    if not runs:
        pytest.skip("../shared/anchors holds none of the sources the demo imports")
    return store, runs


def test_stored_imports_equal_a_fresh_import(demo: Store, fresh) -> None:
    store, runs = fresh
    found = [d for run_id, tables in runs for d in differences(demo, store, run_id, tables)]
    assert not found, "stale imports in the demo (rebuild: python -m analysis demo build):\n" + "\n".join(found[:20])
    imported = set(demo.frame("SELECT run_id FROM runs WHERE status='imported'")["run_id"])
    assert imported == {r for r, _ in runs}, "the demo holds imported runs no declared source makes today"


def test_a_changed_row_is_found(tmp_path, fresh) -> None:
    """The comparison above fails on one changed answer (the shape of a reader change)."""
    store, runs = fresh
    run_id, tables = runs[0]
    table = next(t for t in tables if t in store.table_names() and _rows(store, t, run_id)[1])
    target = Store(tmp_path / "copy.db")
    run = store.get_run(run_id)
    rows = store.frame(f'SELECT * FROM "{table}" WHERE run_id = ?', (run_id,)).to_dict("records")
    assert not differences(store, store, run_id, tables)
    column = next(c for c in ("score", "valid", "sent", "number", "verdict") if c in rows[0])
    rows[0][column] = 99 if rows[0][column] != 99 else 98
    target.import_run(run_id, run["method"], run["model"], run["model_spec"], run["plan"], {table: rows})
    assert differences(target, store, run_id, tables) == [f"{run_id}: {table}: 1 of {len(rows)} rows differ from a "
                                                          "fresh import"]


def test_the_recorded_stale_runs_are_todays(demo: Store) -> None:
    recorded = recorded_stale_runs(demo)
    assert recorded is not None, f"the demo store records no '{STALE_KEY}' (run: python -m analysis demo reports)"
    assert store_stale_runs(demo, CONFIGS, demo_parts()) == recorded, (
        "the demo's record of runs asked with an older prompt is not today's: rebuild them (python -m analysis demo "
        "build) or record them (python -m analysis demo reports)")


def test_a_changed_description_makes_a_run_stale(demo: Store) -> None:
    plans = {r: demo.get_run(r)["plan"] for r in demo.frame("SELECT run_id FROM runs WHERE run_id LIKE 'demo-%' "
                                                             "AND status != 'imported'")["run_id"]}
    fine = {r: p for r, p in plans.items() if r not in store_stale_runs(demo, CONFIGS, demo_parts())}
    if not fine:
        pytest.skip("every demo run is stale")
    run_id, plan = next((r, p) for r, p in fine.items() if p.get("personas"))
    changed = copy.deepcopy(plan)
    changed["personas"][0]["description"] = (changed["personas"][0].get("description") or "") + " (rewritten)"
    assert stale_runs({run_id: plan}, CONFIGS, demo_parts()) == {}
    why = stale_runs({run_id: changed}, CONFIGS, demo_parts())[run_id]
    assert "personas[].description" in why


def test_plan_differences_by_hand() -> None:
    assert plan_differences({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == ["a[].b"]
    assert plan_differences({"a": [1]}, {"a": [1, 2]}) == ["a (1 entries, today 2)"]
    assert plan_differences({"x": {"batch_price_factor": 0.5}}, {"x": {"batch_price_factor": 1.0}}) == []
    assert plan_differences({"a": 1}, {"b": 1}) == ["a", "b"]
