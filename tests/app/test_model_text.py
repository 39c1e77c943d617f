"""AppTest: text a model produced or a file held is shown as text. A store whose replies, questions, rationales,
invalid reasons, persona descriptions, logprob tokens and call errors carry Markdown images and links: on the Data,
PersonaGym and Run pages no Markdown element (markdown, caption, alert, subheader, expander label) renders any of it —
each either shows it escaped (``ui.plain``) or shows it in a text element."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from analysis.llm.client import ChatReply, ChatRequest
from analysis.llm.specs import parse_model_spec
from analysis.runs.store import Store
from app.markdown import plain
from tests.app.conftest import APP, _bind, page_path
from tests.app.test_drill_down import click

IMG = "![x](http://evil.example/pixel.png)"
LINK = "[click](https://evil.example/) <img src=https://evil.example/i.png> www.evil.example"
PERSONA = f"A sailor {IMG} who collects maps"
MODEL = "embedded"


def _hostile_store(path: Path) -> Path:
    from analysis.methods.personagym import TASKS
    from analysis.methods.personagym.tables import ANSWERS, GRADES, QUESTIONS
    from analysis.methods.values.instruments import load_instrument
    from analysis.methods.values.questionnaire import ANSWERS as VALUES_ANSWERS

    spec = parse_model_spec(MODEL)
    with Store(path) as store:
        store.create_run("pg", "personagym", MODEL, spec.public_dict(), {"method": "personagym"})
        questions, answers, grades = [], [], []
        for n, persona in enumerate((PERSONA, "A baker")):
            for task in TASKS:
                key = {"run_id": "pg", "persona_id": f"pg{n}", "persona": persona, "task": task, "q_index": 0}
                question = f"{IMG} What would you do? {LINK}"
                questions.append(key | {"model": MODEL, "question": question, "status": "ok"})
                answers.append(key | {"model": MODEL, "question": question, "answer": f"Reply {IMG}", "status": "ok",
                                      "refusal": 0})
                grades.append(key | {"model": MODEL, "evaluator": "embedded", "score": 3.0, "status": "ok",
                                     "raw": f"Rationale {IMG} {LINK}. Therefore, the final score is 3"})
        store.upsert(QUESTIONS.name, questions)
        store.upsert(ANSWERS.name, answers)
        store.upsert(GRADES.name, grades)
        store.set_run_status("pg", "completed")

        inst = load_instrument("pvq")
        store.create_run("v", "values", MODEL, spec.public_dict(), {"method": "values"})
        request = ChatRequest.build([{"role": "system", "content": f"You are {PERSONA}."},
                                     {"role": "user", "content": "Item 1?"}], {"max_tokens": 1})
        cache_key = request.cache_key(spec.identity)
        store.record_call("v", "no_conv/p0/item1/s0", cache_key, MODEL, request,
                          ChatReply(IMG, "stop", [{IMG: -0.1, "`x` **b**": -2.0}], tokens_in=5, tokens_out=1))
        store.upsert(VALUES_ANSWERS.name, [
            {"run_id": "v", "model": MODEL, "persona_id": 0, "persona": PERSONA, "gender": "female", "context": "no_conv",
             "instrument": inst.name, "item_id": item.id, "value": item.value, "stage": "item", "sample": 0,
             "mode": "logprob", "valid": 0, "raw": IMG, "reason": f"no option letter in {IMG} {LINK}",
             "cache_key": cache_key if k == 0 else None}
            for k, item in enumerate(inst.items[:3])])
        store.set_run_status("v", "completed")
    return path


@pytest.fixture
def app_on_hostile(tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., AppTest]:
    store = _hostile_store(tmp_path / "hostile.db")
    _bind(monkeypatch, store, tmp_path / "user.db", cache_dir)

    def make(page: str, **query: Any) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=300)
        for key, value in query.items():
            at.query_params[key] = value
        at.run()
        at.switch_page(page_path(page)).run()
        return at

    return make


def _rendered(at: AppTest) -> list[str]:
    """Every Markdown-rendered string on the page."""
    out = [e.value for kind in ("markdown", "caption", "error", "warning", "info", "success", "subheader", "title")
           for e in getattr(at, kind)]
    return out + [e.proto.label for e in at.expander]


def _unescaped(text: str) -> list[str]:
    """What in ``text`` would render as an image, a link or HTML (escaped characters removed first)."""
    bare = re.sub(r"\\.", "", text)
    return re.findall(r"!\[|\]\(|<img|https?://|www\.", bare)


def assert_nothing_renders(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]
    bad = {s: _unescaped(s) for s in _rendered(at) if _unescaped(s)}
    assert not bad, bad


def test_plain_escapes_what_markdown_would_render():
    for text in (IMG, LINK, "# heading", "- item\n1. first", "**bold** _it_ `code` ~~s~~ $x$ | a | b |", ":red[x]"):
        shown = plain(text)
        assert not _unescaped(shown) and re.sub(r"\\(.)", r"\1", shown) == text  # the same text, every mark escaped
    assert plain("people.csv: 2 bad rows; row 3 field 'gender'") == "people.csv: 2 bad rows; row 3 field 'gender'"


def test_the_data_page_shows_replies_and_reasons_as_text(app_on_hostile):
    at = app_on_hostile("data", table="values_answers", run="v")
    assert_nothing_renders(at)
    assert any(plain(IMG) in e.value for e in at.error)  # the invalid reason, escaped
    assert IMG in [t.value for t in at.text]  # the reply, as text
    at = app_on_hostile("data", table="personagym_answers", run="pg")
    assert_nothing_renders(at)
    at = app_on_hostile("data", table="personagym_grades", run="pg")
    assert_nothing_renders(at)


def test_the_personagym_page_shows_questions_and_rationales_as_text(app_on_hostile):
    at = app_on_hostile("personagym", model=MODEL, persona=PERSONA)
    assert_nothing_renders(at)
    assert any(m.value.startswith("**Q1.** ") and plain(IMG) in m.value for m in at.markdown)
    at = click(at, "persona_tasks", [PERSONA, "Expected Action"])
    assert_nothing_renders(at)
    assert any(m.value.endswith(" · 1 sample**") and plain(PERSONA) in m.value for m in at.markdown)  # the panel


def test_a_failed_calls_error_is_shown_as_text(app_on_hostile, tmp_path):
    spec = parse_model_spec(MODEL)
    with Store(tmp_path / "user.db") as store:
        store.create_run("bad-run", "values", MODEL, spec.public_dict(), {"method": "values"})
        store.record_failure("bad-run", "u1", "k1", f"HTTP 500: {IMG} {LINK}", 3)
        store.set_run_status("bad-run", "failed", error=f"server said {IMG}")
    at = app_on_hostile("run", run_job="bad-run")
    assert_nothing_renders(at)
    assert any("Run failed" in e.value and plain(IMG) in e.value for e in at.error)
