"""Game payoffs and archetypes; amount extraction and validation; JSON beliefs and forecasts with pydantic."""

from __future__ import annotations

import pytest

from analysis.methods.trust.game import play_round, trustee_return
from analysis.methods.trust.parse import (
    canonical_ranking, extract_amount, extract_json, match_level, parse_belief, parse_forecast, thought_of,
)
from analysis.methods.trust.personas import BY_KEY

AGE = BY_KEY["age"].levels
POLITICS = BY_KEY["political_views"].levels


def test_archetype_returns_min_k_and_tripled() -> None:
    """T_k returns min(k, 3·sent): sending 0 returns 0; T_5 with $1 sent returns $3 (all it got); else $k."""
    table = {(k, s): trustee_return(k, s) for k in (1, 3, 5) for s in (0, 1, 2, 10)}
    assert table == {(1, 0): 0, (1, 1): 1, (1, 2): 1, (1, 10): 1, (3, 0): 0, (3, 1): 3, (3, 2): 3, (3, 10): 3,
                     (5, 0): 0, (5, 1): 3, (5, 2): 5, (5, 10): 5}
    r = play_round(2, 10, 4, 3)
    assert (r.round, r.sent, r.received, r.returned, r.earnings) == (2, 4, 12, 3, 9)
    assert play_round(1, 44, 0, 5).earnings == 44
    with pytest.raises(ValueError):
        play_round(1, 10, 11, 1)
    with pytest.raises(ValueError):
        trustee_return(-1, 2)


@pytest.mark.parametrize("reply, endowment, amount, how", [
    ("I trust people.\nAmount: $4", 10, 4, "marker"),
    ("If I send $10 it becomes $30. I will keep most.\n**Amount:** $3", 10, 3, "marker"),
    ("THOUGHT: risky.\nACTION: Send $7", 10, 7, "marker"),
    ("Final answer: 0", 10, 0, "marker"),
    ("Amount: $5.00", 10, 5, "marker"),
    ("I will send $2 of my $10, which becomes $6.", 10, 2, "send phrase"),
    ("I send everything: Amount: $44", 44, 44, "marker"),
    ("Amount: $1,00", 100, 100, "marker"),
    ("I'd send 50% of it", 10, 5, "send phrase"),
    ("Tripled, that is 30. I'd give 6", 10, 6, "send phrase"),
])
def test_amount_extraction(reply: str, endowment: int, amount: int, how: str) -> None:
    """The answer marker the prompt asks for outranks decision phrases; other numbers never count."""
    got = extract_amount(reply, endowment)
    assert (got.amount, got.how, got.reason) == (amount, how, None)


@pytest.mark.parametrize("reply, endowment, reason", [
    ("Amount: $12", 10, "'$12' is outside [0, 10]"),
    ("I send $12", 10, "'$12' is outside [0, 10]"),
    ("Amount: $4.50", 10, "'$4.50' is not a whole-dollar amount"),
    ("Amount: -$3", 10, "negative amount '-$3'"),
    ("I would rather not play.", 10, "no decision stated (no 'Amount: $X' line and no 'I send $X' phrase)"),
    ("Stub reply 28ab3f01: tell me more, in the 5th round", 10,
     "no decision stated (no 'Amount: $X' line and no 'I send $X' phrase)"),
    ("Tripled, that is 30. I'd give 6 or 7", 10, "no decision stated (no 'Amount: $X' line and no 'I send $X' phrase)"),
    ("Amount: $101", 100, "'$101' is outside [0, 100]"),
])
def test_invalid_amounts_are_recorded_not_fixed(reply: str, endowment: int, reason: str) -> None:
    """Out of range, fractional, negative or undecided amounts are invalid with the reason (never clipped or guessed)."""
    got = extract_amount(reply, endowment)
    assert got.amount is None and not got.valid and got.reason == reason


def test_json_found_in_fences_and_prose() -> None:
    """Fenced JSON, JSON followed by prose, a trailing comma; no object -> None; fence beats earlier braces."""
    assert extract_json('Sure!\n```json\n{"a": 1}\n```\nHope that helps.') == {"a": 1}
    assert extract_json('{"a": [1, 2], "b": "x"} That is my answer {not json}') == {"a": [1, 2], "b": "x"}
    assert extract_json('Here: {"a": [1, 2,], }') == {"a": [1, 2]}
    assert extract_json("The set {1, 2} then ```\n{\"k\": true}\n```") == {"k": True}
    assert extract_json("no json [1, 2]") is None
    assert extract_json('{"truncated": [1, 2') is None


