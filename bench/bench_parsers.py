"""How well each reply reader reads its hand-labelled corpus (``tests/methods/<m>/corpora/<kind>.jsonl``).

Prints per reader: replies, answerable replies, read right, wrong values (a value the reply does not give: target 0),
missed answers (answerable replies left invalid: target ≤ 10 % of answerable), and the unanswerable replies left
invalid; then each failure. ``--write`` stores the figures in ``data/readers/measured.json`` (the method pages show
them beside the invalid rate) and in the README's table (a test checks both match the corpora).
Run: ``.venv/bin/python bench/bench_parsers.py [--write]``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.reader_quality import MEASURES_FILE  # noqa: E402
from tests.reader_corpora import measure_all  # noqa: E402


def document() -> dict:
    return {"about": "reply readers measured on hand-labelled corpora (bench/bench_parsers.py)",
            "readers": {kind: m.summary() for kind, m in measure_all().items()}}


README = Path(__file__).resolve().parents[1] / "README.md"
START, END = "<!-- readers:start (bench/bench_parsers.py --write) -->", "<!-- readers:end -->"


def readme_table(readers: dict) -> str:
    """The README's table of the readers' figures (between its markers)."""
    rows = [f"| `{k}` | {m['n']} | {m['answerable']} | {m['read_right']} | {m['wrong']} | {m['missed']} | "
            f"{m['rightly_invalid']} of {m['n'] - m['answerable']} |" for k, m in readers.items()]
    return "\n".join(["| reader | replies | answerable | read right | wrong values | missed | unanswerable left invalid |",
                      "|---|---|---|---|---|---|---|", *rows])


def write_readme(readers: dict) -> None:
    text = README.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    README.write_text(f"{head}{START}\n{readme_table(readers)}\n{END}{tail}", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"write {MEASURES_FILE.relative_to(MEASURES_FILE.parents[2])}")
    args = ap.parse_args()
    measured = measure_all()
    print(f"{'reader':24} {'replies':>7} {'answerable':>10} {'read right':>10} {'wrong':>5} {'missed':>6} "
          f"{'read %':>6} {'rightly invalid':>15}")
    for kind, m in measured.items():
        share = f"{100 * m.read_share:.1f}" if m.answerable else "—"
        print(f"{kind:24} {m.n:7} {m.answerable:10} {m.read_right:10} {m.wrong:5} {m.missed:6} {share:>6} "
              f"{m.rightly_invalid:>7} of {m.n - m.answerable:<5}")
    for m in measured.values():
        for failure in m.failures:
            print(f"  {m.kind}: {failure}")
    if args.write:
        MEASURES_FILE.parent.mkdir(parents=True, exist_ok=True)
        doc = document()
        MEASURES_FILE.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        write_readme(doc["readers"])
        print(f"wrote {MEASURES_FILE} and the table in {README.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
