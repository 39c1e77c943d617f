"""The shared reply rules (``analysis/reading.py``) on their own, with a toy reader whose vocabulary is "(X)"."""

from __future__ import annotations

import re

import pytest

from analysis.reading import NOT_ENGLISH, WITHDRAWN, final_part, hedge, language, lists_options, no_answer, read_final

_LETTER = re.compile(r"\(([A-F])\)")


def _read(text: str) -> str | None:
    found = set(_LETTER.findall(text))
    return found.pop() if len(found) == 1 else None


def _final(reply: str) -> str | None:
    return read_final(reply, _read, lambda v: v is not None and not v.startswith("!"), lambda why: "!" + why)


@pytest.mark.parametrize("reply, expected", [
    ("(B)\n\nNo wait, that's too much. (D)", "D"),
    ("(B) - sorry, I mean (E).", "E"),
    ("(A). Actually, on second thought, (C).", "C"),
    ("(A) Scratch that: (F)", "F"),
    ('(B)\n\nRevised answer:\n(C)', "C"),
    ("(C) Actually, I really am like that.", "C"),  # emphasis: nothing else after "actually"
    ("(C). Actually, (D) fits better.", "D"),  # "actually" then another answer: the later one
    ("Let me reconsider the options first. (B)", "B"),  # nothing before the marker to take back
])
def test_the_last_committed_answer_wins(reply: str, expected: str) -> None:
    assert _final(reply) == expected


@pytest.mark.parametrize("reply", ["(A) - no, scratch that, I can't pick one.", "(B). Hmm, I take that back.",
                                   "(C). Actually, I can't decide."])
def test_a_withdrawn_answer_with_none_after_it_is_none(reply: str) -> None:
    assert _final(reply) == "!" + WITHDRAWN


@pytest.mark.parametrize("reply, reason", [
    ("I can't decide on this one. Maybe (D).", "refusal"),
    ("Somewhere between (B) and (C).", "hedge"),
    ("Sometimes (A), sometimes (B).", "hedge"),
    ("(A) x\n(B) y\n(C) z", "options listed"),
    ("Is this like me? Let me think about it.", "question restated"),
])
def test_no_answer_whatever_it_contains(reply: str, reason: str) -> None:
    assert _final(reply).startswith("!" + reason)


def test_doubts_that_are_no_refusal() -> None:
    assert _final("I can't decide at first, but if I had to pick: (B)") == "B"
    assert _final("(C). It is impossible to say for everyone, of course.") == "C"  # explains a committed answer
    assert no_answer("I can't wait to see it. (A)") is None


def test_languages() -> None:
    assert language("Die Aussage ist größtenteils richtig und sehr genau.") == "de"
    assert language("Cette affirmation est partiellement fausse pour moi.") == "fr"
    assert language("La afirmación es incorrecta para los médicos.") == "es"
    assert language("这个说法基本正确。") == "zh"
    assert language("The statement is generally correct.") == "en"
    assert _final("Das ist mir sehr ähnlich, aber nicht immer.") == f"!{NOT_ENGLISH} (de)"


def test_helpers() -> None:
    assert final_part("(A) fine.") == ("(A) fine.", False, None)
    text, withdrawn, _ = final_part("(A). No wait, (B).", lambda t: _read(t) is not None)
    assert (text.strip(), withdrawn) == ("(B).", False)
    assert hedge("around 3 or 4") == "around 3 or 4" and hedge("between 3 and 3") is None
    assert lists_options("A. x\nB. y\nC. z") and not lists_options("A. x\nC. y\nB. z")
