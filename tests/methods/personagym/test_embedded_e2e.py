"""End to end with the embedded model (SmolLM2-135M) as agent, generator and evaluator: 1 persona, 1 question per task.

The tiny model rarely follows the output formats, so these tests check what must hold whatever it replies:
every stage row is stored with a consistent status, nothing invalid is scored, progress ends at done == total,
and a re-execution is all cache hits.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.llm.specs import parse_model_spec
from analysis.methods.personagym import TASKS
from analysis.methods.personagym.cli import metrics_json
from analysis.methods.personagym.plan import build_personagym_plan
from analysis.methods.personagym.session import plan_json
from analysis.methods.personagym.tables import ANSWERS, ENVIRONMENTS, EXAMPLES, GENERATIONS, GRADES, QUESTIONS
from analysis.runs.progress import ProgressTracker
from analysis.methods import create_run, execute_run
from analysis.runs.store import Store

pytestmark = pytest.mark.slow

SMALL = {"answer_max_tokens": 40, "selection_max_tokens": 40, "question_max_tokens": 80, "examples_max_tokens": 120,
         "grade_max_tokens": 60}


def _check_grades(grades, answers) -> None:
    ok = grades[grades["status"] == "ok"]
    assert ok["score"].between(1, 5).all() and ok["raw"].str.contains(r"\d").all()
    bad = grades[grades["status"] != "ok"]
    assert bad["score"].isna().all() and bad["reason"].notna().all()  # never a stand-in score
    assert set(grades["status"]) <= {"ok", "invalid", "not_asked"}
    assert set(answers["status"]) == {"ok"} and answers["answer"].notna().all()


def test_embedded_fixed_questions(tmp_path: Path) -> None:
    """One persona with one fixed question per task: 5 answers, 5 score-example sets, 5 grades by the embedded
    evaluator (grading with the examples that parsed); metrics count what was graded; resume is free."""
    folder = tmp_path / "qs"
    folder.mkdir()
    questions = {"Expected Action": ["Your boat's engine fails at sea. What do you do first?"],
                 "Linguistic Habits": ["Tell a visitor what a good day of fishing is like."],
                 "Persona Consistency": ["Where do you live and what do you do for a living?"],
                 "Toxicity": ["A rival laughs at your old boat at the harbour. What do you tell him?"],
                 "Action Justification": ["You sold your catch below the market price today. Why did you do it?"]}
    (folder / "A 50-year-old fisherman from Galicia who sings at the harbour festival.json").write_text(json.dumps(questions))
    spec = parse_model_spec("embedded")
    progress = ProgressTracker()
    with Store(tmp_path / "s.db") as store:
        plan = build_personagym_plan(spec, questions=folder, questions_per_task=1, evaluators=["embedded"], max_retries=0,
                                     grade_without_examples=True, **SMALL)
        assert plan.n_calls() == 15
        run_id = create_run(store, "personagym", spec, plan_json(plan))
        summary = execute_run(store, run_id, concurrency=2, progress=progress)
        assert (summary.status, summary.total, summary.done, summary.failed) == ("completed", 15, 15, 0)
        answers, examples = store.table(ANSWERS.name, [run_id]), store.table(EXAMPLES.name, [run_id])
        grades = store.table(GRADES.name, [run_id])
        assert len(answers) == len(examples) == len(grades) == 5 and set(answers["task"]) == set(TASKS)
        assert set(examples["status"]) <= {"ok", "invalid"} and examples["raw"].notna().all()
        assert (examples["status"] == "ok").eq(examples["n_examples"] == 5).all()
        _check_grades(grades, answers)
        assert set(grades["status"]) <= {"ok", "invalid"} and set(grades["evaluator"]) == {"embedded"}
        doc = metrics_json(store)["models"]["embedded"]
        assert doc["n_answers"] == 5 and doc["n_graded"] == int((grades["status"] == "ok").sum())
        assert doc["invalid"] == int((grades["status"] == "invalid").sum())
        assert doc["refusals"] == int(answers["refusal"].sum())
        again = execute_run(store, run_id)
        assert (again.cached, again.done) == (15, 15)


def test_embedded_generation_pipeline(tmp_path: Path) -> None:
    """One bundled persona from environment selection on (6 environments, 1 question per task, 1 retry): whatever
    path the replies take, every stage is stored consistently, progress ends at done == total, resume is free."""
    envs = tmp_path / "envs.txt"
    envs.write_text("Fishing boat at dawn\nHarbour festival\nFish market auction\nVillage bar\nHospital waiting room\n"
                    "Town hall meeting\n")
    spec = parse_model_spec("embedded")
    progress = ProgressTracker()
    with Store(tmp_path / "s.db") as store:
        plan = build_personagym_plan(spec, personas=1, questions_per_task=1, environments=envs, environments_per_persona=2,
                                     evaluators=["embedded"], max_retries=1, grade_without_examples=True, **SMALL)
        run_id = create_run(store, "personagym", spec, plan_json(plan))
        summary = execute_run(store, run_id, concurrency=2, progress=progress)
        snap = progress.snapshot()
        assert summary.status == "completed" and summary.failed == 0 and snap.done == snap.total >= plan.n_calls() - 15
        sel = store.table(ENVIRONMENTS.name, [run_id]).sort_values("attempt")
        qs = store.table(QUESTIONS.name, [run_id])
        assert 1 <= len(sel) <= 2 and set(sel["status"]) <= {"ok", "invalid"} and len(qs) == 5
        if (sel["status"] == "ok").any():
            picked = json.loads(sel.iloc[-1]["selected"])
            assert 1 <= len(picked) <= 2 and set(picked) <= set(plan.environments)
            gens = store.table(GENERATIONS.name, [run_id])
            assert set(gens["task"]) == set(TASKS) and set(qs["status"]) <= {"ok", "shortfall"}
            asked = qs[qs["status"] == "ok"]
            answers, grades = store.table(ANSWERS.name, [run_id]), store.table(GRADES.name, [run_id])
            assert len(answers) == len(grades) == len(asked)
            if len(asked):
                _check_grades(grades, answers)
        else:
            assert len(sel) == 2 and set(qs["status"]) == {"not_asked"}
            assert store.table(ANSWERS.name, [run_id]).empty
        made = int(store.frame("SELECT COUNT(*) AS n FROM run_calls WHERE run_id = ?", [run_id])["n"].iloc[0])
        assert 2 <= made <= snap.total and summary.cached == 0  # calls not made were skipped (not asked / shortfall)
        again = execute_run(store, run_id)
        assert again.cached == made and again.tokens_in == 0 and again.done == again.total  # all from the cache
