"""Answer parsing: option letters from logprobs, free-text replies of small chat models, SVS value picks."""

from __future__ import annotations

import pytest

from analysis.llm.options import (ParsedOption, option_after_paren, option_from_logprobs, parse_after_marker,
                                  parse_option_text)
from analysis.methods.values.instruments import Item
from analysis.methods.values.questionnaire import parse_svs_pick

# PVQ labels as displayed after a permutation: A..F
LABELS = ["Like me", "Not like me at all", "Somewhat like me", "Very much like me", "Not like me", "A little like me"]
SVS_LABELS = ["-1 - opposed to my values", "0 - not important", "1", "2", "3 - important", "4", "5",
              "6 - very important", "7 - of supreme importance"]


# -- logprob mode -----------------------------------------------------------------------------

def test_logprob_variants_merged_by_max() -> None:
    """' A', 'A' and '(A' all count for A with the best of their logprobs."""
    parsed = option_from_logprobs({" A": -2.0, "A": -1.0, "(A": -3.0, " B": -1.5}, 6)
    assert (parsed.index, parsed.logprob, parsed.valid) == (0, -1.0, True)
    parsed = option_from_logprobs({" A": -2.0, "(A": -1.2, " B": -1.5}, 6)
    assert (parsed.index, parsed.logprob) == (0, -1.2)


def test_logprob_non_letters_ignored() -> None:
    """Tokens that are not a single option letter ('The', '1', 'AB', '**') are skipped."""
    parsed = option_from_logprobs({"The": -0.1, "1": -0.2, "AB": -0.3, "**": -0.4, " D": -3.0}, 6)
    assert (parsed.index, parsed.logprob) == (3, -3.0)


def test_logprob_letters_beyond_options_ignored() -> None:
    """With 6 options, G..Z are not options even when they are likelier."""
    parsed = option_from_logprobs({"G": -0.1, " Z": -0.2, " F": -2.0}, 6)
    assert (parsed.index, parsed.logprob) == (5, -2.0)


def test_logprob_no_letter_is_invalid() -> None:
    """No option letter among the top tokens, or no logprobs at all -> invalid with a reason."""
    parsed = option_from_logprobs({"The": -0.1, "G": -0.5}, 6)
    assert not parsed.valid and parsed.index is None
    assert parsed.reason == "no option letter among the top 2 tokens"
    assert option_from_logprobs(None, 6).reason == "no logprobs in reply"
    assert option_from_logprobs({}, 6).reason == "no logprobs in reply"


def test_logprob_ties_broken_by_first_letter() -> None:
    """Equal logprobs -> the earliest letter, whatever the token order."""
    assert option_from_logprobs({" C": -1.0, "B": -1.0, " E": -1.0}, 6).index == 1
    assert option_from_logprobs({" E": -1.0, "B": -1.0, " C": -1.0}, 6).index == 1


# -- text mode --------------------------------------------------------------------------------

VALID_REPLIES = [
    ("C", "C"),
    ("C.", "C"),
    ("(C)", "C"),
    ("c", "C"),
    ("   c  ", "C"),
    ("**C**", "C"),
    ("'D'", "D"),
    ("D!", "D"),
    ("C) Somewhat like me", "C"),
    ("C. Somewhat like me\n\nAs a farmer I do enjoy trying new ideas.", "C"),
    ("**B. Not like me at all**", "B"),
    ("D - Very much like me", "D"),
    ("Answer: D", "D"),
    ("My answer is B", "B"),
    ("The answer is (E).", "E"),
    ("Option F: A little like me", "F"),
    ("My answer: D (Very much like me)", "D"),
    ("I'd say B.", "B"),
    ("I choose A.", "A"),
    ("I'm going with F", "F"),
    ("Hmm, B or C? I'd say B.", "B"),
    ("As a farmer, I value hard work. I'd say C.", "C"),
    ("I would say this is very much like me.", "D"),
    ("Very much like me!", "D"),
    ("Yes, that's very much like me!", "D"),
    ("Not like me at all, I prefer to stick to my routines.", "B"),
    ("It's not like me.", "E"),
    ("Not like me.", "E"),
    ("Like me.", "A"),
    ("Honestly? Like me.", "A"),
    ("A little like me", "F"),  # "A" starts the label, it is not letter A
    ("a little like me, honestly", "F"),
    ("A Little Like Me", "F"),
    ("I would say A little like me.", "F"),
    ("I think this is somewhat like me.", "C"),  # "I" is a word, not letter I
    ("A person like me would say it is somewhat like me.", "C"),  # "A" is a word, not letter A
    ("I am not a farmer, but this is somewhat like me.", "C"),
    ("e.g. I like new ideas, so somewhat like me", "C"),
    ("Answer: B. No wait, answer: C.", "C"),  # the last committed answer wins (analysis.reading)
    ("(B) Not like me at all - sorry, I mean (E) Not like me.", "E"),
    ("(B)\n\nActually, on reflection, that overstates it. (C)", "C"),
    ("(C) Somewhat like me. Actually, I really am like that.", "C"),  # emphasis: no other answer after it
]

