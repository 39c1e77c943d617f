"""AppTest: the Overview says what is loaded, who produced it (a 135M model), and each method's headline per model."""

from __future__ import annotations

from app import data

import math

import pytest

from analysis.methods import all_methods
from analysis.methods.mbti.report import metrics_json
from analysis.methods.personagym.cli import metrics_json as personagym_metrics
from analysis.runs.store import Store
from analysis.methods.trust.cli import metrics_json as trust_metrics
from analysis.methods.values.metrics import values_leaderboard, values_metrics
from tests.app.fixture_store import MODELS


def test_overview_states_the_tiny_model_and_lists_models(app_on_fixture, fixture_store):
    """The info box names the 135M embedded model and near-chance answers; the models table shows both configs."""
    with Store(fixture_store, read_only=True) as store:
        n_runs = len(store.runs())
    at = app_on_fixture()
    assert not at.exception
    assert at.title[0].value == "RoleScope"
    info = at.info[0].value
    assert "135M" in info and "near chance" in info and "SmolLM2-135M-Instruct" in info
    models = at.dataframe[0].value.set_index("model")
    assert list(models.index) == sorted(MODELS)
    assert set(models["backend"]) == {"embedded"}
    assert models.loc["smollm2-t07", "generation params"] == '{"temperature": 0.7}'
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Runs"] == str(n_runs) and metrics["Models"] == "2" and metrics["Methods"] == str(len(all_methods()))
    assert n_runs >= 12


def first_screen(node) -> list[str]:
    """The text of every element of ``node`` outside its expanders (what a visitor reads without opening one)."""
    from streamlit.testing.v1.element_tree import Block, Expander

    if isinstance(node, Expander):
        return []
    if isinstance(node, Block):
        return [text for child in node.children.values() for text in first_screen(child)]
    value = getattr(node, "value", None)
    return [value] if isinstance(value, str) else []


def test_first_screen_speaks_to_a_researcher(app_on_fixture):
    """Outside its expanders the Overview names every registered method with its view's summary, and no bench, tool
    or reader name; the reader figures (``bench/bench_parsers.py``) are behind "How the numbers are made"."""
    from app.methods import view

    at = app_on_fixture()
    assert not at.exception
    shown = "\n".join(first_screen(at.main))
    for method in all_methods():
        assert method.title in shown and view(method.name).summary in shown, method.name
    assert "bench/" not in shown and "bench_parsers" not in shown
    for tool in ("pandas", "semopy", "pingouin", "scikit", "numpy", "values-option", "trust-amount"):
        assert tool not in shown, tool
    behind = next(e for e in at.expander if e.label == "How the numbers are made")
    assert "bench/bench_parsers.py" in " ".join(c.value for c in behind.caption)


LABELS = {h.key: h.label for m in all_methods() for h in m.headlines}


def test_cross_method_table_matches_the_method_documents(app_on_fixture, fixture_store):
    """Per model, the headline table's values Cardinal / rank-order and MBTI consistency equal the analysis documents."""
    at = app_on_fixture()
    table = at.dataframe[1].value.set_index("model").rename(columns={v: k for k, v in LABELS.items()})
    with Store(fixture_store, read_only=True) as store:
        doc = values_metrics(store, n_boot=50)
        board = {r["model"]: r for r in values_leaderboard(doc)["rows"]}
        mbti = metrics_json(store)
        trust = trust_metrics(store, n_boot=0)
        gym = personagym_metrics(store)
    for model in MODELS:
        assert table.loc[model, "values_cardinal"] == pytest.approx(board[model]["cardinal"], abs=1e-9)
        assert table.loc[model, "values_rank_order"] == pytest.approx(doc["models"][model]["rank_order"], abs=1e-9)
        subjects = mbti["models"][model]["subjects"].values()
        expected = sum(s["consistency"] for s in subjects) / len(subjects)
        assert table.loc[model, "mbti_consistency"] == pytest.approx(expected, abs=1e-6)
        ctx_tr = trust["models"][model]["population"]["Ctx+Tr"]
        assert table.loc[model, "trust_spearman"] == pytest.approx(ctx_tr["median_spearman"])
        assert table.loc[model, "personagym_score"] == pytest.approx(gym["models"][model]["persona_score"])
    assert not any(math.isnan(v) for v in table["values_cardinal"])


def test_cross_method_table_leaves_out_methods_without_data(app_on_fixture, tmp_path, monkeypatch):
    """A store with values and MBTI only shows no trust or PersonaGym column."""
    import app.stores as stores
    from tests.app.fixture_store import build_fixture_store

    monkeypatch.setattr(stores, "DEMO_STORE", build_fixture_store(tmp_path / "two.db", methods=("values", "mbti")))
    at = app_on_fixture()
    columns = {k for k, label in LABELS.items() if label in set(at.dataframe[1].value.columns)}
    assert {"values_cardinal", "mbti_consistency"} <= columns and not {"trust_spearman", "personagym_score"} & columns


def test_links_into_every_page(app_on_fixture):
    """The Explore grid links to every other page of the navigation (every method's pages included, from the
    registry)."""
    from app.nav import pages

    at = app_on_fixture()
    links = {link.proto.page for link in at.get("page_link")}
    assert links == {p.url for p in pages()} - {"overview"}
    assert {"leaderboard", "structure", "stability", "mbti", "trust", "personagym", "compare", "run", "samples",
            "data"} <= links


