"""AppTest: a model with runs of two configurations (``analysis.runs.comparable``) shows its latest by default, and the
sidebar's picker switches every number to the other one; nothing is pooled."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from analysis.methods.mbti import DIMENSIONS
from analysis.methods.mbti.session import ANSWERS
from analysis.runs.store import Store
from tests.app.conftest import APP, _bind, page_path
from tests.methods.mbti.fixture import N_TESTINGS

MODEL = "smollm2-t07"


@pytest.fixture
def two_config_store(fixture_store: Path, tmp_path: Path) -> Path:
    """The fixture store plus a newer MBTI run of MODEL on other statements: 2 testings of People, all 'Wrong'."""
    path = tmp_path / "two.db"
    shutil.copy(fixture_store, path)
    with Store(path) as store:
        store.create_run("mbti-other-statements", "mbti", MODEL, {}, {"method": "mbti", "statements": "mine.json"})
        store.upsert(ANSWERS.name, [
            {"run_id": "mbti-other-statements", "model": MODEL, "subject": "People", "order_mode": "permuted", "testing": t,
             "seq": i, "statement_id": f"x{i}", "dimension": d, "direction": 1, "option_index": 6, "valid": 1, "mode": "text",
             "source": "run"} for t in range(2) for i, d in enumerate(DIMENSIONS)])
        store.set_run_status("mbti-other-statements", "completed")
    return path


def test_picker_switches_the_configuration(two_config_store: Path, cache_dir: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _bind(monkeypatch, two_config_store, tmp_path / "user.db", cache_dir)
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params["model"] = MODEL
    at.query_params["subject"] = "People"
    at.run()
    at.switch_page(page_path("mbti")).run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Testings · invalid answers"].startswith("2 · ")  # the latest configuration alone: 2 testings
    assert metrics["Type"] == "ISFP-T (Adventurer)"  # all 'Wrong' on '+' statements; the paper's role name
    picker = next(s for s in at.sidebar.selectbox if s.label == f"MBTI: {MODEL}")
    assert picker.options[0].startswith("latest")
    assert "statements=" in picker.options[1]  # says how the older configuration differs
    picker.select_index(1).run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Testings · invalid answers"].startswith(f"{N_TESTINGS} · ")  # the fixture's run, unpooled
