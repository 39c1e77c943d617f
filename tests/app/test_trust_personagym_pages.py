"""AppTest: the trust-game page (population, conditioning, individual) and the PersonaGym page (tasks, drill-down)."""

from __future__ import annotations

import json

import pytest

from analysis.personagym import TASKS
from analysis.personagym.cli import metrics_json as personagym_metrics
from analysis.runs.store import Store
from analysis.trust.cli import metrics_json as trust_metrics
from tests.app.fixture_store import N_TRUST_PERSONAS, PG_PERSONAS


@pytest.fixture(scope="module")
def docs(fixture_store):
    with Store(fixture_store, read_only=True) as store:
        return trust_metrics(store, n_boot=200), personagym_metrics(store)


def test_trust_population_matches_document(app_on_fixture, docs):
    """Median Spearman with its CI, personas, and per-attribute Spearman / η² equal the trust metrics document."""
    at = app_on_fixture("trust", model="smollm2-greedy", strategy="Ctx+Tr")
    assert not at.exception
    pop = docs[0]["models"]["smollm2-greedy"]["population"]["Ctx+Tr"]
    metrics = {m.label: m.value for m in at.metric}
    lo, hi = pop["median_spearman_ci"]
    assert metrics["Median Spearman ↑"] == f"{pop['median_spearman']:.2f} [{lo:.2f}, {hi:.2f}]"
    assert metrics["Personas who played"] == str(N_TRUST_PERSONAS)
    captions = [c.value for c in at.caption]
    assert sum(c.startswith("Chance (95 % band)") for c in captions) == 2
    assert any(c.startswith("Split-half reliability of behaviour") for c in captions)
    assert any(c.startswith("Personas — population: ") and "RoleScope's earlier 15 attributes" in c for c in captions)
    assert any(c.startswith("Published (paper, Table 3, Ctx+Tr") and "Llama 3.1 70B Instruct: ρ 0.50" in c for c in captions)
    table = at.dataframe[0].value.set_index("attribute")
    for attribute, row in pop["attributes"].items():
        assert table.loc[attribute, "Spearman ↑"] == pytest.approx(row["spearman"])
        assert table.loc[attribute, "η² behaviour"] == pytest.approx(row["eta2_behaviour"])
        assert table.loc[attribute, "belief ranking"] == " > ".join(row["belief_ranking"])
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [t["name"] for t in spec["data"]] == ["Spearman", "η² belief (stated)", "η² behaviour (played)"]


def test_trust_conditioning_and_individual(app_on_fixture, docs):
    """The conditioning table lists none and weak; the MAE table has archetypes 1, 3, 5 with the document's MAE."""
    at = app_on_fixture("trust", model="smollm2-t07")
    doc = docs[0]["models"]["smollm2-t07"]
    frames = [d.value for d in at.dataframe]
    cond = frames[1].set_index("conditioning")
    assert list(cond.index) == ["none", "weak"]
    weak = doc["conditioning"]["weak"]["median_spearman_imposed"]
    assert cond.loc["weak", "median ρ with prompt prior"] == pytest.approx(weak)
    mae = next(f for f in frames if "archetype k" in f.columns).set_index("archetype k")
    achieved = next(f for f in frames if "achieved ρ" in f.columns)  # Table 4: each prior's achieved ρ and target
    weak_rows = achieved[achieved["conditioning"] == "weak"].set_index("attribute")
    for attribute, row in doc["conditioning"]["weak"]["attributes"].items():
        assert weak_rows.loc[attribute, "achieved ρ"] == pytest.approx(row["prior_spearman"])
    assert list(mae.index) == [1, 3, 5]
    assert mae.loc[3, "MAE ↓"] == pytest.approx(doc["individual"]["archetypes"]["3"]["mae"])
    assert mae["vs chance"].str.contains("p = ").all()
    traces = doc["individual"]["trajectories"]
    trace = next(f for f in frames if "forecast explanation" in f.columns)  # Tables 6–8: forecasts next to play
    first = traces[sorted(traces, key=int)[0]]
    expected = first[sorted(first)[0]]
    assert trace["round"].tolist() == [r["round"] for r in expected]
    assert trace["sent $"].tolist() == [r["sent"] for r in expected]


def test_personagym_tasks_and_persona_drill_down(app_on_fixture, docs):
    """Task table equals the document; a persona's questions show its answer and each evaluator's grade."""
    persona = PG_PERSONAS[1]
    at = app_on_fixture("personagym", model="smollm2-greedy", persona=persona)
    assert not at.exception
    doc = docs[1]["models"]
    table = at.dataframe[0].value.set_index("model")
    for model in doc:
        assert table.loc[model, "PersonaScore ↑"] == pytest.approx(doc[model]["persona_score"])
        assert table.loc[model, "vs chance (random grades)"].startswith("p = ")
        for task in TASKS:
            assert table.loc[model, task] == pytest.approx(doc[model]["tasks"][task])
    captions = [c.value for c in at.caption]
    assert any(c.startswith("**smollm2-greedy** — chance: random answers:") and "Judges:" in c for c in captions)
    pdoc = doc["smollm2-greedy"]["personas"][persona]
    assert {m.label: m.value for m in at.metric}["PersonaScore"] == f"{pdoc['persona_score']:.2f}"
    assert len(at.expander) == 5
    assert "I would think it over (0)." in [t.value for t in at.text]
    assert any(c.value.startswith("embedded: ") for c in at.caption)


def test_personagym_agent_that_answered_nothing_is_shown_undefined(app_on_fixture, tmp_path):
    """A run whose environment selection failed: the agent is in the task table with "—" scores and its 5 unasked
    questions, and the per-persona section says why instead of failing."""
    from analysis.llm.specs import parse_model_spec
    from analysis.personagym.tables import QUESTIONS

    with Store(tmp_path / "user.db") as store:
        store.create_run("pg-quiet", "personagym", "quiet", parse_model_spec("embedded").public_dict(), {})
        store.upsert(QUESTIONS.name, [{"run_id": "pg-quiet", "model": "quiet", "persona_id": "p1", "persona": "P one",
                                       "task": t, "q_index": 0, "status": "not_asked",
                                       "reason": "not asked: no environment selected after 4 attempts"} for t in TASKS])
        store.set_run_status("pg-quiet", "completed")
    at = app_on_fixture("personagym", store="user")
    assert not at.exception
    row = at.dataframe[0].value.set_index("model").loc["quiet"]
    assert row["PersonaScore ↑"] is None or row["PersonaScore ↑"] != row["PersonaScore ↑"]  # undefined, never 0
    assert row["not asked"] == 5
    assert any("quiet answered no question" in i.value for i in at.info)
