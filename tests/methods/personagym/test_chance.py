"""PersonaGym in context: random-grade null (closed form), grade distribution, judge agreement and re-ranking."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis import chance, reliability
from analysis.methods.personagym import TASKS
from analysis.methods.personagym import chance as pchance


def grades(model: str, scores: dict[str, list[float]], personas: int = 3, questions: int = 2) -> pd.DataFrame:
    """Every persona × task × question graded by every evaluator; ``scores[ev]`` cycles over the cells."""
    rows = []
    for ev, values in scores.items():
        k = 0
        for p in range(personas):
            for t in TASKS:
                for q in range(questions):
                    rows.append({"model": model, "run_id": f"r-{model}", "persona_id": f"p{p}", "persona": f"P{p}",
                                 "task": t, "q_index": q, "evaluator": ev, "status": "ok", "score": values[k % len(values)]})
                    k += 1
    return pd.DataFrame(rows)


def test_random_grade_null_has_the_closed_form_mean_and_variance():
    # complete design: PersonaScore = mean of all 5·P·Q·E grades; uniform on 1..5 has mean 3 and variance 2
    g = grades("m", {"a": [4.0], "b": [5.0]}, personas=3, questions=2)
    draws = chance.as_floats(pchance.null_draws(g, 600, seed=0)["persona_score"])
    n = 5 * 3 * 2 * 2
    assert draws.mean() == pytest.approx(3.0, abs=4 * np.sqrt(2 / n / len(draws)))
    assert draws.var(ddof=1) == pytest.approx(2 / n, rel=4 * np.sqrt(2 / len(draws)))
    doc = {"persona_score": 4.5, "tasks": {t: 4.5 for t in TASKS}}
    out = pchance.model_chance(g, doc, n_sims=200)
    assert out["metrics"]["persona_score"]["uniform"]["verdict"] == "beyond chance"
    assert out["grades"]["shares"] == {"1": 0.0, "2": 0.0, "3": 0.0, "4": 0.5, "5": 0.5} and out["grades"]["p"] < 1e-6


def test_invalid_grades_stay_out_of_the_null_and_the_distribution():
    g = grades("m", {"a": [3.0]}, personas=1, questions=1)
    g.loc[0, ["status", "score"]] = ["invalid", np.nan]
    assert pchance.grade_distribution(g)["n"] == len(g) - 1
    draws = chance.as_floats(pchance.null_draws(g, 20, 0)[f"task/{g.loc[0, 'task']}"])
    assert np.isnan(draws).all()  # that task has no valid grade: undefined in every simulation, never a number


def test_judge_agreement_is_icc2_of_the_answer_by_evaluator_table():
    g = grades("m", {"a": [1.0, 2.0, 4.0, 5.0, 3.0], "b": [2.0, 2.0, 5.0, 4.0, 3.0]})
    wide = g.pivot_table(index=["model", "run_id", "persona", "task", "q_index"], columns="evaluator", values="score")
    out = pchance.judge_agreement(g)
    assert out["icc2"] == pytest.approx(reliability.icc2(wide), abs=1e-12) and out["n_answers"] == 30
    assert pchance.judge_agreement(g[g["evaluator"] == "a"])["reason"] == "needs ≥ 2 evaluators"


def test_ranking_without_each_judge():
    # evaluator b prefers y, a prefers x; together x leads (a's spread is larger)
    both = pd.concat([grades("x", {"a": [5.0], "b": [3.0]}), grades("y", {"a": [2.0], "b": [4.0]})])
    out = pchance.ranking_without(both)
    assert out["all"] == ["x", "y"]
    assert out["without"]["a"]["ranking"] == ["y", "x"] and out["without"]["a"]["changed"]
    assert out["without"]["b"]["ranking"] == ["x", "y"] and not out["without"]["b"]["changed"]