def test_invalid_rates_with_wilson_intervals(app_on_fixture, fixture_store):
    """The invalid-answer table counts each method's invalid answers per model, with a 95 % interval around the share."""
    at = app_on_fixture()
    against = at.dataframe[2].value.set_index("model")
    # the stable one: p < 0.05; a verdict needs 100 draws (the app tests simulate 20 when tests/app is collected)
    stable = against.loc["smollm2-greedy", "Values: rank-order stability ↑"]
    verdict = "beyond chance" if data.CHANCE_SIMS >= 100 else "not enough draws for a verdict"
    assert float(stable.split("p = ")[1].split(" ")[0]) < 0.05 and stable.endswith(verdict)
    assert against.loc["smollm2-t07", "MBTI: consistency ↑"].startswith("p = ")
    rates = at.dataframe[3].value
    with Store(fixture_store, read_only=True) as store:
        doc = values_metrics(store, n_boot=0)
    for model in MODELS:
        row = rates[(rates["model"] == model) & (rates["method"] == "values")].iloc[0]
        assert (row["count"], row["n"]) == (doc["models"][model]["invalid"], doc["models"][model]["n_answers"])
        share = 100 * row["count"] / row["n"]
        assert row["share"].startswith(f"{share:.1f} [") and row["share"].endswith("] %")
    assert {"values", "mbti", "trust", "personagym"} <= set(rates["method"])
    assert set(rates.loc[rates["method"] == "personagym", "kind"]) == {"invalid grades", "refusals"}


def test_real_models_come_first_and_the_embedded_model_is_a_pipeline_check(mixed_store, cache_dir, tmp_path, monkeypatch):
    """A store holding published answers of a real model (ChatGPT-MBTI's GPT-4, imported numbers only) beside the
    embedded model's runs: the real model is listed first, with its source; the embedded ones last, as a check."""
    from tests.app.conftest import _bind, open_app

    _bind(monkeypatch, mixed_store, tmp_path / "user.db", cache_dir)
    at = open_app()
    assert not at.exception
    assert at.info[0].value.startswith("**Real models first**: GPT4")
    models = at.dataframe[0].value
    assert list(models["model"]) == ["GPT4", *sorted(MODELS)]
    assert "published answers (Kali-Hac/ChatGPT-MBTI)" in models["note"].iloc[0]
    assert all("pipeline check" in n for n in models["note"].iloc[1:])
    headlines = at.dataframe[1].value
    assert headlines["model"].iloc[0] == "GPT4"


def test_the_overview_lists_the_runs_asked_with_an_older_prompt(fixture_store, cache_dir, tmp_path, monkeypatch):
    """A store whose build recorded stale runs (``analysis.demo.record_stale_runs``) shows each with its reason."""
    import json
    import shutil

    from analysis.demo_staleness import STALE_KEY
    from tests.app.conftest import _bind, open_app

    path = tmp_path / "stale.db"
    shutil.copy(fixture_store, path)
    with Store(path) as store:
        store.set_meta(STALE_KEY, json.dumps({"demo-values-x": "asked with an older prompt: personas[].description"}))
    _bind(monkeypatch, path, tmp_path / "user.db", cache_dir)
    at = open_app()
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "Asked with an older prompt" in warning and "demo-values-x" in warning and "personas[].description" in warning


def test_the_answers_say_how_the_samples_behind_them_differ(fixture_store, cache_dir, tmp_path, monkeypatch):
    """Beside its count of answers the Overview says why the Samples page counts more replies: here 3 trust rounds
    that also hold a forecast (two replies on one answer row), and 2 PersonaGym environment picks and 1 set of rubric
    examples (stages that give no answer): 6 more samples than answers, each number said."""
    import shutil
    import sqlite3

    from analysis.samples import store_samples
    from app.methods import views
    from tests.app.conftest import _bind, open_app

    path = tmp_path / "differ.db"
    shutil.copy(fixture_store, path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE trust_rounds SET forecast = 3, forecast_valid = 1, forecast_raw = 'I expect to send $3' "
                     "WHERE rowid IN (SELECT rowid FROM trust_rounds ORDER BY rowid LIMIT 3)")
        run_id, model = conn.execute("SELECT run_id, model FROM runs WHERE method = 'personagym' LIMIT 1").fetchone()
        conn.executemany("INSERT INTO personagym_environments (run_id, model, persona_id, persona, attempt, selected, "
                         "status, raw) VALUES (?, ?, ?, 'a persona', 1, 'a park', 'ok', 'A park')",
                         [(run_id, model, "p-a"), (run_id, model, "p-b")])
        conn.execute("INSERT INTO personagym_examples (run_id, model, persona_id, persona, task, q_index, attempt, "
                     "n_examples, status, raw) VALUES (?, ?, 'p-a', 'a persona', 'Expected Action', 0, 1, 5, 'ok', '…')",
                     (run_id, model))
        answers = sum(conn.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0]
                      for view in views() for name in view.samples)
    _bind(monkeypatch, path, tmp_path / "user.db", cache_dir)
    at = open_app()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["Answers"] == f"{answers:,}"
    [said] = [c.value for c in at.caption if "samples (replies" in c.value]
    assert said == (f"{answers + 6:,} samples (replies, as the Samples page counts them) behind {answers:,} answers: "
                    "6 more — 3 Trust round forecast, each stored on an answer row beside another reply (one answer, "
                    "two replies); 2 PersonaGym environments and 1 PersonaGym rubric examples, replies of stages that "
                    "give no answer.")
    with Store(path, read_only=True) as store:
        assert len(store_samples(store)) == answers + 6  # what the Samples page counts