INVALID_REPLIES = [
    ("I am a farmer", "no option letter or label found"),
    ("", "empty reply"),
    ("   \n", "empty reply"),
    ("A and B", "several option letters named (A, B)"),
    ("B or C, hard to say", "several option letters named (B, C)"),
    ("G", "no option letter or label found"),
    ("Definitely the fourth one.", "no option letter or label found"),
    ("A. Like me\nB. Not like me at all\nC. Somewhat like me", "options listed without a pick"),
    ("C) Like me", "letter and label disagree: C is 'Somewhat like me', the reply says 'Like me'"),  # issue 42
    ("(A) - no, scratch that, I can't really pick one of these.", "answer withdrawn, none given after"),
    ("I can't decide between B and C.", "refusal: the reply declines to answer"),
    ("Somewhere around B or C.", "hedge: 'Somewhere around B or C' names no single answer"),
    ("That's somewhat like me, but not very much like me.", "several options named"),
    ("This is not at all like me.", "option label 'Like me' is negated"),
    ("I don't think it's like me.", "option label 'Like me' is negated"),
    ("Not very much like me.", "option label 'Very much like me' is negated"),
    ("A little like me (C)", "letter and label disagree: C is 'Somewhat like me', the reply says 'A little like me'"),
    ("I'd say like me, so (C)", "ambiguous: 'A in the reply' and 'C after 'so''"),
]


@pytest.mark.parametrize("reply, letter", VALID_REPLIES)
def test_text_reply_parsed(reply: str, letter: str) -> None:
    """A realistic reply maps to the option the model meant."""
    parsed = parse_option_text(reply, LABELS)
    assert parsed.valid, parsed.reason
    assert "ABCDEF"[parsed.index] == letter


@pytest.mark.parametrize("reply, reason", INVALID_REPLIES)
def test_text_reply_invalid(reply: str, reason: str) -> None:
    """Unusable or ambiguous replies are invalid with a reason, never guessed."""
    parsed = parse_option_text(reply, LABELS)
    assert (parsed.index, parsed.reason) == (None, reason)


def test_enough_realistic_replies() -> None:
    """The suite covers at least 25 realistic replies."""
    assert len(VALID_REPLIES) + len(INVALID_REPLIES) >= 25


def test_label_nesting() -> None:
    """'not like me' / 'like me' / 'very much like me' / 'not like me at all' are told apart."""
    assert parse_option_text("not like me", LABELS).index == 4
    assert parse_option_text("like me", LABELS).index == 0
    assert parse_option_text("very much like me", LABELS).index == 3
    assert parse_option_text("not like me at all", LABELS).index == 1
    assert parse_option_text("somewhat like me", LABELS).index == 2


@pytest.mark.parametrize("reply, index", [
    ("I", 8), ("I.", 8), ("I'd say I.", 8), ("H", 7), ("Answer: I", 8),
    ("I would rate it 6 - very important.", 7),
    ("I think this is very important to me.", None),
    ("Sure!\nI think it's important.", None),
])
def test_nine_options_letter_i(reply: str, index: int | None) -> None:
    """With 9 options (SVS) 'I' is a valid letter, but 'I think'/'I would' are words."""
    assert parse_option_text(reply, SVS_LABELS).index == index


# -- SVS picks (analysis.methods.values.questionnaire.parse_svs_pick) ---------------------------------

# SVS-like list written for this test, with nested names (POWER in SOCIAL POWER, two SECURITYs)
SVS_NAMES = [
    "EQUALITY (equal chances for everyone)", "SOCIAL POWER (commanding other people)", "WEALTH (money and possessions)",
    "POWER (strength over things)", "FREEDOM (acting and thinking as I wish)", "NATIONAL SECURITY (a safe country)",
    "FAMILY SECURITY (safe loved ones)", "HONEST (sincere)", "HEALTHY (free of illness)", "A WORLD AT PEACE (no war)",
]
SVS_ITEMS = [Item(id=f"s{n}", value=None, text={"any": name}, list_no=1) for n, name in enumerate(SVS_NAMES, 1)]


@pytest.mark.parametrize("reply, expected", [
    ("3. WEALTH", "WEALTH"),
    ("3. WEALTH (money and possessions)", "WEALTH"),
    ("The most important value to me is FREEDOM.", "FREEDOM"),
    ("**5. FREEDOM**", "FREEDOM"),
    ("freedom", "FREEDOM"),
    ("2. SOCIAL POWER (commanding other people)", "SOCIAL POWER"),  # POWER inside it is not a second name
    ("POWER", "POWER"),
    ("NATIONAL SECURITY", "NATIONAL SECURITY"),
    ("5", "FREEDOM"),
    ("Number 5", "FREEDOM"),
    ("#5.", "FREEDOM"),
    ("To be honest, FREEDOM matters most to me.", "FREEDOM"),  # 'honest' in prose vs the spelled-out name
    ("I value being healthy, but HONEST comes first.", "HONEST"),
    ("A WORLD AT PEACE, without a doubt.", "A WORLD AT PEACE"),
])
def test_svs_pick_valid(reply: str, expected: str) -> None:
    """A reply naming one value (by name or number) picks that item."""
    item, reason = parse_svs_pick(reply, SVS_ITEMS)
    assert reason is None and item is not None
    assert item.text["any"].split(" (")[0] == expected


