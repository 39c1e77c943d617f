"""The one-persona view (issue 60 item 5, Inspect's one sample across runs): one persona (or item, or context) laid
out per model and run, its answers, the scores each method's report gives it and the replies behind them; opened
from a URL and from a sample."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis import methods
from analysis.persona_scores import read_persona_scores
from analysis.runs.store import Store
from analysis.samples import INVALID, across_runs, store_samples


@pytest.fixture(scope="module")
def fixture_samples(fixture_store):
    with Store(fixture_store, read_only=True) as store:
        return store_samples(store)


def test_across_runs_lays_one_persona_out_per_model_and_run():
    frame = pd.DataFrame({
        "method": ["m"] * 5, "kind": ["answer"] * 5, "run_id": ["r1", "r1", "r2", "r3", "r3"],
        "model": ["A", "A", "B", "A", "A"], "persona_id": ["1", "1", "1", "1", "2"],
        "persona": ["Ann", "Ann", "Ann", "Ann", "Bob"], "item": ["q1", "q2", "q1", "q2", "q1"],
        "context": ["c"] * 5, "parsed": ["3", None, "5", "4", "1"], "valid": [True, False, True, True, True]})
    frame["prompt"] = frame["kind"] + "|" + frame["persona_id"] + "|" + frame["item"] + "|" + frame["context"]
    table = across_runs(frame, "persona", "Ann")
    assert list(table.columns) == ["method", "kind", "item", "context", "A · r1", "A · r3", "B · r2"]
    cells = table.set_index("item")
    assert cells.loc["q1", "A · r1"] == "3" and cells.loc["q2", "A · r1"] == INVALID
    assert cells.loc["q2", "A · r3"] == "4" and pd.isna(cells.loc["q1", "A · r3"]) and cells.loc["q1", "B · r2"] == "5"
    assert "Bob" not in table.to_string()
    by_item = across_runs(frame, "item", "q1")
    assert set(by_item["persona"]) == {"Ann", "Bob"}
    with pytest.raises(ValueError):
        across_runs(frame, "model", "A")


def _scored_persona(fixture_store, fixture_samples) -> tuple[str, str, str]:
    """A persona a method's report scores: (persona label, method, persona id)."""
    with Store(fixture_store, read_only=True) as store:
        for method in methods.all_methods():
            mine = fixture_samples[fixture_samples["method"] == method.name]
            if mine.empty:
                continue
            doc = method.cached_report(store)
            for model_doc in doc["models"].values():
                frame, constructs = read_persona_scores(model_doc.get("persona_scores"))
                hits = mine[mine["persona_id"].isin(frame["persona_id"].astype(str))]
                if constructs and len(hits):
                    return str(hits["persona"].iloc[0]), method.name, str(hits["persona_id"].iloc[0])
    pytest.skip("no persona scores in the fixture")


def test_the_view_opens_from_a_url_with_answers_scores_and_replies(app_on_fixture, fixture_store, fixture_samples):
    persona, method, _ = _scored_persona(fixture_store, fixture_samples)
    at = app_on_fixture("samples", s_view="one", s_one_by="persona", s_one=persona, s_method=method)
    assert not at.exception
    assert at.selectbox(key="s_one").value == persona
    mine = fixture_samples[(fixture_samples["persona"] == persona) & (fixture_samples["method"] == method)]
    expected = across_runs(mine, "persona", persona)
    answers = at.dataframe[0].value
    assert answers.shape == expected.shape and list(answers.columns) == list(expected.columns)
    assert any(m.value.startswith("**Its scores**") for m in at.markdown)
    replies = at.dataframe[-1].value
    assert len(replies) == min(len(mine), 200) and set(replies["model"]) == set(mine["model"])


def test_the_scores_are_the_reports(app_on_fixture, fixture_store, fixture_samples):
    """Each score shown is the one the method's report holds for that persona (read, never computed)."""
    persona, method, pid = _scored_persona(fixture_store, fixture_samples)
    at = app_on_fixture("samples", s_view="one", s_one_by="persona", s_one=persona, s_method=method)
    scores = next(f.value for f in at.dataframe if "construct" in f.value.columns)
    with Store(fixture_store, read_only=True) as store:
        doc = methods.get(method).cached_report(store)
    checked = 0
    for model, model_doc in doc["models"].items():
        frame, constructs = read_persona_scores(model_doc.get("persona_scores"))
        row = frame[frame["persona_id"].astype(str) == pid]
        for c, label in constructs.items():
            if len(row) and model in scores.columns:
                shown = scores.loc[scores["construct"] == label, model].iloc[0]
                assert (pd.isna(shown) and pd.isna(row[c].iloc[0])) or shown == pytest.approx(row[c].iloc[0], abs=1e-12)
                checked += 1
    assert checked


def test_a_sample_links_to_its_persona_across_models(app_on_fixture, fixture_samples):
    sample = fixture_samples[fixture_samples["persona"].notna()].iloc[0]
    at = app_on_fixture("samples", s_open=sample["sample_id"])
    assert not at.exception
    links = [p for p in at.get("page_link") if "across models" in p.proto.label]
    assert len(links) == 1 and "samples" in links[0].proto.page


def test_a_chart_points_link_resolves_its_persona_id(app_on_fixture, fixture_samples):
    """A chart point's panel links by (method, persona id) (``one_persona_link``): the view opens on that persona's
    label, as a clicked point of the inventory's profiles would."""
    from app.samples import one_persona_link

    mine = fixture_samples[(fixture_samples["method"] == "inventory") & fixture_samples["persona_id"].notna()]
    if mine.empty:
        pytest.skip("no inventory samples in the fixture")
    pid = str(mine["persona_id"].iloc[-1])
    label = mine.loc[mine["persona_id"] == pid, "persona"].iloc[0]
    at = app_on_fixture("samples", **one_persona_link("inventory", pid))
    assert not at.exception
    assert at.selectbox(key="s_one").value == label
    assert not [c.value for c in at.caption if "Not here" in c.value]
