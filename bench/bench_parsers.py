"""How well each reply reader reads its hand-labelled corpus (``tests/methods/<m>/corpora/<kind>.jsonl``), and the
held-out corpora (``corpora/held_out*/<kind>.jsonl``, written and labelled by people who never read the readers).

Prints per reader: replies, answerable replies, read right, wrong values (a value the reply does not give: target 0),
missed answers (answerable replies left invalid: target ≤ 10 % of answerable), and the unanswerable replies left
invalid; then each failure; then the same block for each group of held-out corpora (``tests.reader_corpora.
HELD_OUT_SETS``: ``looked_at``, whose failing replies were read to find the classes that failed, and ``fresh``, never
looked at while a reader changed). ``--write`` stores the figures in ``data/readers/measured.json`` (each group's under
its name; the method pages show the tuned ones beside the invalid rate) and in the table of ``docs/readers.md`` (a
test checks both match the corpora). The tuned figures are a gate (``tests/test_reader_corpora.py``); the held-out ones are the
measure, never a gate. Run: ``.venv/bin/python bench/bench_parsers.py [--write]``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.reader_quality import MEASURES_FILE, Measure  # noqa: E402
from tests.reader_corpora import (HELD_OUT_SETS, READERS_DOC, TABLE_END, TABLE_HEADER, TABLE_START,  # noqa: E402
                                  measure_all, measure_held_out, shipped_figures, table_row)


def write_table(readers: dict) -> None:
    """The readers table between the markers of ``docs/readers.md``."""
    text = READERS_DOC.read_text(encoding="utf-8")
    head, rest = text.split(TABLE_START, 1)
    _, tail = rest.split(TABLE_END, 1)
    table = "\n".join([TABLE_HEADER, *(table_row(k, m) for k, m in readers.items())])
    READERS_DOC.write_text(f"{head}{TABLE_START}\n{table}\n{TABLE_END}{tail}", encoding="utf-8")


def print_block(title: str, measured: dict[str, Measure]) -> None:
    """One column block: the figures of every reader on one corpus, then each failure."""
    print(title)
    print(f"{'reader':24} {'replies':>7} {'answerable':>10} {'read right':>10} {'wrong':>5} {'missed':>6} "
          f"{'read %':>6} {'rightly invalid':>15}")
    for kind, m in measured.items():
        share = f"{100 * m.read_share:.1f}" if m.answerable else "—"
        print(f"{kind:24} {m.n:7} {m.answerable:10} {m.read_right:10} {m.wrong:5} {m.missed:6} {share:>6} "
              f"{m.rightly_invalid:>7} of {m.n - m.answerable:<5}")
    for m in measured.values():
        for failure in m.failures:
            print(f"  {m.kind}: {failure}")


ANCHORS = Path(__file__).resolve().parents[2] / "shared" / "anchors"


def print_real_replies() -> None:
    """``trust-amount`` on the real replies of the agent-trust source (Xie et al. 2024: 10 models, every condition),
    against the amount its authors extracted: each persona in one class (both equal, both different, only the source
    read one, only RoleScope did, neither), and every "different" reply's closing words, read by hand
    (``docs/imports.md``)."""
    import pandas as pd

    from analysis.methods.trust.imported import agreement_class
    from analysis.methods.trust.importer import parse_paths

    folder = ANCHORS / "agent_trust"
    if not folder.is_dir():
        print(f"real replies: {folder} not found; skipped")
        return
    rows = pd.DataFrame([r for f in parse_paths([folder], text=True).files for r in f.rows])
    rows["cls"] = [agreement_class(bool(r.source_valid == 1), r.source_amount, bool(r.valid == 1), r.sent)
                   for r in rows.itertuples(index=False)]
    print(f"real replies (trust-amount on {len(rows):,} agent-trust replies, against the authors' extraction)")
    for cls, n in rows["cls"].value_counts().items():
        print(f"  {cls:16} {n:6,}")
    for r in rows[rows["cls"] == "both_different"].itertuples(index=False):
        print(f"  different: source {r.source_amount:g}, RoleScope {r.sent:g}: …{r.raw[-120:]!r}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"write {MEASURES_FILE.relative_to(MEASURES_FILE.parents[2])}")
    args = ap.parse_args()
    print_block("tuned corpora (tests/methods/<m>/corpora): the gate", measure_all())
    for group, folders in HELD_OUT_SETS.items():
        print()
        print_block(f"held-out corpora, {group.replace('_', ' ')} ({', '.join(f'corpora/{f}' for f in folders)}): the "
                    "measure, never tuned to", measure_held_out(group))
    print()
    print_real_replies()
    if args.write:
        MEASURES_FILE.parent.mkdir(parents=True, exist_ok=True)
        doc = {"about": "reply readers measured on hand-labelled corpora (bench/bench_parsers.py); looked_at, fresh: "
                        "on the held-out corpora (tests.reader_corpora.HELD_OUT_SETS), the measure, never tuned to",
               "readers": shipped_figures()}
        MEASURES_FILE.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        write_table(doc["readers"])
        print(f"wrote {MEASURES_FILE} and the table in {READERS_DOC}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
