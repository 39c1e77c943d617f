"""The verdict parser on the published ChatGPT-MBTI answer files (github Kali-Hac/ChatGPT-MBTI @ a50bac9, MIT;
read from ``../shared/anchors/chatgpt_mbti``, never copied here).

``published_reply_labels.csv`` labels, by reading, every reply the parser once left invalid (169 of 1,080; most of
them "It is generally wrong to say that ..." verdicts) and a random sample of 60 others: the verdict a careful
reader sees, or ``invalid`` with why (a refusal, "you repeated the statement", two options named together). Rows
name the file, subject and statement; the reply text stays in the anchors.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from analysis.methods.mbti import OPTIONS
from analysis.methods.mbti.importer import parse_answer_file

ANCHORS = Path(__file__).resolve().parents[4] / "shared" / "anchors" / "chatgpt_mbti"
LABELS = Path(__file__).with_name("published_reply_labels.csv")
FILES = sorted(ANCHORS.glob("*/*.csv"))

pytestmark = pytest.mark.skipif(not FILES, reason="../shared/anchors/chatgpt_mbti not present")


@pytest.fixture(scope="module")
def parsed() -> dict[tuple[str, str, str, str], dict]:
    """(model folder, file, subject, statement) -> its mbti_answers row, for every published reply."""
    out = {}
    for path in FILES:
        for row in parse_answer_file(path, path.read_bytes()).rows:
            if row.get("reason") != "not in file":
                out[(path.parent.name, path.name, row["subject"], str(row["statement_id"]))] = row
    return out


def _labels() -> list[dict[str, str]]:
    with LABELS.open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_every_labelled_reply_parses_to_its_verdict(parsed) -> None:
    labels = _labels()
    assert len(labels) == 229 and sum(r["verdict"] == "invalid" for r in labels) == 17
    wrong = []
    for r in labels:
        row = parsed[(r["model"], r["file"], r["subject"], r["statement"])]
        got = OPTIONS[row["option_index"]] if row["valid"] else "invalid"
        if got != r["verdict"]:
            wrong.append(f"{r['model']}/{r['file']} {r['subject']} #{r['statement']}: {got} (reason {row.get('reason')}),"
                         f" labelled {r['verdict']}")
    assert not wrong, "\n".join(wrong)


def test_at_least_98_percent_of_published_replies_give_a_verdict(parsed) -> None:
    """The remaining invalid replies are exactly the labelled ones that give no verdict."""
    invalid = {k for k, row in parsed.items() if not row["valid"]}
    assert len(parsed) == 1080
    assert 1 - len(invalid) / len(parsed) >= 0.98
    assert invalid == {(r["model"], r["file"], r["subject"], r["statement"]) for r in _labels() if r["verdict"] == "invalid"}


def test_framed_verdicts_and_their_limits() -> None:
    """The commonest published phrasing ("it is generally wrong to say that ..."), written here in our own words."""
    from analysis.methods.mbti.parse import parse_correctness

    C, GC, PC, N, PW, GW, W = range(7)
    cases = [
        ("It is generally wrong to say that surgeons dislike routine.", GW),
        ("It's partially correct to claim that pilots enjoy crowds, since some do.", PC),
        ("It is neither correct nor wrong to make a blanket statement about nurses.", N),
        ("It would generally be wrong to assume that all cooks are impatient.", GW),
        ("It is not correct to say that farmers avoid risks.", W),
        ("It would be wrong to assume every chef is the same. Partially correct.", PC),  # the plain verdict wins
        ("It is neither correct nor wrong to say that. It cannot be classified as correct or wrong.", N),
        ("The statement is partially wrong or partially correct.", None),
        ("I'm sorry, you repeated the previous statement. Could you give a new one?", None),
    ]
    for text, expected in cases:
        assert parse_correctness(text).option == expected, text
