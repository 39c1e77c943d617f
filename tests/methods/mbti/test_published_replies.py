"""The verdict parser on the published ChatGPT-MBTI answer files (github Kali-Hac/ChatGPT-MBTI @ a50bac9, MIT;
read from ``../shared/anchors/chatgpt_mbti``, never copied here).

``published_reply_labels.csv`` labels, by reading, every reply the parser once left invalid (169 of 1,080; most of
them "It is generally wrong to say that ..." verdicts) and a random sample of 60 others: the verdict a careful
reader sees, or ``invalid`` with why (a refusal, "you repeated the statement", two options named together); and
(issue 56) the replies the precision rule leaves ambiguous that no other label covers. Rows name the file, subject
and statement; the reply text stays in the anchors.

``published_disagreement_labels.csv`` (issue 56) labels, blind (the labeller saw the statement and the reply, never a
reading), every reply on which RoleScope's reader and the reference repository's own extraction differ
(``reference_verdict``: the keyword cascade of ``Crawler_16personalities.py:judge_main`` @ a50bac9) and every reply
whose reading in the demo store before issue 56 differed from a fresh import's (``demo_stored_differs``).
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
    assert len(labels) == 237 and sum(r["verdict"] == "invalid" for r in labels) == 26
    wrong = []
    for r in labels:
        row = parsed[(r["model"], r["file"], r["subject"], r["statement"])]
        got = OPTIONS[row["option_index"]] if row["valid"] else "invalid"
        if got != r["verdict"]:
            wrong.append(f"{r['model']}/{r['file']} {r['subject']} #{r['statement']}: {got} (reason {row.get('reason')}),"
                         f" labelled {r['verdict']}")
    assert not wrong, "\n".join(wrong)


def test_at_least_96_percent_of_published_replies_give_a_verdict(parsed) -> None:
    """The remaining invalid replies are exactly the labelled ones that give no verdict (refusals, hedges, and since
    issue 56 the replies that give two verdicts: "It is generally correct … So, it is partially correct")."""
    invalid = {k for k, row in parsed.items() if not row["valid"]}
    assert len(parsed) == 1080
    assert 1 - len(invalid) / len(parsed) >= 0.96
    labelled = {(r["model"], r["file"], r["subject"], r["statement"]) for r in _labels() + _disagreements()
                if r["verdict"] == "invalid"}
    assert invalid == labelled


DISAGREEMENTS = Path(__file__).with_name("published_disagreement_labels.csv")


def _disagreements() -> list[dict[str, str]]:
    with DISAGREEMENTS.open(newline="") as fh:
        return list(csv.DictReader(fh))


def reference_verdict(reply: str) -> str | None:
    """The reference's own extraction (``judge_main``): the first of these phrases the lower-cased reply contains."""
    text = reply.lower()
    cascade = [(("generally correct",), "Generally correct"), (("partially correct",), "Partially correct"),
               (("neither correct nor wrong",), "Neither correct nor wrong"),
               (("partially wrong", "partially incorrect"), "Partially wrong"),
               (("generally wrong", "generally incorrect"), "Generally wrong"), (("wrong", "incorrect"), "Wrong"),
               (("correct",), "Correct")]
    return next((verdict for phrases, verdict in cascade if any(p in text for p in phrases)), None)


def _scores(labels: list[dict[str, str]], readings: list[str | None]) -> dict[str, int]:
    """Answered, right (the labelled verdict), wrong (any other verdict, or one where the label is invalid), and the
    answerable labels: precision = right / answered, recall = right / answerable."""
    answered = sum(r is not None for r in readings)
    right = sum(r is not None and r == lab["verdict"] for lab, r in zip(labels, readings))
    return {"answered": answered, "right": right, "wrong": answered - right,
            "answerable": sum(lab["verdict"] != "invalid" for lab in labels)}


def test_rolescope_is_never_wrong_where_it_and_the_reference_disagree(parsed) -> None:
    """Every disagreement with the reference's extraction, and every reply the old demo store read otherwise, labelled
    blind: RoleScope gives 0 wrong values; the reference's cascade gives 37 (docs/readers.md)."""
    labels = _disagreements()
    assert len(labels) == 41
    assert sum("reference_differs" in r["why_labelled"] for r in labels) == 39
    assert sum("demo_stored_differs" in r["why_labelled"] for r in labels) == 6
    rows = [parsed[(r["model"], r["file"], r["subject"], r["statement"])] for r in labels]
    ours = [OPTIONS[row["option_index"]] if row["valid"] else None for row in rows]
    theirs = [reference_verdict(row["raw"]) for row in rows]
    wrong = [f"{lab['model']} {lab['subject']} #{lab['statement']}: {got}, labelled {lab['verdict']}"
             for lab, got in zip(labels, ours) if got is not None and got != lab["verdict"]]
    assert not wrong, "\n".join(wrong)
    assert _scores(labels, ours) == {"answered": 23, "right": 23, "wrong": 0, "answerable": 23}
    assert _scores(labels, theirs) == {"answered": 41, "right": 4, "wrong": 37, "answerable": 23}


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
