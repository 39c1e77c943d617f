"""``python -m analysis import persona-llm PATH...`` (wired through ``Method.run_import``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def import_command(kind: str, paths: list[Path], store_path: Path, as_json: bool, *, text: bool = True) -> int:
    """Every file read and checked before the store is opened (a refused import changes nothing); one line per run
    and per skipped kind of file on stderr; ``--json``: per model what was read, skipped and why."""
    from analysis.methods.inventory.importer import parse_source, store_parsed
    from analysis.runs.store import Store

    parsed = parse_source(paths, text=text)
    with Store(store_path) as store:
        before = {r["run_id"] for r in store.query("SELECT run_id FROM runs")}
        run_ids = store_parsed(store, parsed)
    for m in parsed:
        report = m.report()
        if m.run_id is not None:
            state = "already in the store" if m.run_id in before else "imported"
            print(f"{state} {m.run_id}: {m.model}, {report['sheets']} sheets, {report['answers']} answers "
                  f"({report['invalid']} invalid)", file=sys.stderr)
        for why, count in report["skipped_why"].items():
            print(f"skipped {count} file(s) of {m.model}: {why}", file=sys.stderr)
    if as_json:
        print(json.dumps({"run_ids": run_ids, "models": [m.report() | {"new": m.run_id is not None and m.run_id not in before}
                                                          for m in parsed]}))
    return 0
