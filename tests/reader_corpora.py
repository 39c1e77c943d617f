"""The labelled reply corpora of every reader, found by folder: ``tests/methods/<method>/corpora/<kind>.jsonl`` (format:
``analysis.reader_quality``). A method whose corpus names published replies by ``anchor`` reads them with its test
package's ``resolve_anchor`` (from ``../shared/anchors``; left out when the anchors are absent)."""

from __future__ import annotations

import importlib
from pathlib import Path

from analysis import methods
from analysis.methods.base import Reader
from analysis.reader_quality import Case, Measure, load_corpus, measure

HERE = Path(__file__).resolve().parent
#: the held-out corpora (``corpora/held_out*/README.md``), written and labelled by people who never read the readers;
#: the measure, never edited, never a gate. ``looked_at``: each set's failing replies were read, once it had been
#: measured fresh, to find the classes that failed, so today's figures overstate (each set's fresh figures are in
#: ``corpora/README.md``); a new set goes into a ``fresh`` group (and a column of the readers table) until it is looked at
CORPORA = HERE.parent / "corpora"
#: the doc holding the readers table, between these markers (``bench/bench_parsers.py --write`` writes it)
READERS_DOC = HERE.parent / "docs" / "readers.md"
TABLE_START, TABLE_END = "<!-- readers:start (bench/bench_parsers.py --write) -->", "<!-- readers:end -->"
HELD_OUT_SETS: dict[str, tuple[str, ...]] = {"looked_at": ("held_out", "held_out_b", "held_out_c", "held_out_d", "held_out_e")}
ANCHORS_PRESENT = (HERE.parents[1] / "shared" / "anchors").is_dir()


def corpus_path(method: str, kind: str) -> Path:
    return HERE / "methods" / method / "corpora" / f"{kind}.jsonl"


def readers() -> list[tuple[str, Reader]]:
    """(method, reader) for every reader of every registered method."""
    return [(m.name, r) for m in methods.all_methods() for r in m.readers]


def cases(method: str, kind: str) -> list[Case]:
    """The corpus of one reader; [] when it has none (the corpus test fails then)."""
    if not corpus_path(method, kind).exists():
        return []
    package = importlib.import_module(f"tests.methods.{method}")
    return load_corpus(corpus_path(method, kind), getattr(package, "resolve_anchor", None))


def measure_all() -> dict[str, Measure]:
    """Every reader measured on its corpus, by kind."""
    return {r.kind: measure(r, cases(m, r.kind)) for m, r in readers()}


def held_out_cases(kind: str, group: str) -> list[Case]:
    """Every held-out case of one reader in one group of ``HELD_OUT_SETS`` (its folders' files, in order)."""
    return [c for folder in HELD_OUT_SETS[group] if (CORPORA / folder / f"{kind}.jsonl").exists()
            for c in load_corpus(CORPORA / folder / f"{kind}.jsonl")]


def measure_held_out(group: str = "looked_at") -> dict[str, Measure]:
    """Every reader measured on one group of held-out corpora, by kind; a reader without any is left out."""
    return {r.kind: measure(r, found) for _, r in readers() if (found := held_out_cases(r.kind, group))}


def shipped_figures() -> dict[str, dict]:
    """What ``data/readers/measured.json`` holds per reader: the tuned figures, with each held-out group's under its
    name."""
    groups = {g: measure_held_out(g) for g in HELD_OUT_SETS}
    return {kind: m.summary() | {g: by_kind[kind].summary() for g, by_kind in groups.items() if kind in by_kind}
            for kind, m in measure_all().items()}


def table_row(kind: str, m: dict) -> str:
    """One reader's row of the readers table (``docs/readers.md``): the tuned figures, then each held-out group's
    read right and wrong values ("—" without a corpus)."""
    held = " | ".join(f"{h['read_right']} of {h['answerable']} | {h['wrong']}" if (h := m.get(g)) else "— | —"
                      for g in HELD_OUT_SETS)
    return (f"| `{kind}` | {m['n']} | {m['answerable']} | {m['read_right']} | {m['wrong']} | {m['missed']} | "
            f"{m['rightly_invalid']} of {m['n'] - m['answerable']} | {held} |")


TABLE_HEADER = ("| reader | replies | answerable | read right | wrong values | missed | unanswerable left invalid | "
                "held-out (looked at): read right | held-out: wrong values |\n"
                "|---|---|---|---|---|---|---|---|---|")
