"""AppTest: the Cross-method page reads the report: headline cards, who was scored, the MTMM heatmap, a cell's scatter,
the pairs with their sources, the per-model summary and a persona's replies in every method; a shuffled campaign is
flagged as chance; Compare shows both models' summaries."""

from __future__ import annotations

import json

import pytest
import streamlit as st

from analysis.methods.cross_method.report import metrics_json
from analysis.runs.store import Store
from app import data
from tests.app.conftest import _bind, open_app
from tests.methods.cross_method.synthetic import build_campaign


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("xm-app") / "campaigns.db"
    with Store(path) as store:
        build_campaign(store, "plays", "16", seed=1, run_id="xm-plays")
        build_campaign(store, "shuffled", "16", seed=2, run_id="xm-shuffled", shuffle=True)
    return path


@pytest.fixture
def app(store_path, cache_dir, tmp_path, monkeypatch):
    _bind(monkeypatch, store_path, tmp_path / "user.db", cache_dir)
    monkeypatch.setattr(data, "CHANCE_SIMS", 100)  # enough draws for a verdict
    st.cache_data.clear()  # bands of 20 draws from another test are not these
    return open_app


def _charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_the_page_shows_the_report(app, store_path) -> None:
    at = app("cross-method", model="plays")
    assert not at.exception
    with Store(store_path, read_only=True) as store:
        doc = metrics_json(store, n_boot=200, chance=20)["models"]["plays"]
    cards = {m.label: m.value for m in at.metric}
    assert cards["Cross-method: convergent r ↑ · plays"] == f"{doc['headlines']['cross_convergent']['value']:.3f}"
    assert cards["Cross-method: pattern r ↑ · plays"] == f"{doc['headlines']['cross_pattern']['value']:.3f}"
    assert cards["Personas"] == "16" and cards["Methods"] == "3"
    assert not at.warning  # the planted pattern is beyond chance
    scored = at.dataframe[0].value
    assert list(scored["scored"]) == ["16 of 16"] * 3 and list(scored["not scored"]) == ["—"] * 3
    charts = _charts(at)
    heat = next(c for c in charts if c["data"][0]["marker"].get("symbol") == "square")
    assert "Values: Benevolence" in heat["data"][0]["x"] and "Inventory: Agreeableness" in heat["data"][0]["y"]
    # the scatter of the first convergent pair (the default cell): 16 personas
    scatter = next(c for c in charts if c["data"][0]["type"] == "scatter" and c["data"][0].get("mode") == "markers+text")
    assert scatter["layout"]["xaxis"]["title"]["text"] == "Values: Benevolence" and len(scatter["data"][0]["text"]) == 16
    pairs = [d.value for d in at.dataframe if "pair" in d.value.columns]
    convergent = pairs[0].set_index("pair")
    expected = next(p for p in doc["pairs"] if p["label"] == "Benevolence – Agreeableness")
    assert convergent.loc["Benevolence – Agreeableness", "r"] == pytest.approx(expected["r"])
    # the pair's own p, its Holm-adjusted p over the 15 pairs; 100 shuffles cannot give Holm a verdict (needs 300)
    cell = convergent.loc["Benevolence – Agreeableness", "vs chance (Holm)"]
    assert ", Holm " in cell and cell.endswith(" of 15 · not enough draws"), cell
    # the heatmap: a cell's verdict is read against the family-wise band, whose size and threshold a caption gives
    assert any("family-wise: |r| >" in t for t in heat["data"][0]["text"])
    fam = next(c.value for c in at.caption if c.value.startswith("Family-wise: "))
    assert f"{doc['families']['cells']['size']} cells across methods" in fam
    assert set(convergent["source"]) <= {"roccas2002", "schwartz1992", "evans2008"}
    summary = next(d.value for d in at.dataframe if "pattern r" in d.value.columns)
    assert list(summary["model"]) == ["plays", "shuffled"]
    # the first persona's replies in every method of its campaign: 40 values items, 62 inventory items (the first 60
    # and A1 Trust's two later ones: the trust pair's facet is asked whole), 9 trust rounds
    assert any(m.value.startswith("**x01 · Amara Okafor · 111 samples**") for m in at.markdown)


def test_a_shuffled_campaign_says_the_pattern_is_noise(app) -> None:
    at = app("cross-method", model="shuffled")
    assert not at.exception
    assert any("At chance the pattern is noise" in w.value for w in at.warning)


def test_an_empty_store_says_how_to_run_one(tmp_path, cache_dir, monkeypatch) -> None:
    empty = tmp_path / "empty.db"
    Store(empty).close()
    _bind(monkeypatch, empty, tmp_path / "user.db", cache_dir)
    at = open_app("cross-method")
    assert not at.exception
    assert any("No cross-method campaign" in i.value for i in at.info)


def test_compare_shows_both_summaries(app) -> None:
    at = app("compare", a="plays", b="shuffled")
    assert not at.exception
    assert any(h.value == "Cross-method validity" for h in at.subheader)
    table = next(d.value for d in at.dataframe if "summary" in d.value.columns)
    assert list(table["summary"]) == ["convergent mean r", "pattern r"] and {"plays", "shuffled"} <= set(table.columns)


def test_the_published_llm_figures_sit_beside_the_pairs(app, store_path) -> None:
    from analysis.methods.inventory.published import domains

    at = app("cross-method", model="plays")
    assert not at.exception
    with Store(store_path, read_only=True) as store:
        doc = metrics_json(store, n_boot=200, chance=20)["models"]["plays"]
    label = "published (Serapio-García et al. 2025, LLMs: IPIP-NEO-300 × PVQ-RR)"
    assert any(label in m.value for m in at.markdown)
    assert any("IPIP-NEO-300 Conscientiousness × PVQ-RR Achievement" in c.value and "c3fea44" in c.value
               for c in at.caption)
    chart = next(c for c in _charts(at) if c["data"][0].get("name") == label)
    assert "GPT-4o" in chart["data"][0]["text"] and len(chart["data"][0]["y"]) == 3 * len(domains()["models"])
    assert any(t["name"] == "plays (this store)" for t in chart["data"][1:])
    table = next(d.value for d in at.dataframe if "model id" in d.value.columns).set_index("model id")
    achievement = next(p for p in doc["pairs"] if (p["a"], p["b"]) == ("values:Achievement", "inventory:C"))
    assert table.loc["gpt-4o", achievement["label"]] == domains()["external"]["CON"]["models"]["gpt-4o"]["ACHV"]
    assert len(table) == len(domains()["models"])
    convergent = next(d.value for d in at.dataframe if "pair" in d.value.columns)
    assert "human r" not in convergent.columns  # no published human figure is bundled: no column speaks of one
