"""A method page says when a model's numbers come from structured answers (issue 56): its shown configuration asked
for JSON answers, a configuration of its own (``ui.structured_models``, read from the report's configurations)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from analysis import methods
from analysis.methods.mbti.plan import build_mbti_plan
from analysis.runs import runner
from analysis.runs.executor import RetryPolicy
from analysis.runs.store import Store
from app.ui import structured_models
from tests.app.conftest import APP, _bind, page_path
from tests.methods.mbti.test_session import SPEC, FakeClient


def test_structured_models_reads_the_shown_configuration() -> None:
    report = {"models": {
        "a": {"configurations": [{"used": True, "signature": {"answer_format": "json"}},
                                 {"used": False, "signature": {}}]},
        "b": {"configurations": [{"used": True, "signature": {"answer_mode": "text"}},
                                 {"used": False, "signature": {"answer_format": "json"}}]},
        "c": {},
        "t": {"configurations": {"population": [{"used": True, "signature": {}}],
                                 "individual": [{"used": True, "signature": {"answer_format": "json"}}]}}}}
    assert structured_models(report, ["a", "b", "c", "d", "t"]) == ["a", "t"]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    FakeClient.requests = []
    FakeClient.answer = staticmethod(lambda q, r: json.dumps({"reasoning": "Most do.", "answer": "generally correct"}))
    monkeypatch.setattr(runner, "LLMClient", FakeClient)
    path = tmp_path / "structured.db"
    with Store(path) as s:
        plan = build_mbti_plan(SPEC, subjects=["Men", "Women"], testings=2, limit_statements=4, answer_format="json")
        run_id = methods.create_run(s, "mbti", SPEC, plan.model_dump())
        methods.execute_run(s, run_id, concurrency=4, retry=RetryPolicy(max_attempts=1))
    return path


def test_the_mbti_page_says_its_answers_are_structured(store: Path, tmp_path: Path, cache_dir: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _bind(monkeypatch, store, tmp_path / "user.db", cache_dir)
    at = AppTest.from_file(APP, default_timeout=300).run()
    at = at.switch_page(page_path("mbti")).run()
    assert not at.exception
    assert any(c.value.startswith("Structured answers (`answer_format=json`) for fake:") for c in at.caption)