def test_level_matching() -> None:
    """Case, dashes and spaces are normalised; a unique containment matches; ambiguous or unknown -> None."""
    assert match_level("18–29", AGE) == "18-29" and match_level(" 65+ ", AGE) == "65+"
    assert match_level("EXTREMELY LIBERAL.", POLITICS) == "Extremely liberal"
    assert match_level("Liberal", POLITICS) == "Liberal"  # exact beats containment
    assert match_level("moderate", POLITICS) == "Moderate"
    assert match_level("conservative-ish", POLITICS) == "Conservative"  # the only level it contains
    assert match_level("centrist", POLITICS) is None
    assert match_level("slightly", POLITICS) is None  # contained in two levels: ambiguous
    assert canonical_ranking(["65+", "45 - 64", "30-44", "18-29"], AGE) == ["65+", "45-64", "30-44", "18-29"]
    with pytest.raises(ValueError, match="missing levels"):
        canonical_ranking(["65+", "45-64"], AGE)
    with pytest.raises(ValueError, match="listed twice"):
        canonical_ranking(["65+", "65+", "30-44", "18-29"], AGE)


def test_trust_belief_validation() -> None:
    """A Tr belief needs every level once and 0 <= η² <= 1; invalid replies carry a schema reason."""
    ok = parse_belief('```json\n{"ranking": ["65+", "45-64", "30-44", "18-29"], "effect_size": 0.04, '
                      '"explanation": "older people trust more"}\n``` Note: rough.', "Ctx+Tr", AGE, 10)
    assert ok.valid and ok.ranking == ["65+", "45-64", "30-44", "18-29"] and ok.effect_size == 0.04
    alias = parse_belief('{"ranking": ["18-29", "30-44", "45-64", "65+"], "eta_squared": "0.1"}', "NoCtx+Tr", AGE, 10)
    assert alias.valid and alias.effect_size == 0.1 and alias.explanation == ""
    cases = {
        '{"ranking": ["65+", "45-64", "30-44"], "effect_size": 0.1}': "schema: ranking: missing levels: ['18-29']",
        '{"ranking": ["65+", "45-64", "30-44", "18-29"], "effect_size": 1.5}':
            "schema: effect_size: Input should be less than or equal to 1",
        '{"ranking": ["65+", "45-64", "30-44", "18-29"]}': "schema: effect_size: Field required",
        "I think older people are more trusting.": "no JSON object in the reply",
    }
    for reply, reason in cases.items():
        got = parse_belief(reply, "Ctx+Tr", AGE, 10)
        assert not got.valid and got.reason == reason and got.ranking is None


def test_dollar_belief_validation_and_ranking() -> None:
    """Ctx+$: list or mapping form; ranking by predicted mean, descending; means outside [0, E] are invalid."""
    reply = ('{"groups": [{"level": "18-29", "mean": 3, "sd": 2}, {"level": "30-44", "mean": 5, "sd": 2}, '
             '{"level": "45-64", "mean": 6.5, "sd": 1.5}, {"level": "65+", "mean": 4, "sd": 3}], "explanation": "x"}')
    got = parse_belief(reply, "Ctx+$", AGE, 10)
    assert got.valid and got.ranking == ["45-64", "30-44", "65+", "18-29"]
    assert got.groups == {"18-29": (3.0, 2.0), "30-44": (5.0, 2.0), "45-64": (6.5, 1.5), "65+": (4.0, 3.0)}
    mapping = parse_belief('{"groups": {"18-29": {"mean": 2, "sd": 1}, "30-44": {"mean": 2, "sd": 1}, '
                           '"45-64": {"mean": 1, "sd": 1}, "65+": {"mean": 9, "sd": 0}}}', "Ctx+$", AGE, 10)
    assert mapping.valid and mapping.ranking == ["65+", "18-29", "30-44", "45-64"]  # tie keeps level order
    too_big = parse_belief(reply.replace('"mean": 6.5', '"mean": 16.5'), "Ctx+$", AGE, 10)
    assert not too_big.valid and "mean 16.5 for '45-64' is outside [0, 10]" in too_big.reason
    negative_sd = parse_belief(reply.replace('"sd": 3', '"sd": -1'), "Ctx+$", AGE, 10)
    assert not negative_sd.valid and negative_sd.reason.startswith("schema: groups.3.sd")


