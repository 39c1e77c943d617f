"""What a PersonaGym plan can show, found by computing it: the report's metric functions (``cli.model_metrics`` and
``chance.judge_agreement``) on placeholder grades with the plan's design (its personas, the five tasks, the questions
per task and its evaluators; the agent grades itself when the plan names none).

Each placeholder grade is a seeded random score 1-5, so evaluators disagree as real judges do and every defined
number is defined for the design's sake alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.base import Shows, dry_run_shows
from analysis.methods.personagym import TASKS

AGENT = "dry-run agent"


def _evaluators(plan: dict[str, Any]) -> list[str]:
    named = [e.get("name") if isinstance(e, dict) else str(e) for e in plan.get("evaluators") or []]
    return [str(n) for n in named if n] or [AGENT]  # none given: the agent grades itself


def placeholder_rows(plan: dict[str, Any], seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(grades, answers) with one valid answer per persona × task × question and one valid grade of it per
    evaluator."""
    rng = np.random.default_rng(seed)
    personas = [(str(p.get("id", k)), str(p.get("description", p.get("id", k)))) if isinstance(p, dict) else (str(k), str(p))
                for k, p in enumerate(plan.get("personas") or [])]
    cells = [(pid, name, task, q) for pid, name in personas for task in TASKS
             for q in range(int(plan.get("questions_per_task") or 1))]
    answers = pd.DataFrame([{"run_id": "dry-run", "model": AGENT, "persona_id": pid, "persona": name, "task": task,
                             "q_index": q, "status": "ok", "refusal": 0, "truncated": 0, "finish_reason": "stop"}
                            for pid, name, task, q in cells],
                           columns=["run_id", "model", "persona_id", "persona", "task", "q_index", "status", "refusal",
                                    "truncated", "finish_reason"])
    grades = pd.DataFrame([{"run_id": "dry-run", "model": AGENT, "evaluator": ev, "persona_id": pid, "persona": name,
                            "task": task, "q_index": q, "score": float(rng.integers(1, 6)), "n_examples": 5,
                            "status": "ok"}
                           for pid, name, task, q in cells for ev in _evaluators(plan)],
                          columns=["run_id", "model", "evaluator", "persona_id", "persona", "task", "q_index", "score",
                                   "n_examples", "status"])
    return grades, answers


def can_show(plan: dict[str, Any], n_runs: int = 1) -> Shows:
    """PersonaScore, an independent judge and judge agreement, from the metrics of placeholder grades."""
    from analysis.methods.personagym.chance import judge_agreement
    from analysis.methods.personagym.cli import model_metrics

    grades, answers = placeholder_rows(plan)
    doc = model_metrics(grades, answers, 0) | {"judges": judge_agreement(grades)}
    n = len(plan.get("personas") or [])
    return dry_run_shows(f"{n} persona{'s' * (n != 1)} × {plan.get('questions_per_task')} question(s) per task", doc, (
        ("task scores and PersonaScore", lambda d: d.get("persona_score") is not None, "needs a persona"),
        ("an independent judge", lambda d: not (d.get("self_graded") or {}).get("value"),
         "none given: the agent grades itself (said as self-graded)"),
        ("judge agreement (ICC)", lambda d: (d.get("judges") or {}).get("icc2") is not None,
         doc["judges"]["reason"] or "undefined on this design"),
    ))
