"""PersonaGym comparison (analysis.methods.personagym.compare), by hand."""

from __future__ import annotations

import pytest

from analysis.methods.personagym import TASKS
from analysis.methods.personagym.compare import compare_personagym


def _doc(scores: dict[str, float | None], personas: tuple[str, ...] = ("p1", "p2", "p3")) -> dict:
    return {"personas": {p: {"tasks": {t: (None if scores[t] is None else scores[t] + k) for t in TASKS}}
                         for k, p in enumerate(personas)}}


def test_persona_score_on_shared_personas_with_a_paired_ci():
    """Mean over tasks of the per-task mean over the shared personas: A = 4 + 1 = 5 (offsets 0, 1, 2), B = 3 + 1 = 4;
    every persona differs by exactly 1, so the paired CI is [1, 1]."""
    a, b = _doc({t: 4.0 for t in TASKS}), _doc({t: 3.0 for t in TASKS}, ("p1", "p2", "p3", "p4"))
    [d] = compare_personagym(a, b, n_boot=200)
    assert (d.a, d.b) == pytest.approx((5.0, 4.0)) and d.diff == pytest.approx(1.0)
    assert d.lo == pytest.approx(1.0) and d.hi == pytest.approx(1.0) and "3 shared personas" in d.note


def test_a_task_without_any_score_leaves_persona_score_undefined():
    """As PersonaScore itself: a task no grade defines makes the comparison undefined (no row), never a mean of four."""
    scores = {t: 4.0 for t in TASKS} | {TASKS[0]: None}
    assert compare_personagym(_doc(scores), _doc({t: 3.0 for t in TASKS}), n_boot=50) == []