def test_forecast_validation() -> None:
    """Every round 1..R once, whole amounts in [0, E] ('$3' and 3.0 accepted); a bare list of sends is accepted."""
    ok = parse_forecast('{"forecasts": [{"round": 2, "send": "$3", "explanation": "b"}, {"round": 1, "send": 5.0}]}', 2, 10)
    assert ok.valid and ok.sends == [5, 3] and ok.explanations == ["", "b"]
    assert parse_forecast('```json\n{"forecasts": [1, 2, 3]}\n```', 3, 10).sends == [1, 2, 3]
    bad = {
        '{"forecasts": [{"round": 1, "send": 3}]}': "rounds [1]: expected each of 1..2 once",
        '{"forecasts": [{"round": 1, "send": 3}, {"round": 2, "send": 12}]}': "round 2: $12 is outside [0, 10]",
        '{"forecasts": [{"round": 1, "send": 3.5}, {"round": 2, "send": 1}]}': "forecasts.0.send",
        "I will send 3 every round": "no JSON object",
    }
    for reply, reason in bad.items():
        got = parse_forecast(reply, 2, 10)
        assert not got.valid and reason in got.reason and got.sends is None


def test_thought_is_split_from_action() -> None:
    """THOUGHT text is kept without the ACTION line."""
    assert thought_of("THOUGHT: they returned $3 twice.\nACTION: Send $2") == "they returned $3 twice."
    assert thought_of("Send $2") is None


# Replies of the embedded model (SmolLM2-135M, our own data) to the numeric prompt, cut at 300 characters: none is a
# bare number; App. E's first integer would have stored 3, 10 and 1.
REAL_NUMERIC_REPLIES = [
    ("To solve this problem, we need to break it down step by step.\n\nFirst, let's find the total amount sent to Player "
     "B.\n\nThe amount sent is tripled, so the total amount sent is tripled by 3.\n\nThe tripled amount is tripled by 3,"
     " so the tripled amount is tripled by 3 times 3, which is 9.\n\nThe tripled amou", "length"),
    ("You can solve this problem by breaking it down into a simple equation.\n\nThe total amount sent to Player B is "
     "tripled, so the equation would be:\n\n(10 x 3) + 3 = 33 + 3 = 36\n\nSo, the amount sent to Player B is 36.\n\nThe "
     "amount you send to Player B is 36.\n\nThe total amount sent to Player B is 36 + 3 = 4", "length"),
    ("You can solve this problem using the concept of division.\n\nTo solve this problem, you need to find the total "
     "amount of money you need to send to Player B, which is 10.\n\nTo find the amount you need to send, you can divide "
     "10 by 10, which gives you 1.\n\nSo, you need to send 1 dollar to Player B.\n\nThe a", "stop"),
]


def test_first_integer_of_a_bare_numeric_answer() -> None:
    """App. E's scalar rule for --answer numeric: when the reply's first line is a bare number, its first number
    (\\$?(\\d+)), within [0, E]; a negative, a fraction or a number above E is invalid (no later number is tried). A reply
    that is not a bare number is read for a stated decision only; the embedded model's real replies decide nothing."""
    from analysis.methods.trust.parse import extract_first_integer

    cases = {"7": 7, "$4": 4, "0": 0, "10.": 10, "- 5": 5, "Answer: 5": 5, "**5**": 5, "3 dollars.": 3,
             "5\n\nBecause I trust people.": 5, "nothing": 0, "Half of it.": 5, "$5.00": 5, "Acht Dollar.": 8}
    for text, want in cases.items():
        got = extract_first_integer(text, 10)
        assert (got.amount, got.how) == (want, "first integer"), text
    assert extract_first_integer("I send 3 dollars and keep 7", 10).amount == 3  # a stated decision, not the first number
    assert extract_first_integer("5\n\nActually, make it 6.", 10).amount == 6  # the final answer (analysis.reading)
    for text, reason in {"-3": "'-3' is not a whole amount >= 0", "4.5": "'4.5' is not a whole amount >= 0",
                         "12": "'12' is outside [0, 10]", "12, no, 5": "not a bare number; no decision stated",
                         "$4.50": "'$4.50' is not a whole amount >= 0"}.items():
        got = extract_first_integer(text, 10)
        assert not got.valid and got.reason.startswith(reason), text
    assert extract_first_integer("Let me think", 10, "length").reason.startswith("not a bare number; truncated")
    assert extract_first_integer("1", 10, "length").reason.startswith("truncated")  # "1" may be the start of "10"
    assert extract_first_integer("44", 44).amount == 44
    for reply, finish in REAL_NUMERIC_REPLIES:
        got = extract_first_integer(reply, 10, finish)
        assert not got.valid and got.reason.startswith("not a bare number"), reply[:60]


def test_numeric_answer_prompt() -> None:
    """--answer numeric asks for a bare whole number instead of reasoning ending in 'Amount: $X'."""
    from analysis.methods.trust.prompts import role_messages

    numeric = role_messages("Age: 65+", 10, answer="numeric")[1]["content"]
    assert numeric.endswith("How much do you send to Player B? Answer as yourself with a single whole number of dollars "
                            "from 0 to 10 and nothing else.") and "Amount:" not in numeric
    assert "Amount: $X" in role_messages("Age: 65+", 10)[1]["content"]
