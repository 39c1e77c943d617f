"""The paper's Table 1 (task scores and PersonaScore, mean (SD over personas)) and Fig. 4 (refusals per model) from a
small hand-built store, every expected value worked by hand; the self-graded flag and the truncation counts."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from analysis.llm.specs import ModelSpec
from analysis.methods.personagym import TASKS
from analysis.methods.personagym.cli import metrics_json
from analysis.methods.personagym.tables import ANSWERS, GRADES, QUESTIONS
from analysis.runs.store import Store

SPEC = ModelSpec(name="m1", backend="custom", model="a", base_url="http://127.0.0.1:9/v1")
EA, LH, PC, TC, AJ = TASKS
# persona -> task -> grades of its questions (one list per question: the evaluators' grades e1, e2)
GRADED = {
    "A": {EA: [[4, 4]], LH: [[3, 3]], PC: [[5, 5]], TC: [[5, 5]], AJ: [[2, 4]]},   # AJ question: (2 + 4) / 2 = 3
    "B": {EA: [[2, 2]], LH: [[3, 3]], PC: [[4, 4]], TC: [[5, 5]], AJ: [[1, 1]]},
    "C": {EA: [[3, 3]], LH: [[3, 3]], PC: [[3, 3]], TC: [[2, 2]], AJ: [[4, 4], [5, 5]]},  # AJ: (4 + 5) / 2 = 4.5
    "D": {EA: [[5, 5]]},  # scored on one task only: in Expected Action's mean and SD, not in the PersonaScore SD
}


def _store(path: Path) -> Store:
    grades, answers = [], []
    for persona, tasks in GRADED.items():
        for task, questions in tasks.items():
            for q, pair in enumerate(questions):
                base = {"run_id": "r1", "model": "m1", "persona_id": persona, "persona": persona, "task": task, "q_index": q}
                answers.append(base | {"status": "ok", "answer": "x", "refusal": int(persona == "B" and task in (AJ, PC)),
                                       "truncated": int(persona == "C" and task == TC)})
                grades += [base | {"evaluator": ev, "score": g, "status": "ok", "n_examples": 5}
                           for ev, g in zip(("e1", "e2"), pair)]
    # m2 answered three questions, graded by itself, on questions it wrote itself: self-graded in both roles
    for q in range(3):
        base = {"run_id": "r2", "model": "m2", "persona_id": "A", "persona": "A", "task": EA, "q_index": q}
        # q0 was stored before the truncated flag existed: its finish_reason 'length' says it was cut
        answers.append(base | {"status": "ok", "answer": "y", "refusal": 0, "truncated": None if q == 0 else 0,
                               "finish_reason": "length" if q == 0 else "stop"})
        grades.append(base | {"evaluator": "m2", "score": 3, "status": "ok", "n_examples": 5 if q else 2})
    questions = [{"run_id": "r2", "model": "m2", "persona_id": "A", "persona": "A", "task": EA, "q_index": q,
                  "question": "Q?", "status": "ok", "source": "run"} for q in range(3)]
    store = Store(path)
    store.create_run("r1", "personagym", "m1", SPEC.public_dict(), {})
    store.create_run("r2", "personagym", "m2", SPEC.public_dict(), {})
    store.upsert(GRADES.name, grades)
    store.upsert(ANSWERS.name, answers)
    store.upsert(QUESTIONS.name, questions)
    return store


def test_table1_mean_and_sd_over_personas(tmp_path: Path) -> None:
    """Persona task scores (question = mean of its evaluators, task = mean of its questions):
    EA A4 B2 C3 D5; LH 3 3 3; PC 5 4 3; TC 5 5 2; AJ 3 1 4.5.
    Means: EA 14/4 = 3.5, LH 3, PC 4, TC 4, AJ 8.5/3 = 2.8333; SD (ddof 1): EA sqrt(5/3) = 1.2910 (squares
    .25 + 2.25 + .25 + 2.25), LH 0, PC 1, TC sqrt(6/2) = 1.7321, AJ sqrt((1 + 121 + 100)/36/2) = 1.7559.
    PersonaScore: mean and SD over the same personas, A, B, C (D lacks four tasks), of their PersonaScores 4, 3, 3.1:
    mean 10.1/3 = 3.3667 (deviations 19/30, -11/30, -8/30), SD sqrt(546/900/2) = .55076. (The mean of the task means,
    17.3333/5 = 3.4667, would include D's Expected Action in one task only.)"""
    with _store(tmp_path / "s.db") as store:
        doc = metrics_json(store)
    row = doc["table1"]["models"]["m1"]
    expected = {EA: (3.5, math.sqrt(5 / 3), 4), LH: (3.0, 0.0, 3), PC: (4.0, 1.0, 3), TC: (4.0, math.sqrt(3), 3),
                AJ: (8.5 / 3, math.sqrt((1 / 36 + 121 / 36 + 100 / 36) / 2), 3),
                "PersonaScore": (10.1 / 3, math.sqrt((19**2 + 11**2 + 8**2) / 900 / 2), 3)}
    for column, (mean, sd, n) in expected.items():
        assert row[column]["mean"] == pytest.approx(mean, abs=1e-6), column
        assert row[column]["sd"] == pytest.approx(sd, abs=1e-5), column
        assert row[column]["n_personas"] == n, column
    assert doc["models"]["m1"]["persona_score"] == pytest.approx(10.1 / 3, abs=1e-6)  # the headline is Table 1's mean
    m2 = doc["table1"]["models"]["m2"]
    assert m2[EA] == {"mean": 3.0, "sd": None, "n_personas": 1} and m2["PersonaScore"]["mean"] is None  # undefined, not 0
    paper = doc["table1"]["paper"]["models"]
    assert paper["LLaMA-2-13b"][AJ] == {"mean": 3.96, "sd": 0.80} and paper["Claude 3 Haiku"][TC] == {"mean": 4.94, "sd": 0.36}
    assert paper["GPT 3.5"]["PersonaScore"] == {"mean": 4.38, "sd": 0.23}
    # the last row: spread among models (max - min of the means); ours: EA 3.5 - 3.0, the rest defined for m1 only
    assert doc["table1"]["spread"] == {EA: 0.5, LH: None, PC: None, TC: None, AJ: None, "PersonaScore": None}
    # the paper's, from its rows, as its Sec. 4.2 states them: AJ 2.08, PC 1.34, EA 0.56, LH 0.94, TC 0.78
    spread = doc["table1"]["paper"]["spread"]
    assert {t: round(spread[t], 2) for t in TASKS} == {AJ: 2.08, PC: 1.34, EA: 0.56, LH: 0.94, TC: 0.78}


def test_figure4_refusals_truncation_and_self_grading(tmp_path: Path) -> None:
    """Fig. 4: refusals per model (m1: B's PC and AJ answers = 2 of 17; m2: 0 of 3). Truncated answers: m1 1 (C, TC),
    m2 1 (an older row without the flag, finish_reason 'length').
    m2 graded its own answers on questions it generated: self-graded as evaluator and question generator; m1 not.
    One of m2's grades saw 2 score examples: graded with incomplete examples, counted."""
    with _store(tmp_path / "s.db") as store:
        doc = metrics_json(store)
    assert doc["figure4"] == {"m1": {"refusals": 2, "n_answers": 17}, "m2": {"refusals": 0, "n_answers": 3}}
    m1, m2 = doc["models"]["m1"], doc["models"]["m2"]
    assert (m1["truncated"], m2["truncated"]) == (1, 1) and m1["personas"]["C"]["truncated"] == 1
    assert m1["self_graded"] == {"value": False, "roles": []}
    assert m2["self_graded"] == {"value": True, "roles": ["evaluator", "question generator"]}
    assert (m1["graded_incomplete_examples"], m2["graded_incomplete_examples"]) == (0, 1)


def test_self_graded_runs_are_marked_wherever_their_rows_and_bars_appear() -> None:
    """A self-graded model's Table 1 row says so in its source, and its chart series carries "(self-graded)"; a model
    judged by others carries no mark."""
    from analysis.methods.personagym.report import series_name, source_label, table1_frame

    doc = {"models": {"self": {"self_graded": {"value": True, "roles": ["evaluator"]}},
                      "judged": {"self_graded": {"value": False, "roles": []}}},
           "table1": {"models": {"self": {}, "judged": {}}}}
    frame = table1_frame(doc, ["self", "judged"]).set_index("model")
    assert frame.loc["self", "source"] == "this store · self-graded" and frame.loc["judged", "source"] == "this store"
    assert (series_name(doc, "self"), series_name(doc, "judged")) == ("self (self-graded)", "judged")
    assert source_label(doc, "self") == "this store · self-graded"
