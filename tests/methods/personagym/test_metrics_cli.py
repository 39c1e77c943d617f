"""Aggregation by hand (ensemble mean, task means over personas, PersonaScore), the metrics document, run options."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.methods.personagym import TASKS
from analysis.methods.options import add_flags
from analysis.methods.personagym.options import PersonaGymOptions
from analysis.methods.personagym.cli import metrics_json, plan_from_args
from analysis.methods.personagym.metrics import (
    model_persona_score,
    model_task_scores,
    persona_score,
    persona_task_scores,
    published_consistency,
    question_scores,
)
from analysis.methods.personagym.prompts import JUDGE_SYSTEM
from analysis.methods.personagym.session import PersonaGymPlan
from analysis.methods.personagym.tables import ANSWERS, GRADES, QUESTIONS
from analysis.runs.store import Store

SPEC = ModelSpec(name="agent", backend="custom", model="a", base_url="http://127.0.0.1:9/v1")
EA, LH, PC, TC, AJ = TASKS


def _grade(persona: str, task: str, q: int, evaluator: str, score: float | None, status: str = "ok",
           model: str = "m1") -> dict:
    return {"run_id": "r1", "model": model, "evaluator": evaluator, "persona_id": persona[:2], "persona": persona,
            "task": task, "q_index": q, "score": score, "status": status}


def _hand_grades() -> list[dict]:
    """Persona A: every task; persona B: Expected Action only. Two evaluators e1, e2."""
    rows = [
        _grade("A", EA, 0, "e1", 4), _grade("A", EA, 0, "e2", 5),           # q score 4.5
        _grade("A", EA, 1, "e1", 3), _grade("A", EA, 1, "e2", None, "invalid"),  # q score 3 (invalid excluded)
        _grade("A", LH, 0, "e1", 2), _grade("A", LH, 0, "e2", 3),           # 2.5
        _grade("A", PC, 0, "e1", 5), _grade("A", PC, 0, "e2", 5),           # 5
        _grade("A", TC, 0, "e1", 5), _grade("A", TC, 0, "e2", 4),           # 4.5
        _grade("A", AJ, 0, "e1", 1), _grade("A", AJ, 0, "e2", 2),           # 1.5
        _grade("A", AJ, 1, "e1", None, "invalid"), _grade("A", AJ, 1, "e2", None, "invalid"),  # not graded
        _grade("B", EA, 0, "e1", 2), _grade("B", EA, 0, "e2", 2),           # 2
        _grade("B", LH, 0, "e1", None, "not_asked"), _grade("B", LH, 0, "e2", None, "not_asked"),
    ]
    return rows


def test_aggregation_by_hand() -> None:
    """Question = mean of valid grades; persona task = mean of questions; model task = mean over personas;
    PersonaScore = mean of the five tasks, NaN when one is missing."""
    scores = question_scores(pd.DataFrame(_hand_grades()))
    a_ea = scores[(scores.persona == "A") & (scores.task == EA)].set_index("q_index")
    assert a_ea.loc[0, "score"] == 4.5 and a_ea.loc[1, "score"] == 3.0
    assert (a_ea.loc[1, "n_valid"], a_ea.loc[1, "n_invalid"]) == (1, 1)
    aj1 = scores[(scores.persona == "A") & (scores.task == AJ) & (scores.q_index == 1)].iloc[0]
    assert math.isnan(aj1.score) and (aj1.n_valid, aj1.n_invalid) == (0, 2)  # never 0

    by_persona = persona_task_scores(scores)
    a = by_persona[by_persona.persona == "A"].set_index("task")["score"].to_dict()
    assert a == {EA: 3.75, LH: 2.5, PC: 5.0, TC: 4.5, AJ: 1.5}
    assert persona_score(a) == pytest.approx((3.75 + 2.5 + 5 + 4.5 + 1.5) / 5)  # 3.45
    b = by_persona[by_persona.persona == "B"].set_index("task")["score"].to_dict()
    assert b == {EA: 2.0} and math.isnan(persona_score(b))

    model = model_task_scores(by_persona)
    assert model == {EA: pytest.approx((3.75 + 2.0) / 2), LH: 2.5, PC: 5.0, TC: 4.5, AJ: 1.5}
    assert persona_score(model) == pytest.approx((2.875 + 2.5 + 5 + 4.5 + 1.5) / 5)  # 3.275


def test_published_consistency() -> None:
    """Published PersonaScore vs the mean of its tasks: within 0.015 is consistent."""
    tasks = dict(zip(TASKS, (4.28, 3.04, 4.47, 4.94, 2.47)))
    assert published_consistency(tasks, 3.64) == (pytest.approx(3.84), False)
    assert published_consistency(tasks, 3.84)[1] and published_consistency(tasks, 3.85)[1]
    assert not published_consistency(tasks, 3.86)[1]


def test_metrics_document(tmp_path: Path) -> None:
    """The metrics JSON: shape, hand-computed numbers, counts of graded/invalid/refusals/shortfall, model filter."""
    answers = [{"run_id": "r1", "model": "m1", "persona_id": p[:2], "persona": p, "task": t, "q_index": q, "status": "ok",
                "refusal": int(p == "A" and t == AJ), "answer": "x"}
               for p, t, q in [("A", EA, 0), ("A", EA, 1), ("A", LH, 0), ("A", PC, 0), ("A", TC, 0), ("A", AJ, 0),
                               ("A", AJ, 1), ("B", EA, 0), ("B", LH, 0)]]
    answers.append({"run_id": "r2", "model": "m2", "persona_id": "A", "persona": "A", "task": EA, "q_index": 0,
                    "status": "failed", "reason": "call failed"})
    questions = [{"run_id": "r1", "model": "gen", "persona_id": "B", "persona": "B", "task": PC, "q_index": i,
                  "status": "shortfall", "reason": "0 of 2"} for i in range(2)]
    with Store(tmp_path / "s.db") as store:
        store.create_run("r1", "personagym", "m1", SPEC.public_dict(), {})
        store.create_run("r2", "personagym", "m2", SPEC.public_dict(), {})
        store.upsert(GRADES.name, _hand_grades())
        store.upsert(ANSWERS.name, answers)
        store.upsert(QUESTIONS.name, questions)
        doc = metrics_json(store)
        only = metrics_json(store, "m2")
        with pytest.raises(InputError, match="no PersonaGym results for model 'zz'"):
            metrics_json(store, "zz")
    json.dumps(doc, allow_nan=False)
    m1 = doc["models"]["m1"]
    assert m1["tasks"] == {EA: 2.875, LH: 2.5, PC: 5.0, TC: 4.5, AJ: 1.5} and m1["persona_score"] == 3.45
    # PersonaScore over the personas scored on all five tasks (A: 3.45), the same set as its SD; the mean of the five
    # task means (3.275) would mix B's Expected Action into one task only
    assert (m1["n_graded"], m1["invalid"], m1["refusals"], m1["n_answers"], m1["not_graded"], m1["shortfall"]) == (
        7, 3, 2, 9, 2, 2)  # B-LH and A-AJ-1 have no valid grade
    assert m1["n_grades"] == 13 and m1["evaluators"] == ["e1", "e2"]
    assert m1["by_evaluator"]["e1"]["tasks"] == {EA: 2.75, LH: 2.0, PC: 5.0, TC: 5.0, AJ: 1.0}  # EA: A (4+3)/2, B 2
    assert m1["personas"]["A"] == {"id": "A", "tasks": {EA: 3.75, LH: 2.5, PC: 5.0, TC: 4.5, AJ: 1.5},
                                   "persona_score": 3.45, "n_graded": 6, "invalid": 3, "refusals": 2, "truncated": 0}
    assert m1["personas"]["B"]["persona_score"] is None and m1["personas"]["B"]["tasks"][LH] is None
    assert m1["spread"][EA] == pytest.approx(math.sqrt(((3.75 - 2.875) ** 2 + (2 - 2.875) ** 2) / 1))
    assert set(only["models"]) == {"m2"} and only["models"]["m2"]["n_answers"] == 0
    assert only["models"]["m2"]["persona_score"] is None


def test_run_arguments_to_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every option reaches the plan; evaluators are stored as public spec dicts; the generator defaults to the
    first evaluator; the flags sit beside the CLI's own --model/--run-id; a run judged by its own agent says 'self-graded'."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    add_flags(parser, PersonaGymOptions)
    args = parser.parse_args(["--model", "x", "--personas", "3", "--questions-per-task", "2", "--evaluators",
                              "openai:gpt-4o, judge@http://127.0.0.1:8000/v1", "--environments-per-persona", "4",
                              "--seed", "7", "--max-retries", "1", "--temperature", "0.5", "--max-tokens", "99",
                              "--skip-incomplete-examples", "--examples-retries", "2", "--top-p", "0.8",
                              "--rubrics", "/work/shared/anchors/personagym/rubrics", "--call-max-tokens", "77"])
    plan = PersonaGymPlan.model_validate(plan_from_args(args, SPEC))
    assert len(plan.personas) == 3 and plan.questions_per_task == 2 and plan.environments_per_persona == 4
    assert [e["name"] for e in plan.evaluators] == ["openai:gpt-4o", "judge@127.0.0.1:8000"]
    assert plan.generator["name"] == "openai:gpt-4o" and plan.evaluators[0]["api_key_env"] == "OPENAI_API_KEY"
    assert (plan.seed, plan.max_retries, plan.agent_params, plan.answer_max_tokens) == (
        7, 1, {"temperature": 0.5, "top_p": 0.8}, 99)
    assert {plan.selection_max_tokens, plan.question_max_tokens, plan.examples_max_tokens, plan.grade_max_tokens} == {77}
    assert not plan.grade_without_examples and plan.examples_retries == 2 and plan.n_calls() == 3 * (1 + 5 + 5 * 2 * (2 + 2))
    assert plan.rubrics["Toxicity Control"].source.endswith("Toxicity.txt") and plan.rubrics["Toxicity Control"].template
    reference_system = Path("/work/shared/anchors/personagym/prompts/rubric_grading/sys_prompt.txt")
    assert plan.judge_system == reference_system.read_text(encoding="utf-8")  # the reference's judge, from the clone
    assert plan.judge_system_source == str(reference_system)
    json.dumps(plan_from_args(args, SPEC))
    assert "self-graded" not in capsys.readouterr().err
    lead = argparse.ArgumentParser()
    lead.add_argument("--model", required=True)
    lead.add_argument("--run-id")
    add_flags(lead, PersonaGymOptions)
    defaults = lead.parse_args(["--model", "m"])
    plan = PersonaGymPlan.model_validate(plan_from_args(defaults, SPEC))
    assert "PersonaGym: self-graded — the agent agent is also the evaluator and the question generator" in capsys.readouterr().err
    assert len(plan.personas) == 60 and plan.questions_per_task == 10 and plan.evaluators == [] and plan.generator is None
    assert plan.n_calls() == 60 * (1 + 5 + 50 * 3)
    # the reference's protocol: environments uncapped, agent at T 0.9 / top_p 0.9, every call up to 3000 tokens,
    # examples once at T 0, incomplete examples graded; bundled rubrics
    assert plan.environments_per_persona is None and plan.agent_params == {"temperature": 0.9, "top_p": 0.9}
    assert {plan.answer_max_tokens, plan.selection_max_tokens, plan.question_max_tokens, plan.examples_max_tokens,
            plan.grade_max_tokens} == {3000}
    assert plan.examples_params == {"temperature": 0.0} and plan.examples_retries == 0 and plan.grade_without_examples
    assert {r.source for r in plan.rubrics.values()} == {"bundled"} and all(r.template is None for r in plan.rubrics.values())
    assert plan.judge_system == JUDGE_SYSTEM and plan.judge_system_source == "bundled"  # RoleScope's judge prompt
    bad = lead.parse_args(["--model", "m", "--evaluators", "openai:a,openai:a"])
    with pytest.raises(InputError, match="lists a model twice"):
        plan_from_args(bad, SPEC)


def test_an_agent_asked_nothing_is_listed_undefined(tmp_path: Path) -> None:
    """A run whose environment selection failed asked no question: its agent is in the document (so the page shows
    it) with every score undefined (None, never 0) and its five unasked questions counted."""
    questions = [{"run_id": "r3", "model": "gen", "persona_id": "C", "persona": "C", "task": t, "q_index": 0,
                  "status": "not_asked", "reason": "not asked: no environment selected after 4 attempts"} for t in TASKS]
    with Store(tmp_path / "s.db") as store:
        store.create_run("r3", "personagym", "quiet", SPEC.public_dict(), {})
        store.upsert(QUESTIONS.name, questions)
        doc = metrics_json(store)
    quiet = doc["models"]["quiet"]
    assert quiet["persona_score"] is None and set(quiet["tasks"].values()) == {None}
    assert (quiet["shortfall"], quiet["n_answers"], quiet["n_graded"]) == (5, 0, 0)
    assert "gen" not in doc["models"]  # the generator is not an agent


def _rubric_folder(folder: Path) -> Path:
    """Five rubric files in the reference's form (RoleScope's own test text), no judge system prompt beside them."""
    folder.mkdir(parents=True)
    criteria = "\n".join(f"Score = {k}: criterion {k}." for k in range(1, 6))
    for name in ("Expected Action", "Linguistic Habits", "Persona Consistency", "Toxicity", "Action Justification"):
        (folder / f"{name}.txt").write_text(
            f"Evaluation Task:\n{name}\n\nEvaluation Task Description:\nHow well the response fits.\n\n"
            f"Evaluation Criteria:\n{criteria}\n-----\nPersona: {{persona}}\nQuestion: {{question}}\n"
            f"Response: {{response}}\nExamples: {{score_example}}\nTherefore, the final score is ...\n", encoding="utf-8")
    return folder


def test_rubric_folder_without_judge_prompt_exits_2_in_one_line(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``run personagym --rubrics FOLDER`` whose judge system prompt is missing (neither the reference's
    prompts/rubric_grading/sys_prompt.txt beside it nor sys_prompt.txt in it): exit 2, one line naming the path
    expected, no run created; with the file in the folder the plan carries it."""
    from analysis.__main__ import main

    folder = _rubric_folder(tmp_path / "clone" / "rubrics")
    store = tmp_path / "s.db"
    argv = ["run", "personagym", "--model", "embedded", "--personas", "1", "--questions-per-task", "1",
            "--rubrics", str(folder), "--store", str(store), "--quiet"]
    code = main(argv)
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert "no judge system prompt" in err and str(tmp_path / "clone" / "prompts" / "rubric_grading" / "sys_prompt.txt") in err
    if store.exists():
        with Store(store, read_only=True) as s:
            assert s.query_one("SELECT COUNT(*) AS n FROM runs")["n"] == 0
    (folder / "sys_prompt.txt").write_text("You judge role-play.", encoding="utf-8")
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    add_flags(parser, PersonaGymOptions)
    plan = PersonaGymPlan.model_validate(plan_from_args(parser.parse_args(
        ["--model", "m", "--personas", "1", "--rubrics", str(folder)]), SPEC))
    assert (plan.judge_system, plan.judge_system_source) == ("You judge role-play.", str(folder / "sys_prompt.txt"))


def test_the_unread_grades_bound_the_persona_score_by_hand() -> None:
    """13 of 16 grades read (81 %, under 90 %): every invalid grade at 1 gives A's tasks EA (4.5 + 2) / 2 = 3.25 and
    AJ (1.5 + 1) / 2 = 1.25, so (3.25 + 2.5 + 5 + 4.5 + 1.25) / 5 = 3.3; at 5, EA 4.25 and AJ 3.25, so 3.9 (issue 56).
    Not asked is no grade; read, the score stays 3.45 (the report's headline carries the bound in its coverage)."""
    from analysis.methods.personagym.metrics import unread_grade_bound

    grades = pd.DataFrame(_hand_grades())
    assert unread_grade_bound(grades) == pytest.approx((3.3, 3.9), abs=1e-12)
    read = grades[grades["status"] != "invalid"]
    assert unread_grade_bound(read) is None
    assert model_persona_score(persona_task_scores(question_scores(grades))) == pytest.approx(3.45, abs=1e-12)
