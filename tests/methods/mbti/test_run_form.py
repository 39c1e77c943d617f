"""The MBTI Run page form: restored from the URL, with its call count."""

from __future__ import annotations


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
