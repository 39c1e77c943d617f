"""What a PersonaGym row from outside (a report file) must hold beyond its column types (``Table.rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.methods.personagym import SCORES
from analysis.runs.row_checks import first_broken, flags, within


def grade_rules(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """A grade is one of the rubric's whole scores 1..5; the examples shown at most five."""
    if row["score"] is not None and row["score"] not in SCORES:
        return "score", f"{row['score']:g} is not one of the rubric's scores {SCORES[0]}..{SCORES[-1]}"
    return within(row, "n_examples", 0, len(SCORES), "the rubric's scores")


def published_rules(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """A published score (a mean of grades) on the rubric's scale 1..5."""
    return first_broken(flags(row, "consistent"), within(row, "score", SCORES[0], SCORES[-1], "the rubric's scale"),
                        within(row, "mean_of_tasks", SCORES[0], SCORES[-1], "the rubric's scale"))


def answer_rules(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """Flags 0 or 1."""
    return flags(row, "refusal", "truncated")


def plan_models(run: Mapping[str, Any]) -> set[str]:
    """The models a PersonaGym run calls: the persona's (the run's), the generator and every evaluator."""
    plan = run.get("plan") or {}
    specs = [plan.get("generator"), *(plan.get("evaluators") or [])]
    return {str(run.get("model"))} | {str(s["name"]) for s in specs if isinstance(s, Mapping) and s.get("name")}


def generated_rules(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """A row of a generation stage (environments, questions, score examples) is made by one of the run's models."""
    if row["model"] is not None and row["model"] not in plan_models(run):
        return "model", f"{row['model']!r} is not a model of its run ({', '.join(sorted(plan_models(run)))})"
    return None