@pytest.mark.parametrize("reply, reason", [
    ("WEALTH and FREEDOM", "several values named"),
    ("POWER, and also SOCIAL POWER", "several values named"),
    ("security", "no value of the list named"),
    ("None of them.", "no value of the list named"),
    ("42", "no value of the list named"),
    ("", "empty reply"),
    (None, "empty reply"),
])
def test_svs_pick_invalid(reply: str | None, reason: str) -> None:
    """No value, an unknown number, or two values named -> no item and a reason."""
    assert parse_svs_pick(reply, SVS_ITEMS) == (None, reason)


def test_svs_pick_excludes_already_picked() -> None:
    """The value already picked as most important is ignored when picking the most opposed one."""
    reply = "I already chose WEALTH, so the most opposed one is SOCIAL POWER."
    item, reason = parse_svs_pick(reply, SVS_ITEMS, exclude={"s3"})
    assert reason is None and item is not None and item.id == "s2"
    assert parse_svs_pick("WEALTH", SVS_ITEMS, exclude={"s3"}) == (None, "no value of the list named")
    assert parse_svs_pick("3", SVS_ITEMS, exclude={"s3"}) == (None, "no value of the list named")
    # an excluded longer name still hides the shorter one inside it
    item, _ = parse_svs_pick("Having picked SOCIAL POWER before, now WEALTH.", SVS_ITEMS, exclude={"s2"})
    assert item is not None and item.id == "s3"


# -- the letter after "(" (values, SVS letters A-I) ----------------------------------------------------------

SVS_LETTERS = 9  # -1 .. 7


def test_after_paren_reads_the_second_position() -> None:
    """'(' first: the letter is the argmax over letter tokens at the second position; a bare 'I' there is option I."""
    positions = [{"(": -0.1, "I": -0.4, "A": -0.6}, {"E": -0.3, "I": -0.9, " A": -1.2, "word": -0.1}]
    assert option_after_paren(positions, SVS_LETTERS) == ParsedOption(4, logprob=-0.3)
    assert option_after_paren([{"(": -0.1}, {"I": -0.2, "B": -0.5}], SVS_LETTERS).index == 8


@pytest.mark.parametrize("opening", ["I", "A", " I", "He", "The"])
def test_after_paren_never_reads_a_sentence_opening(opening: str) -> None:
    """'I think...', 'A little like me', 'He is...' (replies the embedded model gives) open with a word: invalid,
    even when '(' and letters are close behind in the first position's top logprobs."""
    parsed = option_after_paren([{opening: -0.2, "(": -0.3, "B": -0.5}, {"B": -0.1}], SVS_LETTERS)
    assert not parsed.valid and parsed.reason == f"reply opens with {opening!r}, not '(': no letter read"


def test_after_paren_merged_tokens_and_limits() -> None:
    """A merged '(C' token: argmax over the '(X' tokens of the first position; letters past the options don't count."""
    assert option_after_paren([{"(C": -0.2, "(": -0.9, "(A": -1.0, "(Z": -0.1}], SVS_LETTERS) == ParsedOption(2, logprob=-0.2)
    assert option_after_paren([{"(": -0.1}], SVS_LETTERS).reason == "reply stopped after '('"
    assert option_after_paren([{"(": -0.1}, {"Z": -0.1, "x": -0.2}], SVS_LETTERS).reason == "no option letter after '('"
    assert option_after_paren(None, SVS_LETTERS).reason == "no logprobs in reply"


# -- chain of thought: after the single "Answer:" marker -----------------------------------------------------

COT_LABELS = ["Not like me at all", "Not like me", "A little like me", "Somewhat like me", "Like me", "Very much like me"]


@pytest.mark.parametrize(("reply", "expected"), [
    ("The person values tradition, and so do I.\nAnswer: (E)", 4),
    ("Step 1: ... Step 2: I am ambitious.\n\n**Answer:** (B)", 1),
    ("I think about it.\nanswer: (A) Not like me at all", 0),  # any case, and German, French, Spanish, Chinese
    ("Me parezco mucho.\n\nRespuesta: (F)", 5),
    ("Answer: (C)\nOn reflection, Answer: (D)", 3),  # the last committed answer wins
])
def test_after_marker_reads_the_answer(reply: str, expected: int) -> None:
    assert parse_after_marker(reply, COT_LABELS).index == expected


@pytest.mark.parametrize(("reply", "reason"), [
    ("I would pick (C) because it fits.", 'no "Answer:" marker'),
    ("Answer: (C)\nAnswer: (D)", '2 "Answer:" markers'),
    ("Answer: I cannot say " + "x" * 60 + " (C)", "after the marker: no option letter or label found"),
    ("", "empty reply"),
])
def test_after_marker_invalid_with_a_reason(reply: str, reason: str) -> None:
    """No marker, two markers, or nothing in the 40 characters after it: invalid (the reference draws at random)."""
    parsed = parse_after_marker(reply, COT_LABELS)
    assert not parsed.valid and parsed.reason == reason
