"""AppTest: the Trust page of a model whose results are imported published answers (camel-ai/agent-trust, read from
``../shared/anchors/agent_trust``; skipped when absent) shows the amounts sent per condition, RoleScope's reading
next to the source's, and what the source supports, all from the report document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from analysis.methods.trust.cli import metrics_json
from analysis.methods.trust.importer import import_paths
from analysis.runs.store import Store
from tests.app.conftest import APP, _bind, page_path
from tests.methods.trust.test_importer import RESULTS, source_file


@pytest.fixture
def store(tmp_path: Path) -> Path:
    if not RESULTS.is_dir():
        pytest.skip("../shared/anchors/agent_trust (camel-ai/agent-trust @ a3f14f0) not present")
    path = tmp_path / "imported-trust.db"
    with Store(path) as s:
        import_paths(s, [source_file(RESULTS, "res", "vicuna-7b-v1.3")])
        import_paths(s, [source_file(RESULTS, "COT_res", "vicuna-7b-v1.3")], text=False)
    return path


@pytest.fixture
def at(store: Path, tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    _bind(monkeypatch, store, tmp_path / "user.db", cache_dir)
    at = AppTest.from_file(APP, default_timeout=300).run()
    return at.switch_page(page_path("trust")).run()


def test_imported_answers_section(at: AppTest, store: Path) -> None:
    assert not at.exception
    with Store(store, read_only=True) as s:
        doc = metrics_json(s, n_boot=0)["models"]["vicuna-7b-v1.3"]
    [used] = [e for e in doc["imported"].values() if e["used"]]
    assert used["condition"] == "COT"  # the latest import
    infos = [i.value for i in at.info]
    assert any(i.startswith("What this source supports: amounts sent per condition") and "no beliefs elicited" in i
               and "not forecasts" in i for i in infos)
    assert any(i.startswith("Imported published answers: the source elicited no beliefs") for i in infos)
    metrics = {m.label: m.value for m in at.metric}
    mean, sd = used["amount_sent"]["mean"]["value"], used["amount_sent"]["sd"]["value"]
    assert metrics["Amount sent, the source's extraction (mean ± SD)"].startswith(f"${mean:.2f} ± {sd:.2f}")
    tables = [t.value for t in at.dataframe]
    per_condition = next(t for t in tables if "condition" in t.columns and "source: mean ± SD" in t.columns)
    assert sorted(per_condition["condition"]) == ["COT", "base"]
    agreement = next(t for t in tables if "class" in t.columns)
    assert dict(zip(agreement["class"], agreement["personas"])) == {
        d["label"]: d["n"] for d in used["reader_agreement"].values()}
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    dist = next(s for s in specs if s["data"] and s["data"][0].get("name") == "the source's amounts")
    assert sum(dist["data"][0]["y"]) == used["amount_sent"]["valid"]
    assert sum(dist["data"][1]["y"]) == used["amount_sent_reader"]["valid"]


def test_picking_the_base_condition(at: AppTest, store: Path) -> None:
    at.selectbox(key="imported_condition").select_index(
        [o for o in at.selectbox(key="imported_condition").options].index("base")).run()
    assert not at.exception
    with Store(store, read_only=True) as s:
        doc = metrics_json(s, n_boot=0)["models"]["vicuna-7b-v1.3"]
    [base] = [e for e in doc["imported"].values() if e["condition"] == "base"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Amount sent, the source's extraction (mean ± SD)"].startswith(f"${base['amount_sent']['mean']['value']:.2f}")


def test_versus_human_and_forecast_note(at: AppTest, store: Path) -> None:
    """The page says the model's difference from Berg et al.'s humans as the report holds it (vicuna-7b-v1.3's base
    condition), and its forecast view says no public source holds a real model's forecasts, which configuration has
    them and the command that makes them."""
    from analysis.methods.trust.report_types import FORECASTS_IMPORTED, vs_human_text

    with Store(store, read_only=True) as s:
        entry = metrics_json(s, n_boot=0)["models"]["vicuna-7b-v1.3"]["headlines"]["trust_vs_human"]
    assert entry["value"] is not None
    shown = [m.value for m in at.markdown if "Amount sent against humans" in m.value]
    assert shown and f"{entry['value']:+.2f}" in shown[0]
    assert f"{entry['value']:+.2f}" in vs_human_text(entry)
    infos = [i.value for i in at.info]
    assert FORECASTS_IMPORTED in infos
    assert "smollm2-json" in FORECASTS_IMPORTED and "python -m analysis run trust" in FORECASTS_IMPORTED
    assert "--level individual" in FORECASTS_IMPORTED


def test_the_bias_of_unread_replies_is_shown(at: AppTest, store: Path) -> None:
    """vicuna-7b's base condition (issue 56): the authors' amounts give $7.40 over 48 of 53 personas, RoleScope's
    reading $8.21 over 38 (72 % read), so the headline carries both, and RoleScope's its bound: every unread reply at
    $0 gives (38 × 8.21) / 53 = $5.89, at $10 (312 + 150) / 53 = $8.72."""
    with Store(store, read_only=True) as s:
        doc = metrics_json(s, n_boot=0)["models"]["vicuna-7b-v1.3"]
    base = next(e for e in doc["imported"].values() if e["condition"] == "base")
    source, mine = base["amount_sent"], base["amount_sent_reader"]
    assert (source["valid"], source["n"], round(source["mean"]["value"], 4)) == (48, 53, 7.3979)
    assert "bound" not in source["mean"]["coverage"]  # 91 % read: no bound
    assert (mine["valid"], mine["n"], round(mine["mean"]["value"], 4), mine["read_share"]) == (38, 53, 8.2105, 0.717)
    total = mine["mean"]["value"] * 38
    assert mine["mean"]["coverage"]["bound"]["lo"] == pytest.approx(total / 53, abs=1e-12)
    assert mine["mean"]["coverage"]["bound"]["hi"] == pytest.approx((total + 15 * 10) / 53, abs=1e-12)
    vs = doc["headlines"]["trust_vs_human"]
    assert vs["extraction"] == "the source's" and vs["coverage"]["n"] == 48
    human = vs["human_mean"]
    reader = vs["by_rolescope_reading"]
    assert reader["value"] == pytest.approx(mine["mean"]["value"] - human, abs=1e-6)
    assert reader["coverage"]["bound"]["lo"] == pytest.approx(total / 53 - human, abs=1e-6)
    texts = [m.value for m in at.markdown]
    assert any(t.startswith("By RoleScope's reading of the same replies: ") and "38 of 53 personas" in t
               and "72% read" in t for t in texts)
