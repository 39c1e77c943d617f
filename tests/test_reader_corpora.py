"""Every reply reader against its hand-labelled corpus (``tests/methods/<m>/corpora/<kind>.jsonl``): no wrong value,
at least 90 % of the answerable replies read, invalid reasons as labelled; and the figures docs/readers.md and the pages
show (``data/readers/measured.json``, written by ``bench/bench_parsers.py --write``) are today's."""

from __future__ import annotations

import json

import pytest

from analysis.reader_quality import MEASURES_FILE, Case, measure
from analysis.methods.base import Reader, Reading
from tests.reader_corpora import (ANCHORS_PRESENT, READERS_DOC, TABLE_END, TABLE_START, cases, corpus_path, readers,
                                  shipped_figures, table_row)

READERS = readers()


@pytest.mark.parametrize("method, reader", READERS, ids=[r.kind for _, r in READERS])
def test_reader_reads_its_corpus(method: str, reader) -> None:
    assert corpus_path(method, reader.kind).exists(), f"{reader.kind} has no labelled corpus"
    labelled = cases(method, reader.kind)
    assert len(labelled) >= 10 and any(c.answerable for c in labelled)
    got = measure(reader, labelled)
    assert got.wrong == 0 and not [f for f in got.failures if f.startswith("reason")], "\n".join(got.failures)
    assert got.read_share >= 0.9, "\n".join(got.failures)


def test_measure_counts_wrong_and_missed() -> None:
    """The counting itself: a reader that returns 4 for everything."""
    four = Reader("four", "always 4", lambda reply, finish, context: Reading(True, 4))
    none = Reader("none", "never", lambda reply, finish, context: Reading(False, None, "no"))
    labelled = [Case("a", None, {}, 4, "form", "x:1"), Case("b", None, {}, 5, "form", "x:2"),
                Case("c", None, {}, None, "form", "x:3")]
    m = measure(four, labelled)
    assert (m.n, m.answerable, m.read_right, m.wrong, m.missed, m.rightly_invalid) == (3, 2, 1, 2, 0, 0)
    m = measure(none, labelled)
    assert (m.read_right, m.wrong, m.missed, m.rightly_invalid, m.read_share) == (0, 0, 2, 1, 0.0)


@pytest.mark.skipif(not ANCHORS_PRESENT, reason="../shared/anchors not present: the shipped figures count its replies")
def test_shipped_figures_are_todays() -> None:
    shipped = json.loads(MEASURES_FILE.read_text(encoding="utf-8"))["readers"]
    assert shipped == shipped_figures(), (
        "data/readers/measured.json is stale: run .venv/bin/python bench/bench_parsers.py --write")


def test_the_readers_doc_shows_the_shipped_figures() -> None:
    """The table of readers in ``docs/readers.md`` (between its markers) is the shipped measurement, tuned and held-out
    columns (regenerate both after a reader or corpus changes). The held-out figures are shown, never a gate."""
    text = READERS_DOC.read_text(encoding="utf-8")
    table = text.split(TABLE_START, 1)[1].split(TABLE_END, 1)[0]
    shipped = json.loads(MEASURES_FILE.read_text(encoding="utf-8"))["readers"]
    for kind, m in shipped.items():
        assert table_row(kind, m) in table, f"docs/readers.md lacks the current row for {kind}: {table_row(kind, m)}"
