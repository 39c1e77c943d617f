"""The MBTI Run page form: restored from the URL, with its call count; the reply limit of text answers."""

from __future__ import annotations

from tests.app.run_form import OFFLINE, started_plan


def test_the_mbti_form_and_the_model_are_restored_from_the_url(app_on_fixture):
    at = app_on_fixture("run", method="mbti", run_subjects=["Men", "Women", "Nurses"], run_testings="3",
                        run_statements="4", run_order="both", run_model="other", run_spec="m@http://127.0.0.1:9/v1",
                        run_concurrency="3")
    assert not at.exception
    assert at.multiselect(key="run_subjects").value == ["Men", "Women", "Nurses"]  # a typed subject too
    assert (at.number_input(key="run_testings").value, at.selectbox(key="run_order").value) == (3, "both")
    assert at.text_input(key="run_spec").value == "m@http://127.0.0.1:9/v1"
    assert at.number_input(key="run_concurrency").value == 3
    assert {m.label: m.value for m in at.metric}["LLM calls"] == str(3 * 2 * 3 * 4)  # subjects × orders × testings × items


def test_a_reply_limit_only_for_text_answers(app_on_fixture, tmp_path):
    """Text answers: a Max tokens field, 0 (no limit, the reference) by default and said only when set; the plan
    records the limit. Logprob answers (one letter) have no such field."""
    def departure() -> list[str]:
        return [c.value for c in at.caption if "departs from the reference protocol" in c.value]

    at = app_on_fixture("run", method="mbti", run_testings="1", run_statements="4", **OFFLINE)
    assert not at.exception
    assert at.number_input(key="run_mbti_max_tokens").value == 0 and not departure()
    at.selectbox(key="run_mbti_mode").set_value("logprob").run()
    assert "run_mbti_max_tokens" not in [n.key for n in at.number_input]
    at.selectbox(key="run_mbti_mode").set_value("text").run()
    at.number_input(key="run_mbti_max_tokens").set_value(200).run()
    assert departure() == ["A limit of 200 departs from the reference protocol, which sets none; replies that hit it "
                           "are flagged truncated."] and not at.exception
    assert started_plan(at, tmp_path)["text_max_tokens"] == 200


def test_structured_answers_for_text_answers_only(app_on_fixture, tmp_path):
    """The JSON toggle is offered for text answers (a logprob answer reads one letter) and gives answer_format json."""
    at = app_on_fixture("run", method="mbti", run_testings="1", run_statements="4", **OFFLINE)
    at.selectbox(key="run_mbti_mode").set_value("logprob").run()
    assert not any(t.key == "run_mbti_json" for t in at.toggle)
    at.selectbox(key="run_mbti_mode").set_value("text").run()
    at.toggle(key="run_mbti_json").set_value(True).run()
    assert not at.exception and started_plan(at, tmp_path)["answer_format"] == "json"
