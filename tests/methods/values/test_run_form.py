"""The values Run page form: the reply length of text and cot answers."""

from __future__ import annotations

from tests.app.run_form import OFFLINE, started_plan


def _departure(at) -> list[str]:
    return [c.value for c in at.caption if "departs from the protocol" in c.value]


def test_the_answer_length_starts_at_the_protocol_of_each_mode(app_on_fixture, tmp_path):
    """Logprob answers have no length field; text and cot each start at the protocol's own (10, 2000: switching modes
    carries nothing over), said only when changed, and the plan records the change."""
    at = app_on_fixture("run", method="values", **OFFLINE)
    assert not at.exception and not any(n.label == "Max tokens per answer" for n in at.number_input)
    at.selectbox(key="run_mode").set_value("text").run()
    assert at.number_input(key="run_max_tokens_text").value == 10 and not _departure(at)
    at.number_input(key="run_max_tokens_text").set_value(40).run()
    assert _departure(at) == ["A limit of 40 departs from the protocol's 10 for text answers: a reply cut there is read "
                              "as it stands (a chain of thought cut before its 'Answer: (X)' is invalid), and the run is "
                              "another configuration."]
    at.selectbox(key="run_mode").set_value("cot").run()
    assert at.number_input(key="run_max_tokens_cot").value == 2000 and not _departure(at)
    at.number_input(key="run_max_tokens_cot").set_value(500).run()
    assert len(_departure(at)) == 1 and "500 departs from the protocol's 2000 for cot" in _departure(at)[0]
    assert not at.exception
    plan = started_plan(at, tmp_path)
    assert (plan["answer_mode"], plan["text_max_tokens"], plan["cot_max_tokens"]) == ("cot", 10, 500)


def test_structured_answers_for_text_and_cot_only(app_on_fixture, tmp_path):
    """The JSON toggle is offered for text and cot answers (a logprob answer reads one token) and gives the plan's
    answer_format json."""
    at = app_on_fixture("run", method="values", **OFFLINE)
    assert not any(t.key == "run_json" for t in at.toggle)
    at.selectbox(key="run_mode").set_value("text").run()
    at.toggle(key="run_json").set_value(True).run()
    assert not at.exception
    plan = started_plan(at, tmp_path)
    assert (plan["answer_mode"], plan["answer_format"]) == ("text", "json")
