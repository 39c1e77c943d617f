"""How well each reply reader reads its hand-labelled corpus (``tests/methods/<m>/corpora/<kind>.jsonl``), and the
held-out corpus (``corpora/held_out/<kind>.jsonl``, written by someone who never read the readers).

Prints per reader: replies, answerable replies, read right, wrong values (a value the reply does not give: target 0),
missed answers (answerable replies left invalid: target ≤ 10 % of answerable), and the unanswerable replies left
invalid; then each failure; then the same block for the held-out corpus and its failures. ``--write`` stores the
figures in ``data/readers/measured.json`` (the held-out ones under each reader's ``held_out``; the method pages show
the tuned ones beside the invalid rate) and in the README's table (a test checks both match the corpora). The tuned
figures are a gate (``tests/test_reader_corpora.py``); the held-out ones are the measure, never a gate.
Run: ``.venv/bin/python bench/bench_parsers.py [--write]``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.reader_quality import MEASURES_FILE  # noqa: E402
from analysis.reader_quality import Measure  # noqa: E402
from tests.reader_corpora import measure_all, measure_held_out  # noqa: E402


def readers_doc(tuned: dict[str, Measure], held_out: dict[str, Measure]) -> dict:
    """Each reader's tuned figures, with its held-out figures under ``held_out`` (when it has a held-out corpus)."""
    return {kind: m.summary() | ({"held_out": held_out[kind].summary()} if kind in held_out else {})
            for kind, m in tuned.items()}


def document() -> dict:
    return {"about": "reply readers measured on hand-labelled corpora (bench/bench_parsers.py); held_out: on "
                     "corpora/held_out, the measure, never tuned to",
            "readers": readers_doc(measure_all(), measure_held_out())}


README = Path(__file__).resolve().parents[1] / "README.md"
START, END = "<!-- readers:start (bench/bench_parsers.py --write) -->", "<!-- readers:end -->"


def readme_row(kind: str, m: dict) -> str:
    """One reader's row of the README table: the tuned figures, then the held-out ones ("—" without a corpus)."""
    h = m.get("held_out")
    held = (f"{h['n']} | {h['read_right']} of {h['answerable']} | {h['wrong']} | {h['missed']} | "
            f"{h['rightly_invalid']} of {h['n'] - h['answerable']} |") if h else "— | — | — | — | — |"
    return (f"| `{kind}` | {m['n']} | {m['answerable']} | {m['read_right']} | {m['wrong']} | {m['missed']} | "
            f"{m['rightly_invalid']} of {m['n'] - m['answerable']} | {held}")


def readme_table(readers: dict) -> str:
    """The README's table of the readers' figures (between its markers): tuned corpus, then held-out corpus."""
    return "\n".join(["| reader | replies | answerable | read right | wrong values | missed | unanswerable left invalid | "
                      "held-out replies | held-out read right | held-out wrong | held-out missed | "
                      "held-out unanswerable left invalid |",
                      "|---|---|---|---|---|---|---|---|---|---|---|---|",
                      *(readme_row(k, m) for k, m in readers.items())])


def write_readme(readers: dict) -> None:
    text = README.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{START}\n{readme_table(readers)}\n{END}{tail}", encoding="utf-8")


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"write {MEASURES_FILE.relative_to(MEASURES_FILE.parents[2])}")
    args = ap.parse_args()
    measured, held_out = measure_all(), measure_held_out()
    print_block("tuned corpora (tests/methods/<m>/corpora): the gate", measured)
    print()
    print_block("held-out corpora (corpora/held_out): the measure, never tuned to", held_out)
    if args.write:
        MEASURES_FILE.parent.mkdir(parents=True, exist_ok=True)
        doc = {"about": document()["about"], "readers": readers_doc(measured, held_out)}
        MEASURES_FILE.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        write_readme(doc["readers"])
        print(f"wrote {MEASURES_FILE} and the table in {README.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
