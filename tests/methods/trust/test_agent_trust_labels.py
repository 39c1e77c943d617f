"""RoleScope's trust-amount reader on agent-trust's published replies, against hand labels (issue 56).

``agent_trust_reply_labels.csv`` labels, blind (the labeller saw the reply and the $10 endowment, never a reading),
every reply on which RoleScope's reading and the authors' extracted amount differ (``amounts_differ``: 7) and a
seeded sample of 60 of the 260 replies only the authors read (``only_authors_read``: ``random.Random(56).sample``
over the readings before issue 56). A label is the amount the persona decides to give, or ``invalid`` (a range, a
hedge, "at least $7", a refusal, no decision). Rows name the file and persona; the replies stay in
``../shared/anchors/agent_trust`` (github camel-ai/agent-trust @ a3f14f0, Apache-2.0).

Precision = right / answered, recall = right / answerable labels; the figures are those of docs/readers.md.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from analysis.methods.trust.importer import parse_paths

ROOT = Path(__file__).resolve().parents[3]
RESULTS = ROOT.parent / "shared" / "anchors" / "agent_trust" / "agent_trust" / "No repeated res"
LABELS = Path(__file__).with_name("agent_trust_reply_labels.csv")

pytestmark = pytest.mark.skipif(not RESULTS.is_dir(), reason="../shared/anchors/agent_trust not present")


def _labels() -> list[dict[str, str]]:
    with LABELS.open(newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def rows() -> dict[tuple[str, str], dict]:
    """(file as condition/model/name, persona) -> its imported row, for every trust-game reply of the source."""
    return {("/".join(Path(f.path).parts[-3:]), r["persona_id"]): r for f in parse_paths([RESULTS]).files
            for r in f.rows}


def _label(row: dict[str, str]) -> float | None:
    return None if row["amount"] == "invalid" else float(row["amount"])


def _scores(labels: list[dict[str, str]], readings: list[float | None]) -> dict[str, int]:
    answered = [(lab, got) for lab, got in zip(labels, readings) if got is not None]
    right = sum(_label(lab) is not None and abs(got - _label(lab)) < 1e-9 for lab, got in answered)
    return {"answered": len(answered), "right": right, "wrong": len(answered) - right,
            "answerable": sum(_label(lab) is not None for lab in labels)}


def test_the_labelled_set() -> None:
    labels = _labels()
    assert len(labels) == 67
    assert sum(r["why_labelled"] == "amounts_differ" for r in labels) == 7
    assert sum(r["why_labelled"] == "only_authors_read" for r in labels) == 60
    assert len({(r["file"], r["persona"]) for r in labels}) == 67


def test_rolescope_gives_no_wrong_amount(rows) -> None:
    """0 wrong values; what RoleScope reads it reads right (precision 8 of 8), at a recall of 8 of 39."""
    labels = _labels()
    ours = [rows[(r["file"], r["persona"])]["sent"] if rows[(r["file"], r["persona"])]["valid"] else None
            for r in labels]
    wrong = [f"{lab['file']} #{lab['persona']}: read {got}, labelled {lab['amount']}"
             for lab, got in zip(labels, ours) if got is not None and (_label(lab) is None or abs(got - _label(lab)) > 1e-9)]
    assert not wrong, "\n".join(wrong)
    assert _scores(labels, ours) == {"answered": 8, "right": 8, "wrong": 0, "answerable": 39}


def test_the_authors_extraction_on_the_same_replies(rows) -> None:
    """The authors' amounts on the same 67 replies: every one answered, 32 right, 35 wrong (ranges, hedges and
    refusals given an amount, other sums taken for the decision)."""
    labels = _labels()
    theirs = [rows[(r["file"], r["persona"])]["source_amount"] if rows[(r["file"], r["persona"])]["source_valid"]
              else None for r in labels]
    assert _scores(labels, theirs) == {"answered": 67, "right": 32, "wrong": 35, "answerable": 39}
