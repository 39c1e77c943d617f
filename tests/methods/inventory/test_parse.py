"""The inventory reply readers, worked by hand: ``number_from_text`` (tiers, the echoed scale, the label check in both
orders, hedges and invalid reasons) and ``number_from_logprobs`` (argmax over the scale's digit tokens)."""

from __future__ import annotations

import math

import pytest

from analysis.methods.inventory.parse import number_from_logprobs, number_from_text
from analysis.methods.inventory.prompts import item_prompt, option_of_number
from analysis.methods.inventory.readers import IPIP_LABELS, read_option

IPIP = list(IPIP_LABELS)
AGREE = ["Strongly disagree", "Disagree", "Somewhat disagree", "Neither agree nor disagree", "Somewhat agree", "Agree",
         "Strongly agree"]


def _number(reply: str, order: str = "ascending", labels: list[str] = IPIP) -> int | None:
    return number_from_text(reply, labels, order).number


def _reason(reply: str, order: str = "ascending", labels: list[str] = IPIP) -> str:
    read = number_from_text(reply, labels, order)
    assert not read.valid, f"{reply!r} read as {read.number}"
    return read.reason


@pytest.mark.parametrize("reply, number", [
    ("4", 4), ("4.", 4), ("**4**", 4), ("(2)", 2), ("`5`", 5), ("Two.", 2),
    ('{"rating": 5}', 5), ('```json\n{"rating": 3}\n```', 3), ('{"response": {"rating": 2}}', 2),
    ('{"rating": 4, "reason": "I love crowds', 4),
])
def test_the_whole_reply_is_the_number(reply: str, number: int) -> None:
    assert _number(reply) == number


@pytest.mark.parametrize("reply, number", [
    ("Rating: 4\nReason: I worry about my patients, probably 5 days a week.", 4),
    ("My rating for this persona would be 2.", 2),
    ("I would rate this statement a 4 out of 5, as I do tend to worry.", 4),
    ("I'd give it a three.", 3),
    ("Definitely not a 5. More like a 2.", 2),
    ("I'm a 5 on this one.", 5),
    ("I'm a 34-year-old nurse and I'd rate this 4", 4),
    ("I am 4 years into my career; I'd rate it 3", 3),
    ("1 - Very inaccurate\n2 - Moderately inaccurate\n3 - Neither\n\nMy answer: 4", 4),
])
def test_a_number_named_as_the_answer_wins_over_other_numbers(reply: str, number: int) -> None:
    assert _number(reply) == number


def test_the_echoed_scale_gives_no_number() -> None:
    """The prompt's own listing, echoed, names 1..5 and every label: none of them is an answer."""
    for order in ("ascending", "descending"):
        prompt = item_prompt(None, "Worry about things.", IPIP, order)
        assert _reason(prompt, order) == "no number or option label found"
        assert _number(prompt + " I would rate it a 2.", order) == 2
    assert _number("A 5 would mean very accurate and a 1 would mean very inaccurate. For me, I'd say 4.") == 4
    assert _reason("As an AI, I can't rate myself from 1 to 5.") == "refusal: the reply declines to answer"


@pytest.mark.parametrize("reply, order, number", [
    ("2 - Moderately accurate", "descending", 2),
    ("4 - Moderately accurate", "ascending", 4),
    ("Very accurate (1)", "descending", 1),
    ("I'd say moderately accurate (4).", "ascending", 4),
    ("Moderately accurate.", "ascending", 4),
    ("Moderately accurate.", "descending", 2),
    ("Very inaccurate. I never start conversations.", "descending", 5),
])
def test_number_and_label_are_read_on_the_order_asked(reply: str, order: str, number: int) -> None:
    assert _number(reply, order) == number


@pytest.mark.parametrize("reply, order, reason", [
    ("4 (very inaccurate)", "ascending", "number 4 ('moderately accurate') and label 'very inaccurate' disagree"),
    ("4 - Moderately accurate", "descending", "number 4 ('moderately inaccurate') and label 'moderately accurate'"),
    ("Moderately accurate (4)", "descending", "number 4 ('moderately inaccurate')"),
    ("I'd rate this a 5, very accurate.", "descending", "number 5 ('very inaccurate') and label 'very accurate'"),
])
def test_a_number_whose_label_the_reply_contradicts_is_invalid(reply: str, order: str, reason: str) -> None:
    assert _reason(reply, order).startswith(reason)


