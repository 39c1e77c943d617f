"""Issue 43, item 10: a headline that averages a subset says so wherever it is shown, a headline without a chance
verdict says why, and the Leaderboard warns when two models' invalid shares differ by more than 20 points."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.methods.mbti import DIMENSIONS
from analysis.methods.mbti.session import ANSWERS
from analysis.runs.store import Store
from tests.app.conftest import _bind, open_app


def _testing(model: str, subject: str, testing: int, option: int, invalid: int = 0) -> list[dict]:
    """One permuted-order testing of one '+' statement per dimension, the first ``invalid`` answers unreadable."""
    return [{"run_id": f"r-{model}", "model": model, "subject": subject, "order_mode": "permuted", "testing": testing,
             "seq": i, "statement_id": str(i + 1), "dimension": d, "direction": 1,
             "option_index": None if i < invalid else (option + testing + i) % 7, "valid": int(i >= invalid),
             "reason": "no option named" if i < invalid else None, "mode": "text", "source": "run"}
            for i, d in enumerate(DIMENSIONS)]


@pytest.fixture
def subset_store(tmp_path: Path) -> Path:
    """'steady' answers every statement of 3 subjects × 3 testings; 'shaky' leaves 3 of 5 answers of each testing
    unreadable and has a single testing of its third subject (no consistency: its headline covers 2 of 3)."""
    path = tmp_path / "subset.db"
    rows = [r for s in ("Men", "Women", "Kids") for t in range(3) for r in _testing("steady", s, t, 1)]
    rows += [r for s in ("Men", "Women") for t in range(3) for r in _testing("shaky", s, t, 2, invalid=3)]
    rows += _testing("shaky", "Kids", 0, 2, invalid=3)
    with Store(path) as store:
        for model in ("steady", "shaky"):
            store.create_run(f"r-{model}", "mbti", model, {}, {"method": "mbti"})
        store.upsert(ANSWERS.name, rows)
    return path


def test_subset_coverage_no_verdict_and_invalid_gap_are_shown(subset_store, tmp_path, cache_dir, monkeypatch):
    _bind(monkeypatch, subset_store, tmp_path / "user.db", cache_dir)
    board = open_app("leaderboard")
    assert not board.exception, [e.value for e in board.exception]
    warnings = " ".join(w.value for w in board.warning)
    assert "points apart" in warnings and "shaky 60.0 %" in warnings and "steady 0.0 %" in warnings
    captions = " ".join(c.value for c in board.caption)
    assert "shaky · MBTI: consistency ↑: mean over 2 of 3 subjects" in captions
    assert "steady" not in captions.split("Means over a subset")[-1]  # a full mean is no subset
    overview = open_app()
    assert not overview.exception, [e.value for e in overview.exception]
    captions = " ".join(c.value for c in overview.caption)
    assert "mean over 2 of 3 subjects" in captions
    assert "shaky · MBTI: consistency ↑: no chance verdict: the null band is of the mean over all 3 subjects" in captions
