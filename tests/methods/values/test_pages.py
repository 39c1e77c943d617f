"""AppTest: values leaderboard, value structure and stability pages on the fixture store (numbers and URL state)."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from analysis.runs.store import Store
from analysis.methods.values import leaderboard as lb
from analysis.methods.values.metrics import values_leaderboard, values_metrics
from analysis.methods.values.report_types import fit_index_text

INDICES = ("cfi", "tli", "rmsea", "srmr")


@pytest.fixture(scope="module")
def doc(fixture_store):
    with Store(fixture_store, read_only=True) as store:
        metrics = values_metrics(store, n_boot=200)
    return metrics, values_leaderboard(metrics)


def test_leaderboard_ranks_by_cardinal_then_ordinal(app_on_fixture, doc):
    """Rows follow the chosen score; the table's Cardinal / Ordinal / rank-order equal the leaderboard document."""
    at = app_on_fixture("leaderboard")
    assert not at.exception
    assert at.segmented_control(key="score").value == "cardinal"
    table = at.dataframe[0].value
    rows = {r["model"]: r for r in doc[1]["rows"]}
    assert list(table["model"]) == [r["model"] for r in sorted(rows.values(), key=lambda r: -r["cardinal"])]
    for row in table.to_dict("records"):
        assert row["cardinal"] == pytest.approx(rows[row["model"]]["cardinal"], abs=1e-9)
        assert row["ordinal"] == pytest.approx(rows[row["model"]]["ordinal"], abs=1e-9)
        assert row["rank_order"] == pytest.approx(doc[0]["models"][row["model"]]["rank_order"], abs=1e-9)
        assert row["rank_order_ci"].startswith("[") and row["rank"] in ("1", "2")
    at.segmented_control(key="score").set_value("ordinal").run()
    assert at.query_params["score"] == "ordinal"
    assert list(at.dataframe[0].value["ordinal"]) == sorted(at.dataframe[0].value["ordinal"], reverse=True)
    labels = [m.label for m in at.metric]
    assert "Kendall's W" in labels and "Diversity" in labels and "Ordinal MRC" in labels


def test_leaderboard_view_restores_from_url(app_on_fixture):
    """?score=ordinal opens the leaderboard ranked by the ordinal score."""
    at = app_on_fixture("leaderboard", score="ordinal")
    assert at.segmented_control(key="score").value == "ordinal"


