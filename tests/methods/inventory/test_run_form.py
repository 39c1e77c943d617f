"""The inventory Run page form: structured answers (``--answer-format json``) for text answers."""

from __future__ import annotations

from tests.app.run_form import OFFLINE, started_plan


def test_structured_answers_for_text_answers_only(app_on_fixture, tmp_path):
    """The JSON toggle is offered for text answers (a logprob answer reads one digit) and gives answer_format json."""
    at = app_on_fixture("run", method="inventory", run_inv_items="4", **OFFLINE)
    assert not at.exception and not any(t.key == "run_inv_json" for t in at.toggle)
    at.selectbox(key="run_inv_mode").set_value("text").run()
    at.toggle(key="run_inv_json").set_value(True).run()
    assert not at.exception
    plan = started_plan(at, tmp_path)
    assert (plan["answer_mode"], plan["answer_format"]) == ("text", "json")
