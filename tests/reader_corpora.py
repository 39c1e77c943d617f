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
#: the held-out corpus (``corpora/held_out/README.md``): the measure of the readers, never tuned to, never a gate
HELD_OUT = HERE.parent / "corpora" / "held_out"
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


def held_out_path(kind: str) -> Path:
    return HELD_OUT / f"{kind}.jsonl"


def measure_held_out() -> dict[str, Measure]:
    """Every reader measured on its held-out corpus (``corpora/held_out/<kind>.jsonl``), by kind; a reader without one
    is left out."""
    return {r.kind: measure(r, load_corpus(held_out_path(r.kind))) for _, r in readers() if held_out_path(r.kind).exists()}
