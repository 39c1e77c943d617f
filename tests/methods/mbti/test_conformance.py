"""Conformance with the ChatGPT-MBTI reference (github.com/Kali-Hac/ChatGPT-MBTI, ``Query_ChatGPT.py``).

The reference (l. 99-101, 112-137) asks each statement as ONE user message: the correctness-evaluated instruction
with the seven options in a fresh random order ("Is it A, B, ..., or G for the following statement. Why?"),
then the subject-replaced statement; every prompt goes to the same chat session (``chat.ask``), so each question
carries the previous questions and answers as history; no system message, no length limit, the service's default
decoding. RoleScope keeps that structure within one testing of one subject (a new conversation per subject and
testing: the reference's session interleaves its three subjects, so one subject's answers primed the next's; the
difference is listed in docs/methods/mbti.md).
"""

from __future__ import annotations

import json
from pathlib import Path

from analysis.methods.mbti import OPTIONS
from analysis.runs.store import Store
from tests.methods.mbti.test_session import SPEC, FakeClient, fake, run  # noqa: F401  (fixture)


def test_two_consecutive_statements_in_one_testing(tmp_path: Path, fake: type[FakeClient]) -> None:  # noqa: F811
    """Request 1 = [user: question 1]; request 2 = [user: question 1, assistant: reply 1, user: question 2]; each
    question names the seven options (permuted per question), asks "Why?", then gives the statement; the requests
    carry only the model's own parameters (no max_tokens, no temperature set by the method)."""
    fake.answer = staticmethod(lambda q, r: "It is generally correct, because most do.")
    with Store(tmp_path / "s.db") as store:
        run_id = run(store, subjects=["Men"], testings=1, limit_statements=2, answer_mode="text", history=None)
        rows = store.table("mbti_answers", [run_id]).sort_values("seq")
    first, second = fake.requests
    assert [role for role, _ in first.messages] == ["user"]
    assert [role for role, _ in second.messages] == ["user", "assistant", "user"]
    assert second.messages[0] == first.messages[0]
    assert second.messages[1] == ("assistant", "It is generally correct, because most do.")
    for (_, question) in (first.messages[0], second.messages[2]):
        head, statement = question.split("Why?")
        assert all(option.lower() in head for option in OPTIONS)
        assert statement.strip().startswith("Statement: Men ")
    # the options are listed in each question's stored (seeded, permuted) order
    for question, order in zip((first.messages[0][1], second.messages[2][1]), rows.option_order):
        order = json.loads(order) if isinstance(order, str) else list(order)
        assert sorted(order) == list(range(7)) and order != list(range(7))
        listed = ", ".join(OPTIONS[k].lower() for k in order[:-1]) + ", or " + OPTIONS[order[-1]].lower()
        assert listed in question
    assert dict(first.params) == dict(second.params) == dict(SPEC.params)
