"""``python -m analysis import persona-llm|chatgpt-behavioral PATH...`` (wired through ``Method.run_import`` and
``Method.prepare_import``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

BEHAVIORAL = "chatgpt-behavioral"


def import_command(kind: str, paths: list[Path], store_path: Path, as_json: bool, *, text: bool = True) -> int:
    """Every file read and checked before the store is opened (a refused import changes nothing); one line per run
    and per skipped kind of file on stderr; ``--json``: per model what was read, skipped and why."""
    return prepare_import(kind, paths, as_json, text=text)(store_path)


def prepare_import(kind: str, paths: list[Path], as_json: bool, *, text: bool = True) -> Callable[[Path], int]:
    """``Method.prepare_import``: the files of ``kind`` read and checked (nothing stored); the function that stores
    them."""
    if kind == BEHAVIORAL:
        from analysis.methods.inventory.behavioral import parse_source as parse_behavioral

        return partial(_store_behavioral, parse_behavioral(paths, text=text), as_json)
    from analysis.methods.inventory.importer import parse_source

    return partial(_store_persona_llm, parse_source(paths, text=text), as_json)


def _store_persona_llm(parsed: list[Any], as_json: bool, store_path: Path) -> int:
    from analysis.methods.inventory.importer import store_parsed
    from analysis.runs.store import Store

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


def _store_behavioral(parsed: list[Any], as_json: bool, store_path: Path) -> int:
    """Store ChatGPT-Behavioral's IPIP-50 runs; one line per run on stderr; ``--json``: the runs and what each read."""
    from analysis.methods.inventory.behavioral import store_parsed
    from analysis.runs.store import Store

    with Store(store_path) as store:
        new = store_parsed(store, parsed)
    for r in parsed:
        s = r.plan["summary"]
        print(f"{'imported' if new[r.run_id] else 'already imported'} {r.run_id}: {r.model}, IPIP-50, {s['sessions']} "
              f"sessions, {s['answers']} answers ({s['invalid']} invalid); human norm of "
              f"{r.plan['human_norm']['n_people']} people", file=sys.stderr)
    if as_json:
        print(json.dumps({"method": "inventory", "run_ids": list(new),
                          "read": [r.report() | {"stored": new[r.run_id]} for r in parsed]}))
    return 0
