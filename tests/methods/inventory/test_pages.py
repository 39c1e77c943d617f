"""AppTest: the Inventories page on the synthetic store reads the report: headline cards, the domain table with its
chance verdicts, the profile, shaping, position and MTMM charts, the published figures; a random model is flagged."""

from __future__ import annotations

import json

import pytest

from analysis.methods.inventory.report import metrics_json
from analysis.runs.store import Store
from tests.app.conftest import _bind, open_app
from tests.methods.inventory import synthetic


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return synthetic.build(tmp_path_factory.mktemp("inv-app") / "synthetic.db")


@pytest.fixture
def app(store_path, cache_dir, tmp_path, monkeypatch):
    _bind(monkeypatch, store_path, tmp_path / "user.db", cache_dir)
    return open_app


@pytest.fixture(scope="module")
def unshaped_path(tmp_path_factory):
    return synthetic.build(tmp_path_factory.mktemp("inv-app-unshaped") / "unshaped.db", shaped=False)


@pytest.fixture
def unshaped_app(unshaped_path, cache_dir, tmp_path, monkeypatch):
    """The store's MTMM on unshaped personas: comparable with the paper's, so drawn beside it."""
    _bind(monkeypatch, unshaped_path, tmp_path / "user.db", cache_dir)
    return open_app


def test_the_page_shows_the_report(app, store_path) -> None:
    at = app("inventory", model="plays")
    assert not at.exception
    with Store(store_path, read_only=True) as store:
        doc = metrics_json(store)["models"]["plays"]
    cards = {m.label: m.value for m in at.metric}
    assert cards["Inventory: shaping ρ ↑ · plays"] == f"{doc['headlines']['inventory_shaping']['value']:.3f}"
    assert cards["Personas · sheets"] == "50 · 100" and cards["Norms"] == "—"
    table = at.dataframe[0].value
    assert list(table["domain"]) == [f"{d} · {doc['domains'][d]['name']}" for d in "OCEAN"]
    assert table["shaping ρ"].tolist() == pytest.approx([doc["domains"][d]["shaping_rho"] for d in "OCEAN"])
    assert all(v.startswith("p = ") for v in table["ρ vs chance"])  # 20 draws in AppTests: p, no verdict
    titles = [json.loads(c.proto.spec)["layout"].get("yaxis", {}).get("title", {}).get("text") for c in at.get("plotly_chart")]
    assert "score of the shaped domain" in titles and "share of valid answers" in titles
    assert any("Convergent validity" in c.value for c in at.caption)
    assert any("Flan-PaLM 540B" in str(df.value.to_dict()) for df in at.dataframe)


def test_a_random_model_is_flagged(app, monkeypatch) -> None:
    from app import data

    import streamlit as st

    monkeypatch.setattr(data, "CHANCE_SIMS", 100)  # enough draws for a verdict
    st.cache_data.clear()  # bands of 20 draws from another test are not these
    at = app("inventory", model="random")
    assert not at.exception
    assert any("indistinguishable from chance" in e.value for e in at.error)


def test_the_page_on_an_empty_store(app_on_empty) -> None:
    at = app_on_empty("inventory")
    assert not at.exception and any("No inventory answers" in m.value for m in [*at.markdown, *at.info, *at.warning])


def test_compare_shows_both_models_domains(app) -> None:
    at = app("compare")  # the store's two models, A and B
    assert not at.exception
    assert any("Inventories: domain scores and shaping" in h.value for h in at.subheader)
    table = next(df.value for df in at.dataframe if "domain" in df.value.columns and any(c.startswith("score · ") for c in df.value.columns))
    assert len(table) == 5


def test_the_published_figures_sit_beside_the_store_s(unshaped_app) -> None:
    at = unshaped_app("inventory", model="plays")
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    beside = next(c for c in charts if "convergent validity" in str(c["layout"].get("xaxis", {}).get("title")))
    assert "Flan-PaLM 540B" in beside["data"][0]["y"]
    lines = [a["text"] for a in beside["layout"]["annotations"]]
    assert "plays (this store)" in lines and "random (this store)" in lines


def _numbers(x) -> list[float]:
    """A trace's numbers, whether plotly wrote them as a list or as base64 ``{"dtype", "bdata"}``."""
    import base64

    import numpy as np

    return np.frombuffer(base64.b64decode(x["bdata"]), dtype=x["dtype"]).tolist() if isinstance(x, dict) else list(x)


def test_the_published_per_domain_figures_are_labelled_beside_the_store_s(unshaped_app, unshaped_path) -> None:
    from analysis.methods.inventory.published import domains

    at = unshaped_app("inventory", model="plays")
    assert not at.exception
    with Store(unshaped_path, read_only=True) as store:
        per = metrics_json(store)["models"]["plays"]["mtmm"]["convergent_domains"]
    label = "published (Serapio-García et al. 2025, IPIP-NEO-300 × BFI)"
    assert any(label in m.value for m in at.markdown)
    assert any("c3fea44" in c.value and "convergent_validity.csv" in c.value for c in at.caption)
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    chart = next(c for c in charts if "convergent r per domain" in str(c["layout"].get("xaxis", {}).get("title")))
    published, *mine = chart["data"]
    assert published["name"] == label and len(published["y"]) == 5 * len(domains()["models"])
    assert "GPT-4o" in published["text"]
    store_trace = next(t for t in mine if t["name"] == "plays (this store)")
    assert dict(zip(store_trace["y"], _numbers(store_trace["x"]))) == pytest.approx(per)
    table = next(df.value for df in at.dataframe if "model id" in df.value.columns)
    gpt4o = table[table["model id"] == "gpt-4o"].iloc[0]
    assert gpt4o["model"] == "GPT-4o" and gpt4o["C"] == domains()["convergent"]["models"]["gpt-4o"]["CON"]
    assert list(table["model id"]) == list(domains()["models"])  # the source's order: not ranked
    assert any("Convergent r per domain: O " in m.value for m in at.markdown)


def test_items_against_their_key_are_named(cache_dir, tmp_path, monkeypatch) -> None:
    """A reverse item the model answered unreversed (m11, Extraversion): the domain table and a warning name it."""
    path = synthetic.build(tmp_path / "against.db", against=("m11",))
    _bind(monkeypatch, path, tmp_path / "user.db", cache_dir)
    at = open_app("inventory", model="plays")
    assert not at.exception
    assert any("against their key" in w.value and "m11" in w.value for w in at.warning)
    table = at.dataframe[0].value.set_index("domain")
    assert table.loc["E · Extraversion", "against the key"] == "m11" and table.loc["O · Openness", "against the key"] == "—"


def test_a_shaped_mtmm_is_not_set_beside_the_papers_table_1(app, store_path) -> None:
    """Issue 43 (6): the paper's convergent figures are on unshaped personas; an MTMM on shaped ones says so and is not
    drawn beside them."""
    with Store(store_path, read_only=True) as store:
        mt = metrics_json(store)["models"]["plays"]["mtmm"]
    assert mt["n_shaped"] == mt["n_personas"] == 50  # every synthetic persona has a shaping target
    at = app("inventory", model="plays")
    assert not at.exception
    assert any("50 of them shaped: not comparable with the paper's Table 1" in c.value for c in at.caption)
    assert any(c.value.startswith("Not set beside the paper: plays, random") for c in at.caption)
    assert not any("dashed lines" in c.value for c in at.caption)  # no model of this store drawn beside the paper
