"""The bundled demo opens on real models: every public source a method declares (``Method.bundled_imports``) is in
the committed demo store, as numbers only — no reply, persona prompt or item text of another project is bundled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.demo import ANCHORS
from analysis.demo_store import DEMO_ARCHIVE, bundled_demo_store
from analysis.methods import all_methods
from analysis.runs.store import Store
from analysis.samples import NUMBERS_ONLY

pytestmark = pytest.mark.skipif(not DEMO_ARCHIVE.exists(), reason="no bundled demo archive in this checkout")


@pytest.fixture(scope="module")
def demo() -> Store:
    with Store(bundled_demo_store(), read_only=True) as store:
        yield store


def imported_runs(store: Store) -> list[dict]:
    return [store.get_run(r) for r in store.runs()["run_id"] if store.get_run(r)["status"] == "imported"]


def test_every_declared_source_is_in_the_demo_as_numbers_only(demo: Store) -> None:
    runs = imported_runs(demo)
    sources = {m.name: [s.kind for s in m.bundled_imports] for m in all_methods() if m.bundled_imports}
    assert sources, "no method declares a source the demo imports"
    for method, kinds in sources.items():
        mine = [r for r in runs if r["method"] == method]
        assert mine, f"{method}: no imported run of {kinds} in the demo"
        for run in mine:
            assert run["plan"].get("text_bundled") is False, f"{run['run_id']}: imported with its text"
            assert not run["plan"].get("path"), f"{run['run_id']}: a local path is bundled"


def test_no_imported_row_holds_a_reply(demo: Store) -> None:
    for method in all_methods():
        for table in method.tables:
            if table not in demo.table_names():
                continue
            columns = {r["name"] for r in demo.query(f'PRAGMA table_info("{table}")')}
            if not {"source", "raw"} <= columns:
                continue
            marked = demo.query(f'SELECT COUNT(*) AS n FROM "{table}" WHERE source LIKE ?', (f"%{NUMBERS_ONLY}",))[0]["n"]
            leaked = demo.query(f'SELECT COUNT(*) AS n FROM "{table}" WHERE source LIKE ? AND raw IS NOT NULL',
                                (f"%{NUMBERS_ONLY}",))[0]["n"]
            assert leaked == 0, f"{table}: {leaked} of {marked} numbers-only rows hold a reply"


@pytest.mark.skipif(not (ANCHORS / "persona_llm").is_dir(), reason="../shared/anchors/persona_llm not present")
def test_no_item_text_of_the_bfi_key_is_bundled(demo: Store) -> None:
    key = (ANCHORS / "persona_llm" / "prompts" / "bfi_scores.txt").read_text(encoding="utf-8").splitlines()[1:]
    texts = [line.split("\t")[2].strip() for line in key if line.count("\t") == 2]
    plans = json.dumps([r["plan"] for r in imported_runs(demo)])
    items = " ".join(demo.frame("SELECT DISTINCT item FROM inventory_answers")["item"].dropna())
    assert not [t for t in texts if t in plans or t in items]


@pytest.mark.skipif(not (ANCHORS / "chatgpt_mbti").is_dir(), reason="../shared/anchors/chatgpt_mbti not present")
def test_no_mbti_statement_or_reply_of_the_source_is_bundled(demo: Store) -> None:
    rows = demo.frame("SELECT statement, raw FROM mbti_answers WHERE source LIKE ?", (f"chatgpt-mbti{NUMBERS_ONLY}",))
    assert len(rows) > 0 and rows["statement"].isna().all() and rows["raw"].isna().all()


def test_the_demo_lists_real_models(demo: Store) -> None:
    specs = {r["model"]: json.loads(r["model_spec"]) for r in demo.query("SELECT model, model_spec FROM runs")}
    real = {m for m, s in specs.items() if s.get("backend") == "imported"}
    assert {"gpt-4-0613", "gpt-3.5-turbo-0613", "GPT4", "ChatGPT"} <= real
    assert Path(demo.path).exists()


def test_no_real_model_reads_dash_in_every_headline_of_a_method_it_has_data_for(demo: Store) -> None:
    """Issue 55: a real model with data for a method has at least one defined headline there (the Overview's row is
    never "—" in every column of that method), and each undefined one says why."""
    from analysis.chance import DEFAULT_SIMS
    from analysis.demo import DASHBOARD_BOOT
    from analysis.model_order import is_embedded, store_specs

    specs = store_specs(demo)
    empty = []
    for method in all_methods():
        report = method.cached_report(demo, n_boot=DASHBOARD_BOOT, chance=DEFAULT_SIMS)
        for model, doc in report["models"].items():
            if is_embedded(specs.get(model)):
                continue
            entries = [doc["headlines"][h.key] for h in method.headlines]
            if all(e.get("value") is None for e in entries):
                empty.append(f"{method.name} · {model}: " + "; ".join(str(e.get("reason")) for e in entries))
            assert all(e.get("value") is not None or e.get("reason") for e in entries), (method.name, model)
    assert not empty, "real models with every headline undefined:\n" + "\n".join(empty)