@pytest.mark.parametrize("reply, reason", [
    ("3 or 4", "two numbers given (3, 4)"),
    ("3, 4", "two numbers given (3, 4)"),
    ("3 – 4", "two numbers given (3, 4)"),
    ("Somewhere between 2 and 3.", "hedge: 'Somewhere between 2 and 3' names no single answer"),
    ("I would rate myself a 4, or maybe a 5.", "two numbers given (4, 5)"),
    ("Probably a 3, maybe a 4 on bad days.", "two numbers given (3, 4)"),
    ("4 - Moderately accurate\n5 - Very accurate", "several numbers given (4, 5)"),
    ("4.5", "4.5 is not one of the numbers 1-5"),
    ("6", "6 is outside the scale 1-5"),
    ("I'd give it a 0.", "0 is outside the scale 1-5"),
    ("-1", "numbers in passing (1), none given as the answer"),
    ("I am 45 years old and I have 3 children.", "numbers in passing (3), none given as the answer"),
    ("Not very accurate.", "a negated option label only"),
    ("Very accurate. Well, maybe moderately accurate.", "several option labels named"),
    ("Accurate.", "no number or option label found"),
    ("I am a 34-year-old nurse who works night shifts.", "no number or option label found"),
    ("   ", "empty reply"),
])
def test_no_single_answer_is_invalid_with_its_reason(reply: str, reason: str) -> None:
    assert _reason(reply) == reason


def test_a_hedge_beside_the_answer_but_not_on_it_is_no_hedge() -> None:
    assert _number("I would rate this a 4 because I often worry whether I got 1 or 2 things wrong.") == 4


def test_a_negated_label_reads_only_beside_one_plain_label() -> None:
    assert _number("I wouldn't say very accurate, more like moderately accurate.") == 4
    assert _reason("Not moderately accurate.", "descending") == "a negated option label only"


def test_a_seven_option_scale_reads_the_longest_label_and_its_own_range() -> None:
    assert _number("Somewhat agree", labels=AGREE) == 5
    assert _number("Disagree", "descending", AGREE) == 6
    assert _number("Neither agree nor disagree", labels=AGREE) == 4
    assert _number("2 - Agree", "descending", AGREE) == 2
    assert _reason("2 - Somewhat agree", "descending", AGREE).startswith("number 2 ('agree')")
    assert _reason("8", labels=AGREE) == "8 is outside the scale 1-7"
    assert _reason("I don't agree.", labels=AGREE) == "a negated option label only"


@pytest.mark.parametrize("reply, order, option", [
    ("4", "ascending", 3), ("4", "descending", 1), ("1", "descending", 4), ("Very accurate.", "descending", 4),
])
def test_the_registered_reader_returns_the_canonical_option(reply: str, order: str, option: int) -> None:
    read = read_option(reply, "stop", {"order": order})
    assert (read.valid, read.value) == (True, option)
    assert option_of_number(_number(reply, order), 5, order) == option


def test_the_registered_reader_names_a_bad_order() -> None:
    read = read_option("4", "stop", {"order": "sideways"})
    assert (read.valid, read.reason) == (False, "order 'sideways': ascending or descending")


def test_logprobs_take_the_likeliest_digit_of_the_scale() -> None:
    top = {" 4": -0.4, "4": -1.9, "3": -1.2, "6": -0.1, "Very": -0.05}
    read = number_from_logprobs(top, 5)
    assert (read.number, read.logprob) == (4, -0.4)  # "6" is off the scale, "Very" no digit
    assert number_from_logprobs({"(2": -0.7, "2.": -0.3, "5": -0.5}, 5).number == 2


def test_logprobs_tie_goes_to_the_lower_digit() -> None:
    read = number_from_logprobs({"3": math.log(0.4), "2": math.log(0.4)}, 5)
    assert read.number == 2


def test_logprobs_without_a_scale_digit_are_invalid() -> None:
    assert number_from_logprobs(None, 5).reason == "no logprobs in reply"
    assert number_from_logprobs({}, 5).reason == "no logprobs in reply"
    assert number_from_logprobs({"I": -0.1, "7": -0.2, "0": -1.0}, 5).reason == "no number 1-5 among the top 3 tokens"
    assert number_from_logprobs({"7": -0.2}, 7).number == 7
