"""PersonaGym runs graded by other evaluators are two configurations, never pooled."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.methods.personagym import TASKS
from analysis.methods.personagym.tables import ANSWERS as PG_ANSWERS
from analysis.methods.personagym.tables import GRADES
from analysis.runs.store import Store
from tests.configurations import check_two_configurations, metrics

def test_personagym_runs_graded_by_other_evaluators_are_not_pooled(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.db"
    with Store(path) as store:
        for run_id, evaluator, score in (("strict", "judge-a", 1.0), ("lenient", "judge-b", 5.0)):
            store.create_run(run_id, "personagym", "m", {}, {"method": "personagym", "evaluators": [evaluator],
                                                              "personas": [{"id": "pa"}]})
            key = {"run_id": run_id, "model": "m", "persona_id": "pa", "persona": "Ada", "q_index": 0}
            store.upsert(PG_ANSWERS.name, [key | {"task": t, "status": "ok", "refusal": 0, "answer": "x"} for t in TASKS])
            store.upsert(GRADES.name, [key | {"task": t, "evaluator": evaluator, "score": score, "status": "ok"} for t in TASKS])
    doc = metrics(path, "personagym", capsys)["models"]["m"]
    assert doc["persona_score"] == 5.0 and doc["evaluators"] == ["judge-b"]
    older = check_two_configurations(doc, ["lenient"], ["strict"], "evaluators")
    assert metrics(path, "personagym", capsys, "--config", older["id"])["models"]["m"]["persona_score"] == 1.0


def test_personagym_runs_with_other_judge_prompts_are_not_pooled(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The judges' system prompt is in the plan (``judge_system``: RoleScope's, or a rubric folder's such as the
    reference's prompts/rubric_grading/sys_prompt.txt): runs differing only there are two configurations."""
    path = tmp_path / "p.db"
    with Store(path) as store:
        for run_id, system, score in (("ours", "You are a careful judge.", 2.0), ("theirs", "You are a FAIR judge.", 4.0)):
            store.create_run(run_id, "personagym", "m", {}, {"method": "personagym", "evaluators": ["judge-a"],
                                                              "judge_system": system, "personas": [{"id": "pa"}]})
            key = {"run_id": run_id, "model": "m", "persona_id": "pa", "persona": "Ada", "q_index": 0}
            store.upsert(PG_ANSWERS.name, [key | {"task": t, "status": "ok", "refusal": 0, "answer": "x"} for t in TASKS])
            store.upsert(GRADES.name, [key | {"task": t, "evaluator": "judge-a", "score": score, "status": "ok"}
                                       for t in TASKS])
    doc = metrics(path, "personagym", capsys)["models"]["m"]
    assert doc["persona_score"] == 4.0
    older = check_two_configurations(doc, ["theirs"], ["ours"], "judge_system")
    assert metrics(path, "personagym", capsys, "--config", older["id"])["models"]["m"]["persona_score"] == 2.0
