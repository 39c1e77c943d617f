"""The PersonaGym page: task scores, PersonaScore, drill-down, Table 1 and the judges, as the report holds them."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from analysis.methods.personagym import TASKS
from analysis.methods.personagym.cli import metrics_json as personagym_metrics
from analysis.runs.store import Store
from tests.methods.personagym.fixture import PG_PERSONAS


@pytest.fixture(scope="module")
def docs(fixture_store):
    with Store(fixture_store, read_only=True) as store:
        return None, personagym_metrics(store)


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
    assert len([e for e in at.expander if "questions · mean grade" in e.label]) == 5  # one per task
    assert "I would think it over (0)." in [t.value for t in at.text]
    assert any(c.value.startswith("embedded: ") for c in at.caption)


def test_personagym_agent_that_answered_nothing_is_shown_undefined(app_on_fixture, tmp_path):
    """A run whose environment selection failed: the agent is in the task table with "—" scores and its 5 unasked
    questions, and the per-persona section says why instead of failing."""
    from analysis.llm.specs import parse_model_spec
    from analysis.methods.personagym.tables import QUESTIONS

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


def test_personagym_table1_and_figure4(app_on_fixture, docs):
    """Table 1 shows each model's mean (SD over personas) as the document has it, then the paper's six rows; Fig. 4
    draws the document's refusals as shares of each model's answers, each bar labelled with its count."""
    from analysis.methods.personagym.report import cell

    at = app_on_fixture("personagym", model="smollm2-greedy")
    assert not at.exception
    doc = docs[1]
    table = next(d.value for d in at.dataframe if "source" in d.value.columns and "personas" in d.value.columns)
    ours = table[table["source"] == "this store"].set_index("model")
    assert ours.loc["spread (max − min)", "PersonaScore"] == f"{doc['table1']['spread']['PersonaScore']:.2f}"
    for model, row in doc["table1"]["models"].items():
        for column in (*TASKS, "PersonaScore"):
            assert ours.loc[model, column] == cell(row[column])
            assert row[column]["sd"] is not None  # three personas: every SD is defined
    paper = table[table["source"] == "paper, Table 1"].set_index("model")
    assert paper.loc["Claude 3 Haiku", "Action Justification"] == "2.47 (1.64)" and len(paper) == 7
    assert paper.loc["spread (max − min)", "Action Justification"] == "2.08"  # the paper's Sec. 4.2
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    title = "share of the model's answers that refused the persona"
    bars = next(c for c in charts if c["layout"].get("xaxis", {}).get("title", {}).get("text") == title)
    x = bars["data"][0]["x"]
    values = np.frombuffer(base64.b64decode(x["bdata"]), dtype=x["dtype"]) if isinstance(x, dict) else x
    shown = {m: (share, text) for m, share, text in zip(bars["data"][0]["y"], values, bars["data"][0]["text"])}
    expected = {m: (d["refusals"] / d["n_answers"], f"{d['refusals']} of {d['n_answers']}")
                for m, d in doc["figure4"].items() if d["n_answers"]}
    assert shown.keys() == expected.keys()
    assert all(abs(shown[m][0] - share) < 1e-12 and shown[m][1] == text for m, (share, text) in expected.items())


def test_personagym_marks_cut_answers_incomplete_examples_and_self_grading(app_on_fixture, tmp_path):
    """A self-graded run (no evaluators: the agent grades and writes its questions) is named so; an answer cut at the
    limit and a grade made with 3 of 5 score examples are marked beside the grade and counted in the task table."""
    from analysis.llm.specs import parse_model_spec
    from analysis.methods.personagym.tables import ANSWERS, GRADES, QUESTIONS

    spec = parse_model_spec("embedded").public_dict()
    plan = {"method": "personagym", "personas": [{"id": "p1", "description": "P one", "questions": None}], "evaluators": []}
    with Store(tmp_path / "user.db") as store:
        store.create_run("pg-self", "personagym", "embedded", spec, plan)
        base = {"run_id": "pg-self", "model": "embedded", "persona_id": "p1", "persona": "P one", "q_index": 0}
        store.upsert(QUESTIONS.name, [base | {"task": t, "question": f"Q {t}?", "status": "ok", "source": "run"}
                                      for t in TASKS])
        store.upsert(ANSWERS.name, [base | {"task": t, "question": f"Q {t}?", "answer": "A.", "status": "ok", "refusal": 0,
                                            "truncated": int(t == TASKS[0]), "finish_reason": "stop"} for t in TASKS])
        store.upsert(GRADES.name, [base | {"task": t, "evaluator": "embedded", "score": 4.0, "status": "ok",
                                           "n_examples": 3 if t == TASKS[0] else 5, "raw": "Therefore, the final score is 4"}
                                   for t in TASKS])
        store.set_run_status("pg-self", "completed")
    at = app_on_fixture("personagym", store="user", model="embedded", persona="P one")
    assert not at.exception
    row = at.dataframe[0].value.set_index("model").loc["embedded"]
    assert row["self-graded"] == "evaluator, question generator" and row["cut at the length limit"] == 1
    assert row["graded with incomplete examples"] == 1
    assert any("**embedded** is self-graded" in w.value for w in at.warning)
    assert any(c.value == "embedded: 4 · cut at the length limit · graded with 3 of 5 score examples and the rubric's "
               "criteria" for c in at.caption)


def test_personagym_judges_scores_and_agreement(app_on_fixture, tmp_path):
    """Two evaluators: the page lists each evaluator's task scores and PersonaScore and their ICC(2,1), as the
    metrics document has them."""
    from analysis.llm.specs import parse_model_spec
    from analysis.methods.personagym.tables import ANSWERS, GRADES

    e1 = [5, 4, 2, 3, 1]
    e2 = [4, 4, 1, 3, 2]
    with Store(tmp_path / "user.db") as store:
        store.create_run("pg-two", "personagym", "agent", parse_model_spec("embedded").public_dict(), {})
        base = {"run_id": "pg-two", "model": "agent", "persona_id": "p1", "persona": "P one", "q_index": 0}
        store.upsert(ANSWERS.name, [base | {"task": t, "answer": "A.", "status": "ok", "refusal": 0} for t in TASKS])
        store.upsert(GRADES.name, [base | {"task": t, "evaluator": ev, "score": float(g), "status": "ok", "n_examples": 5}
                                   for ev, grades in (("e1", e1), ("e2", e2)) for t, g in zip(TASKS, grades)])
        store.set_run_status("pg-two", "completed")
        doc = personagym_metrics(store)["models"]["agent"]
    at = app_on_fixture("personagym", store="user")
    assert not at.exception
    assert "Judges" in [h.value for h in at.subheader]
    icc = doc["judges"]["icc2"]
    assert icc is not None and any(m.value == f"**agent** — ICC(2,1) {icc:.2f} over 5 answers" for m in at.markdown)
    table = next(d.value for d in at.dataframe if "evaluator" in d.value.columns).set_index("evaluator")
    assert list(table.index) == ["e1", "e2"]
    assert table.loc["e1", "PersonaScore"] == pytest.approx(3.0) and table.loc["e2", "PersonaScore"] == pytest.approx(2.8)
    assert table.loc["e2", TASKS[2]] == pytest.approx(1.0)