def test_structure_page_shows_stress_cfa_and_separability(app_on_fixture, doc):
    """Stress-1 and both separability numbers equal the metrics document for the model and context in the URL."""
    at = app_on_fixture("structure", model="smollm2-t07", context="topics_a")
    assert not at.exception
    assert at.selectbox(key="model").value == "smollm2-t07" and at.selectbox(key="context").value == "topics_a"
    ctx = doc[0]["models"]["smollm2-t07"]["contexts"]["topics_a"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Stress-1 ↓"] == f"{ctx['stress']:.3f}"
    assert metrics["Separability — cross-validated ↑"] == f"{ctx['separability']:.3f}"
    assert metrics["Separability — training ↑"] == f"{ctx['separability_train']:.3f}"
    assert metrics["Mean α ↑"] == (f"{ctx['alpha']:.3f}" if ctx["alpha"] is not None else "—")
    assert float(metrics["Random-start Stress ↓"]) > 0
    # the verdict the user reads first, with the chance numbers, and a band under each headline metric
    verdict = (at.error or at.success)[0].value
    assert "chance" in verdict and f"Stress {ctx['stress']:.3f}" in verdict
    assert sum("Chance (95 % band)" in c.value for c in at.caption) >= 3
    cfa = at.dataframe[0].value.set_index("group")
    assert list(cfa.index) == ["Conservation", "Openness to change", "Self-transcendence", "Self-enhancement"]
    for group, row in cfa.iterrows():
        fit = ctx["cfa"][group]
        if fit["converged"]:  # CFI and TLI as text: a TLI above 1 reads "≥ 1 (over-fitted)", never 1.500
            assert row["cfi"] == fit_index_text(fit["cfi"]) and row["tli"] == fit_index_text(fit["tli"])
        else:  # undefined, drawn "—" beside its reason (the fixture's 12 personas: not fitted, fewer than 30)
            assert row["cfi"] == row["tli"] == "—" and all(math.isnan(row[k]) for k in ("chi2", "rmsea", "srmr"))
            assert row["reason"] == fit["reason"] != ""
    assert len(at.get("plotly_chart")) == 1
    reliability = at.dataframe[1].value
    assert len(reliability) == 10 and {"α ↑", "ω ↑", "why undefined"} <= set(reliability.columns)
    at.toggle(key="loadings").set_value(True).run()
    if any(f["converged"] for f in ctx["cfa"].values()):
        loadings = at.dataframe[2].value
        assert {"group", "latent", "item", "std_loading", "text"} <= set(loadings.columns)
        assert loadings["text"].str.len().min() > 20  # item wording of the bundled instrument
    else:  # no model fitted on the fixture's 12 personas: no loadings, said
        assert any("No loadings" in c.value for c in at.caption)


def test_circumplex_hover_has_item_text_and_equal_axes(app_on_fixture):
    """The circumplex draws one trace per value with the item wording in its hover text, on equal axes."""
    at = app_on_fixture("structure", model="smollm2-greedy", context="no_conv")
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    values = [t for t in spec["data"] if t.get("name") and t["name"] != "value centroid"]
    assert len(values) == 10
    assert all("<b>Item" in h and "<br>" in h for t in values for h in t["hovertext"])
    assert spec["layout"]["yaxis"]["scaleanchor"] == "x"


def test_stability_page_matches_document(app_on_fixture, doc):
    """The headline metrics show rank-order and ipsative stability with their CIs; three default personas are drawn."""
    at = app_on_fixture("stability", model="smollm2-greedy")
    assert not at.exception
    m = doc[0]["models"]["smollm2-greedy"]
    metrics = {x.label: x.value for x in at.metric}
    ci = m["ci"]["rank_order"]
    assert metrics["Rank-order stability ↑"] == f"{m['rank_order']:.2f} [{ci['lo']:.2f}, {ci['hi']:.2f}]"
    assert metrics["Ipsative stability ↑"].startswith(f"{m['ipsative']:.2f} [")
    assert metrics["Personas × contexts"] == "12 × 3"
    assert len(at.multiselect(key="personas").value) == 3
    assert len(at.get("plotly_chart")) == 4  # heatmap, per-value bars, profiles, ipsative bars
    assert sum("Chance (95 % band)" in c.value for c in at.caption) == 2  # under both headline metrics
    bars = json.loads(at.get("plotly_chart")[1].proto.spec)
    assert any("chance" in (a.get("text") or "") for a in bars["layout"].get("annotations", []))  # the grey band


def test_leaderboard_charts_on_demand_and_in_the_url(app_on_fixture):
    """The charts expander draws nothing while closed; ?charts=true (the expander's URL binding) opens it with both charts."""
    assert len(app_on_fixture("leaderboard").get("plotly_chart")) == 0
    at = app_on_fixture("leaderboard", charts="true")
    assert not at.exception
    charts = at.get("plotly_chart")
    assert len(charts) == 2
    ro = json.loads(charts[1].proto.spec)["data"][0]
    assert ro["error_x"]["type"] == "data" and len(ro["y"]) == 2


def test_leaderboard_shows_the_published_figures_apart(app_on_fixture):
    """The published leaderboard rows are a separate table, labelled, never in the store's ranking."""
    at = app_on_fixture("leaderboard")
    board, published = at.dataframe[0].value, at.dataframe[1].value
    assert not board["model"].str.contains("published").any()
    assert published["model"].str.endswith(" (published)").all()
    row = published.set_index("model").loc["Llama-3.3-70B-Instruct (published)"]
    assert (row["cardinal"], row["ordinal"], row["rank_order"]) == (0.783, 0.782, 0.81)


def test_a_leaderboard_campaign_model_stands_beside_the_published_figures(app_on_fixture, monkeypatch):
    """A model whose configuration is the leaderboard's protocol joins the published rows (its own Cardinal and RO,
    no Ordinal: that one is relative to the leaderboard's pool); the others are named with the reason they are not."""
    import copy

    from app.methods.values import data as values_data

    at = app_on_fixture("leaderboard")
    n_models = len(at.dataframe[0].value)
    read = values_data.values_doc

    def first_ran_the_campaign(ref):  # the report's verdict (``campaign.off_protocol``, tested on its own) per model
        doc = copy.deepcopy(read(ref))
        for i, model in enumerate(doc["models"].values()):
            model["off_protocol"] = None if i == 0 else "not run as the campaign"
        return doc

    monkeypatch.setattr(values_data, "values_doc", first_ran_the_campaign)
    at.run()
    side = at.dataframe[1].value
    board = at.dataframe[0].value.set_index("model")
    (ours,) = side.loc[side["protocol"] == "this store: leaderboard campaign", "model"]
    row = side.set_index("model").loc[ours]
    assert pd.isna(row["ordinal"]) and row["cardinal"] == pytest.approx(board.loc[ours, "cardinal"])
    left_out = next(c.value for c in at.caption if c.value.startswith("Not placed beside"))
    assert left_out.count(": not run as the campaign") == n_models - 1 and f"**{ours}**" not in left_out


def test_a_one_persona_model_is_undefined_not_ranked(app_on_fixture, fixture_store, tmp_path, monkeypatch):
    """A model run on one persona has no value structure anywhere: its Cardinal is "—" with the reason, never a
    failed-fit 0.000 ranked above the others; the real models keep their ranks."""
    import shutil

    import app.stores as stores

    store_path = tmp_path / "with-one.db"
    shutil.copy(fixture_store, store_path)
    with Store(store_path) as store:
        answers = store.table("values_answers")
        one = answers[(answers["model"] == "smollm2-greedy") & (answers["persona_id"] == answers["persona_id"].min())]
        for run_id in one["run_id"].unique():
            record = store.get_run(run_id)
            store.create_run(run_id + "-one", "values", "one-persona", record["model_spec"], record["plan"])
            store.set_run_status(run_id + "-one", "completed")
        rows = one.assign(model="one-persona", run_id=one["run_id"] + "-one").to_dict("records")
        store.upsert("values_answers", [{k: (None if v != v else v) for k, v in r.items()} for r in rows])
        board = values_leaderboard(values_metrics(store, n_boot=0))
    assert {r["model"]: r["cardinal"] for r in board["rows"]}["one-persona"] is None
    monkeypatch.setattr(stores, "DEMO_STORE", store_path)
    at = app_on_fixture("leaderboard")
    assert not at.exception
    table = at.dataframe[0].value.set_index("model")
    assert table.loc["one-persona", "rank"] == "—" and table["rank"].tolist()[-1] == "—"
    assert sorted(table.drop(index="one-persona")["rank"]) == ["1", "2"]
    assert "value structure undefined" in table.loc["one-persona", "undefined"]
    assert at.dataframe[0].proto.placeholder == "—"  # its undefined numbers are drawn as "—", not "None"


def test_a_fit_on_too_few_personas_is_null_with_its_reason_and_never_scored(doc):
    """The fixture's 12 personas are fewer than a CFA needs (``cfa.MIN_PERSONAS``, 30): no group is fitted. The report
    (JSON) holds their indices and the context's mean fit as null beside the reason ("not fitted", not "did not fit"),
    and the leaderboard does not score them as failed fits (CFI 0 / RMSEA 1): the context has no CFA column and no
    failed fit is counted. (A fit that was attempted and failed is scored: ``test_leaderboard.py``.)"""
    metrics, board = json.loads(json.dumps(doc[0], allow_nan=False)), doc[1]
    ctx = metrics["models"]["smollm2-greedy"]["contexts"]["chess"]
    assert len(ctx["cfa"]) == 4
    for group, fit in ctx["cfa"].items():
        assert not fit["converged"] and fit["n"] <= 12  # the personas with every item of the model answered
        assert fit["reason"] == f"needs ≥ 30 personas answering every item of the model, has {fit['n']}"
        assert all(fit[k] is None for k in ("chi2", *INDICES)), fit
        assert f"{group} not fitted: {fit['reason']}" in ctx["cfa_reason"]
    assert all(ctx[k] is None for k in INDICES)
    columns = lb.column_table(metrics["models"])
    assert "1-Stress:chess" in columns and not any(c.startswith(("CFI:", "1-SRMR:", "1-RMSEA:")) for c in columns)
    assert all(r["cfa_failed"] == 0 for r in board["rows"])
    assert board["failure_scoring"] == lb.FAILURE_NOTE


def test_structure_page_shows_a_fit_not_made_as_undefined_with_its_reason(app_on_fixture, doc):
    """A CFA not fitted (the fixture's 12 personas) is "—" in the table with the reason beside it, and so is the mean
    over the four models — never CFI 0 / RMSEA 1 (the leaderboard's scoring of failed fits)."""
    at = app_on_fixture("structure", model="smollm2-greedy", context="chess")
    assert not at.exception
    ctx = doc[0]["models"]["smollm2-greedy"]["contexts"]["chess"]
    table = next(d for d in at.dataframe if "group" in d.value.columns)
    assert table.proto.placeholder == "—"
    cfa = table.value.set_index("group")
    failed = [g for g, f in ctx["cfa"].items() if not f["converged"]]
    assert failed
    for group in failed:
        assert cfa.loc[group, ["rmsea", "srmr", "chi2"]].isna().all()  # drawn as the placeholder "—"
        assert cfa.loc[group, "cfi"] == cfa.loc[group, "tli"] == "—"  # CFI and TLI are text (fit_index_text)
        assert cfa.loc[group, "reason"] == ctx["cfa"][group]["reason"]
    assert not (cfa[["rmsea", "srmr"]] == 0).any().any() and not (cfa[["rmsea", "srmr"]] == 1).any().any()
    mean = next(c.value for c in at.caption if c.value.startswith("Mean over the four models — "))
    assert mean.startswith("Mean over the four models — CFI —, RMSEA —, SRMR — (undefined: ")
    assert all(f"{g} not fitted: {ctx['cfa'][g]['reason']}" in mean for g in failed)
    assert not any("counts as CFI 0" in c.value for c in at.caption)


def test_leaderboard_marks_the_failure_scored_columns(app_on_fixture, doc):
    """The leaderboard's CFI / SRMR / RMSEA columns carry the † mark and the footnote that a failed fit is scored
    CFI 0 / RMSEA 1 there as the reference's leaderboard does."""
    at = app_on_fixture("leaderboard")
    assert not at.exception
    note = next(c.value for c in at.caption if c.value.startswith("† "))
    assert doc[1]["failure_scoring"] in note and "scored CFI 0" in note
    failed = sum(r["cfa_failed"] for r in doc[1]["rows"])
    assert f"({failed} in this table)" in note
    table = at.dataframe[0].value.set_index("model")
    for row in doc[1]["rows"]:
        if row["cfi"] is None:  # no context with a CFA column (the fixture's 12 personas: none fitted)
            assert math.isnan(table.loc[row["model"], "cfi"])
        else:
            assert table.loc[row["model"], "cfi"] == pytest.approx(row["cfi"], abs=1e-9)  # the scored mean, as ranked
        assert table.loc[row["model"], "cfa_failed"] == (f"{row['cfa_failed']} of {row['cfa_fits']}" if row["cfa_fits"]
                                                         else "—")  # no fit made (too few personas): none counted
    labels = json.loads(at.dataframe[0].proto.columns)
    assert {labels[c]["label"] for c in ("cfi", "srmr", "rmsea")} == {"CFI ↑ †", "SRMR ↓ †", "RMSEA ↓ †"}
