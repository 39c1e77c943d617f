"""How well a reply reader reads: its labelled corpus, and what it made of each labelled reply.

A corpus is JSON lines, one labelled reply each: ``{"reply", "finish_reason", <context the reader needs>,
"expect", "source", "note"}``. ``expect`` is the value a careful reader takes from the reply (as the reader's
``Reading.value``; for a dict, the keys given are compared), or null when the reply gives no answer. ``source`` says
where the reply comes from: ``demo`` (the bundled demo's real replies), ``anchor`` (a published reply, read from
``../shared/anchors`` by reference, never copied), ``review`` (the hostile replies of a review) or ``form`` (a form
real models write, authored here).

Per reader (``measure``):

- *answerable*: replies that give an answer (``expect`` not null);
- *read right*: answerable replies read as their value;
- *wrong values*: replies stored with a value the reply does not give (a different value, or any value for a reply
  that gives none). The target is 0;
- *missed*: answerable replies left invalid. A reader that drops answerable replies is biased too: the target is
  ≥ 90 % of answerable replies read;
- *rightly invalid*: replies that give no answer, left invalid.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from analysis.methods.base import Reader, Reading

SOURCES = ("demo", "anchor", "review", "form")
#: what a corpus line holds besides the reader's context
LABEL_FIELDS = ("reply", "finish_reason", "expect", "source", "note", "reason")
MEASURES_FILE = Path(__file__).resolve().parents[1] / "data" / "readers" / "measured.json"


@dataclass(frozen=True)
class Case:
    """One labelled reply of a corpus (``where``: file and line, for messages)."""

    reply: str
    finish_reason: str | None
    context: Mapping[str, Any]
    expect: Any
    source: str
    where: str
    reason: str | None = None

    @property
    def answerable(self) -> bool:
        return self.expect is not None


@dataclass
class Measure:
    """What a reader made of its corpus (see the module docstring); ``failures`` lists each wrong or missed case."""

    kind: str
    n: int = 0
    answerable: int = 0
    read_right: int = 0
    wrong: int = 0
    missed: int = 0
    rightly_invalid: int = 0
    by_source: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    @property
    def read_share(self) -> float:
        return self.read_right / self.answerable if self.answerable else math.nan

    def summary(self) -> dict[str, Any]:
        """The figures shown beside the invalid rate (the table of docs/readers.md, each method page)."""
        out = {k: v for k, v in asdict(self).items() if k != "failures"}
        return out | {"read_share": None if math.isnan(self.read_share) else round(self.read_share, 4)}


def load_corpus(path: Path, resolve: Any = None) -> list[Case]:
    """The labelled replies of a corpus file. A line may name a published reply by ``anchor`` instead of holding it;
    ``resolve(anchor) -> (reply, context) | None`` reads it (None: the anchors are not on this machine, the line is
    left out)."""
    cases = []
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        where = f"{path.name}:{no}"
        context = {k: v for k, v in row.items() if k not in (*LABEL_FIELDS, "anchor")}
        reply = row.get("reply")
        if "anchor" in row:
            got = resolve(row["anchor"]) if resolve else None
            if got is None:
                continue
            reply, anchor_context = got
            context = {**anchor_context, **context}
        if row.get("source") not in SOURCES or "expect" not in row or not isinstance(reply, str):
            raise ValueError(f"{where}: needs 'reply' (or 'anchor'), 'expect' and 'source' in {SOURCES}")
        cases.append(Case(reply, row.get("finish_reason", "stop"), context, row["expect"], row["source"], where,
                          row.get("reason")))
    return cases


def _same(expect: Any, got: Any) -> bool:
    if isinstance(expect, Mapping):
        return isinstance(got, Mapping) and all(_same(v, got.get(k)) for k, v in expect.items())
    if isinstance(expect, (int, float)) and not isinstance(expect, bool) and isinstance(got, (int, float)):
        return math.isclose(float(expect), float(got), rel_tol=0, abs_tol=1e-9)
    return bool(expect == got)


def read(reader: Reader, case: Case) -> Reading:
    """The reader on one case, with the context the runs give it (``python -m analysis parse`` does the same)."""
    return reader.read(case.reply, case.finish_reason, {**reader.defaults, **case.context})


def measure(reader: Reader, cases: Iterable[Case]) -> Measure:
    """Count read right, wrong values, missed answers and rightly invalid replies (module docstring)."""
    out = Measure(reader.kind)
    for case in cases:
        got = read(reader, case)
        out.n += 1
        out.by_source[case.source] = out.by_source.get(case.source, 0) + 1
        shown = f"{case.where} ({case.source}) {case.reply[:90]!r}"
        if case.answerable:
            out.answerable += 1
            if not got.valid:
                out.missed += 1
                out.failures.append(f"missed: {shown} -> invalid ({got.reason}), expected {case.expect!r}")
            elif _same(case.expect, got.value):
                out.read_right += 1
            else:
                out.wrong += 1
                out.failures.append(f"wrong: {shown} -> {got.value!r}, expected {case.expect!r}")
        elif got.valid:
            out.wrong += 1
            out.failures.append(f"wrong: {shown} -> {got.value!r}, the reply gives no answer")
        else:
            out.rightly_invalid += 1
            if case.reason and not (got.reason or "").startswith(case.reason):
                out.failures.append(f"reason: {shown} -> {got.reason!r}, expected it to start {case.reason!r}")
    return out


@lru_cache(maxsize=4)
def published_measures(path: Path = MEASURES_FILE) -> dict[str, dict[str, Any]]:
    """The measured figures as shipped (``bench/bench_parsers.py --write``), by reader kind; {} when absent."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))["readers"]
    except (OSError, ValueError, KeyError):
        return {}


def caption(kinds: Iterable[str], measures: Mapping[str, Mapping[str, Any]] | None = None) -> str | None:
    """One line for a method page, beside its invalid rate: each reader's corpus figures."""
    measures = published_measures() if measures is None else measures
    parts = []
    for kind in kinds:
        m = measures.get(kind)
        if m:
            parts.append(f"{kind}: {m['read_right']} of {m['answerable']} answerable replies read, {m['wrong']} wrong "
                         f"values, {m['rightly_invalid']} of {m['n'] - m['answerable']} unanswerable left invalid")
    if not parts:
        return None
    return "Readers measured on hand-labelled replies (bench/bench_parsers.py): " + "; ".join(parts) + "."
