"""PersonaGym comparison (analysis.methods.personagym.compare), by hand."""

from __future__ import annotations

import pytest

from analysis.methods.personagym import TASKS
from analysis.methods.personagym.compare import compare_personagym


def _doc(scores: dict[str, float | None], personas: tuple[str, ...] = ("p1", "p2", "p3")) -> dict:
    return {"personas": {p: {"tasks": {t: (None if scores[t] is None else scores[t] + k) for t in TASKS}}
                         for k, p in enumerate(personas)}}


def test_persona_score_on_shared_personas_with_a_paired_ci():
    """Mean over the shared personas of their mean task score: A = 4 + 2.5 = 6.5 (offsets 0..5), B = 3 + 2.5 = 5.5;
    every persona differs by exactly 1, so the paired CI is [1, 1]."""
    six = tuple(f"p{i}" for i in range(1, 7))
    a, b = _doc({t: 4.0 for t in TASKS}, six), _doc({t: 3.0 for t in TASKS}, (*six, "p7"))
    [d] = compare_personagym(a, b, n_boot=200)
    assert (d.a, d.b) == pytest.approx((6.5, 5.5)) and d.diff == pytest.approx(1.0)
    assert d.lo == pytest.approx(1.0) and d.hi == pytest.approx(1.0) and "6 shared personas" in d.note


def test_too_few_shared_personas_leave_the_ci_undefined():
    """3 shared personas: A − B is shown (5 − 4), its CI is undefined with the reason; a self-graded side is named."""
    a, b = _doc({t: 4.0 for t in TASKS}), _doc({t: 3.0 for t in TASKS}, ("p1", "p2", "p3", "p4"))
    b["self_graded"] = {"value": True, "roles": ["evaluator"]}
    [d] = compare_personagym(a, b, n_boot=200)
    assert (d.a, d.b, d.diff) == pytest.approx((5.0, 4.0, 1.0))
    assert d.lo != d.lo and d.hi != d.hi  # NaN: undefined
    assert d.note == "CI undefined: 3 shared personas, a paired CI needs ≥ 5; B is self-graded"


def test_a_task_without_any_score_leaves_persona_score_undefined():
    """As PersonaScore itself: a task no grade defines makes the comparison undefined (no row), never a mean of four."""
    scores = {t: 4.0 for t in TASKS} | {TASKS[0]: None}
    assert compare_personagym(_doc(scores), _doc({t: 3.0 for t in TASKS}), n_boot=50) == []
