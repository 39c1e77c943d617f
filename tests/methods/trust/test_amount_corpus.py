"""Amount extraction on a corpus of replies: no reply stores an amount other than the one it decides.

Each case is (reply, finish_reason, expected amount or the start of the invalid reason). The first group are the
defects found in review (the last number of the reply taken for the decision); then decisions in words and digits,
zero, refusals, echoed templates, ReAct replies with a placeholder, truncated replies, and real replies of the
bundled demo (SmolLM2-135M, our own data). Endowment $10 unless the case says otherwise.
"""

from __future__ import annotations

import sqlite3

import pytest

from analysis.demo_store import bundled_demo_store
from analysis.methods.trust.parse import extract_amount

NONE_STATED = "no decision stated"
TEMPLATE = "template echoed"
TRUNCATED = "truncated"
AMBIGUOUS = "ambiguous"

CORPUS: list[tuple[str, str | None, int | str]] = [
    # found in review: the old fallback stored 7, 10, 10 and 1
    ("I will send 3 dollars and keep 7.", "stop", 3),
    ("I will not send anything. I keep my $10.", "stop", 0),
    ("Amount: $X where X is a whole number from 0 to 10", "stop", TEMPLATE),
    ("Player B returned $1 last round.\nTHOUGHT: I am not sure.\nACTION: Send $X", "stop", TEMPLATE),
    # markers, digits
    ("I like helping strangers.\nAmount: $6", "stop", 6),
    ("Amount: 4", "stop", 4),
    ("THOUGHT: Player B returned $3 each time, so sending pays.\nACTION: Send $5", "stop", 5),
    ("Final answer: 0", "stop", 0),
    ("I'd rather be careful with $10 that could become $30.\n**Amount:** $2", "stop", 2),
    ("Amount: $10", "stop", 10),
    # decision phrases, words and digits
    ("I'll send five dollars to Player B.", "stop", 5),
    ("I am going to send $6 to Player B.", "stop", 6),
    ("I decided to send $4, since trust is usually rewarded.", "stop", 4),
    ("After thinking it over I choose to send 8 dollars.", "stop", 8),
    ("I made a decision to send 10 dollars to Player B, a stranger, I will never meet.", "length", 10),  # demo reply
    ("I send $3.", "stop", 3),
    # zero
    ("I will send nothing; strangers cannot be trusted.", "stop", 0),
    ("I won't send anything to someone I have never met.", "stop", 0),
    ("I'll send $0 and keep the whole endowment.", "stop", 0),
    # hypotheticals and other numbers are not decisions
    ("If I send $10, Player B gets $30 and may return $15.", "stop", NONE_STATED),
    ("Sending money to strangers worries me. Tripled, $4 would be $12.", "stop", NONE_STATED),
    ("I have a total wealth of $10. I am a U.S. citizen. I have a total wealth of $10.", "stop", NONE_STATED),  # demo
    ("I decided to send 3 to Player B.", "stop", 3),  # a bare number going "to Player B" is the amount
    ("I'd send 50% of it.", "stop", 5),
    # refusals
    ("As an AI, I cannot take part in games involving money.", "stop", NONE_STATED),
    ("I would rather not play this game.", "stop", NONE_STATED),
    # several decisions
    ("I will send $5. On second thought, I will send $4.", "stop", 4),  # a correction replaces the first decision
    ("I will send $5. Or I will send $4.", "stop", AMBIGUOUS),
    ("Amount: $3\nAmount: $7", "stop", AMBIGUOUS),
    ("I will send $5. Amount: $5", "stop", 5),  # the marker is the decision; the phrase agrees
    # out of range, fractions
    ("Amount: $12", "stop", "'$12' is outside"),
    ("Amount: $4.50", "stop", "'$4.50' is not a whole-dollar amount"),
    # truncated
    ("I think about how much to trust a stranger and whether", "length", TRUNCATED),
    ("You are a man who has a graduate degree. You are a man who has a graduate", "length", TRUNCATED),  # demo
    ("Let me reason. I will send $4. Then", "length", 4),  # the decision came before the cut
    ("My decision is below.\nAmount: $1", "length", TRUNCATED),  # cut right after "$1": may be "$10"
    # expressions and quotations are not decisions (the first two: the demo's smollm2-t07, read as $10 until fixed)
    ("let's think of it in a bit of code:\n\n```\ndef calculate_three_payoffs(amount, multiplier):\n    return {\n"
     "        'Amount': 3 * amount + amount * multiplier,\n    }\n\ndef calculate_three_payoffs(amount, multiplier):\n"
     "    amount = 10 * max(1, 10", "length", TRUNCATED),
    ('So the last line is: "Amount: $10" is what you get.\n\nBut I\'ll keep going. I\'ll tell you about another game',
     "length", TRUNCATED),
    ("Amount: 10 * 3", "stop", NONE_STATED),
    ("Amount: $5-$6", "stop", NONE_STATED),
    ('Here is my answer line:\n"Amount: $5"', "stop", 5),  # a quoted marker that ends its line is the answer line
    ("Amount: **5**", "stop", 5),
    ("I will send **$4** to Player B.", "stop", 4),
]


@pytest.mark.parametrize("reply, finish_reason, expected", CORPUS)
def test_amount_is_the_one_decided(reply: str, finish_reason: str | None, expected: int | str) -> None:
    got = extract_amount(reply, 10, finish_reason)
    if isinstance(expected, int):
        assert (got.amount, got.reason) == (expected, None)
    else:
        assert got.amount is None and got.reason.startswith(expected), got.reason


def test_corpus_size() -> None:
    assert len(CORPUS) >= 30


def test_demo_store_stores_only_decided_amounts() -> None:
    """Every valid transfer or round of the bundled demo states the amount stored (re-derived from its raw replies)."""
    path = bundled_demo_store()
    if not path.exists():
        pytest.skip("no bundled demo store")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT t.raw, t.sent, t.valid, t.endowment, c.finish_reason FROM trust_transfers t JOIN calls c USING (cache_key)"
            " UNION ALL SELECT r.raw, r.sent, r.valid, r.endowment, c.finish_reason FROM trust_rounds r"
            " JOIN calls c USING (cache_key)").fetchall()
    finally:
        conn.close()
    assert rows
    for raw, sent, valid, endowment, finish in rows:
        got = extract_amount(raw, endowment, finish)
        assert (got.amount if got.valid else None) == (sent if valid else None), raw[:200]
