"""Reply parsing: a corpus of realistic replies -> one of the 7 options, or invalid with a reason."""

from __future__ import annotations

import pytest

from analysis.methods.mbti import OPTIONS
from analysis.methods.mbti.parse import listed_options, parse_correctness

C, GC, PC, N, PW, GW, W = range(7)
INVALID = None
INSTRUCTION = ("Is the following statement correct, generally correct, partially correct, neither correct nor wrong, "
               "partially wrong, generally wrong, or wrong? Why?")
STATEMENT = "Men tend to expect that things will go wrong."

# (reply, expected option index or None)
CORPUS: list[tuple[str, int | None]] = [
    # plain verdicts, every option
    ("Correct.", C),
    ("Generally correct.", GC),
    ("Partially correct", PC),
    ("Neither correct nor wrong.", N),
    ("Partially wrong.", PW),
    ("Generally wrong", GW),
    ("Wrong.", W),
    ("correct", C),
    # verdict inside a sentence, with an explanation that reuses option words
    ("The statement is generally correct. Many men enjoy company, although it is not always correct for everyone.", GC),
    ("Correct. This describes most women well, which makes it a generally correct statement.", None),  # two verdicts: ambiguous
    ("I would say it is partially correct: some people do this, others don't.", PC),
    ("This is neither correct nor wrong; personality varies too much between people, so there is no right or wrong answer.", N),
    ("It's generally wrong. Most doctors plan their week carefully.", GW),
    ("My assessment: partially wrong. While some boys may be like this, many are not.", PW),
    # synonyms: incorrect, mostly, partly, right
    ("Generally incorrect. Girls differ a lot in this respect.", GW),
    ("Incorrect. People usually prefer some routine.", W),
    ("Partially incorrect, because it depends on the person.", PW),
    ("Mostly correct, with exceptions.", GC),
    ("Partly correct.", PC),
    ("It is neither right nor wrong, since people differ.", N),
    ("Neither correct nor incorrect.", N),
    # markdown, quotes, labels
    ("**Generally correct** - most people do enjoy this.", GC),
    ("Answer: *Partially wrong*", PW),
    ("'Generally correct'", GC),
    ("The correct answer is: partially wrong.", PW),
    ("GENERALLY CORRECT. This is common behaviour.", GC),
    # hedging and negations
    ("The statement is not correct.", W),
    ("That isn't correct for most adolescents.", W),
    ("It is not entirely correct. It is partially correct.", PC),
    ("Not always correct, but generally correct.", GC),
    ("There's nothing wrong with enjoying parties, and the statement is generally correct.", GC),
    ("It would be wrong to assume all men are the same. Partially correct.", PC),
    ("It is not entirely correct.", INVALID),
    ("This is not necessarily wrong.", INVALID),
    ("The correct part of the statement is that some people like crowds; the rest is speculation.", INVALID),
    # the reply repeats / quotes the instruction or the statement
    (f"{INSTRUCTION}\nStatement: Men regularly make new friends.\nAnswer: Generally correct.", GC),
    ("Correct, generally correct, partially correct, neither correct nor wrong, partially wrong, generally wrong, or wrong? "
     "I'd go with partially correct.", PC),
    ("Is it correct? Generally, yes: generally correct.", GC),
    ('The statement "Men tend to expect that things will go wrong" is partially wrong.', PW),
    ("Men tend to expect that things will go wrong. This is generally correct.", GC),
    ('The statement "women often replay conversations in their head, worrying about what they said" is generally correct.', GC),
    # refusals and non-answers
    ("As an AI language model, I cannot make generalizations about groups of people.", INVALID),
    ("I'm sorry, but I can't assess the personality of an entire gender.", INVALID),
    ("I cannot say whether it is correct or wrong; it depends on the individual.", INVALID),
    ("It depends on the person.", INVALID),
    ("", INVALID),
    ("   \n  ", INVALID),
    # two options at once
    ("It is partially correct or neither correct nor wrong.", INVALID),
    ("Somewhere between generally correct and partially correct.", INVALID),
    ("Partially correct/partially wrong.", INVALID),
    # three options listed = a quoted list, then the real answer
    ("Generally incorrect, partially correct, and generally wrong are all possible; overall I'd say generally wrong.", GW),
    # options repeated: the first verdict counts
    ("Generally correct. Generally correct for most, wrong for a few.", GC),
]


def test_corpus_is_large_enough() -> None:
    """The corpus holds at least 40 replies, with valid and invalid ones and every option."""
    assert len(CORPUS) >= 40
    expected = {e for _, e in CORPUS}
    assert expected == {None, *range(7)}


@pytest.mark.parametrize(("reply", "expected"), CORPUS, ids=[f"{i:02d}" for i in range(len(CORPUS))])
def test_corpus(reply: str, expected: int | None) -> None:
    """Each realistic reply parses to its expected option (or is invalid, with a reason)."""
    got = parse_correctness(reply, STATEMENT)
    assert got.option == expected, f"{reply!r} -> {got}"
    if expected is None:
        assert not got.valid and got.reason
    else:
        assert got.valid and got.label == OPTIONS[expected] and got.reason == ""


def test_invalid_reasons_say_why() -> None:
    """The reason names the failure: empty, nothing named, hedges only, two options."""
    assert parse_correctness("").reason == "empty reply"
    assert parse_correctness(None).reason == "empty reply"
    assert parse_correctness("I cannot judge that.").reason == "refusal: the reply declines to answer"
    assert parse_correctness("I cannot decide on that.").reason == "refusal: the reply declines to answer"
    assert parse_correctness("It is not always correct.").reason == "only negated or hedged options"
    assert parse_correctness("partially correct or wrong").reason == "ambiguous: 'Partially correct' and 'Wrong'"


def test_statement_words_are_not_answers() -> None:
    """Things that "go wrong" are an event, not a verdict, with the statement cut out or not."""
    reply = "Men tend to expect that things will go wrong."
    assert parse_correctness(reply).reason == "no option named"
    assert parse_correctness(reply, STATEMENT).reason == "no option named"


def test_listed_options_reads_an_instruction_order() -> None:
    """The option order of an instruction is read back, most specific phrase first."""
    text = ("Is it partially wrong, correct, neither correct nor wrong, generally incorrect, wrong, partially correct, "
            "or generally correct?")
    assert listed_options(text) == [PW, C, N, GW, W, PC, GC]
