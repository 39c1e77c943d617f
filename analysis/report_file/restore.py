"""``python -m analysis import rolescope-report report.html``: a report file's tables back into a store.

The runs come back as they were (ids, status, dates, model spec, plan, names, tags, notes), each with its rows of
every method table, in one transaction per run; a run already in the store is skipped. The calls are not in a report
(their requests and logprobs stay in the store that made them), so the restored store answers ``metrics`` and the
pages exactly as the original did, but has no replies to ``resume`` from.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.errors import InputError, one_line
from analysis.importers.files import expand_paths, read_text
from analysis.report_file.contents import decode_tables
from analysis.report_file.html import MANIFEST_ID, TABLES_ID

KIND = "rolescope-report"


def block(html: str, block_id: str, where: str) -> str:
    """The text of the ``<script id=block_id>`` element of a report file."""
    found = re.search(rf'<script type="[^"]*" id="{re.escape(block_id)}">(.*?)</script>', html, re.S)
    if found is None:
        raise InputError(f"{where}: not a RoleScope report file (no {block_id} block)")
    return found.group(1)


def read_tables(path: Path) -> tuple[dict[str, Any], dict[str, pd.DataFrame]]:
    """A report file's manifest and tables (table -> frame)."""
    html = read_text(path, ("utf-8",))  # a regular file only: a FIFO would block, a folder is named
    try:
        manifest = json.loads(block(html, MANIFEST_ID, str(path)))  # \u003c and (older files) <\/ are JSON escapes
        tables = decode_tables(block(html, TABLES_ID, str(path)))
    except InputError as exc:
        raise (exc if str(exc).startswith(str(path)) else
               InputError(f"{path}: the report's embedded tables are damaged ({exc})")) from None
    except Exception as exc:  # noqa: BLE001 - any damage to the blocks is the file's, said in one line
        raise InputError(f"{path}: the report's embedded tables are damaged ({type(exc).__name__}: {exc})") from None
    if "runs" not in tables:
        raise InputError(f"{path}: the report holds no runs table")
    return manifest, tables


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    clean = frame.astype(object).where(frame.notna(), None)
    return clean.to_dict("records")


def _register_tables(every: list[Any]) -> None:
    """Every method's tables registered in the store's schema: its ``method.py`` registers them, or its session
    module does (imported here through the method's ``session`` hook)."""
    from analysis.hooks import Hook
    from analysis.runs.store import registered_tables

    for method in every:
        if any(t not in registered_tables() for t in method.tables) and isinstance(method.session, Hook):
            method.session.resolve()


def restore(paths: list[Path], store_path: Path, as_json: bool = False) -> int:
    """Import each report file's runs into the store at ``store_path``; prints one line per file (or JSON)."""
    from analysis import methods
    from analysis.runs.labels import LABELS
    from analysis.runs.store import Store

    _register_tables(methods.all_methods())
    files = expand_paths(paths, "*.html", what="report file (*.html)")  # a folder without one is named
    read = [(file, *read_tables(file)) for file in files]  # every file read and checked before the store is opened
    reports = []
    with Store(store_path) as store:
        for file, manifest, tables in read:
            runs = tables.pop("runs")
            labels = tables.pop(LABELS.name, None)
            added = skipped = 0
            for run in _records(runs):
                rows = {name: _records(frame[frame["run_id"] == run["run_id"]])
                        for name, frame in tables.items() if "run_id" in frame}
                mine = [] if labels is None else _records(labels[labels["run_id"] == run["run_id"]])
                if store.restore_run(run, {**rows, **({LABELS.name: mine} if mine else {})}):
                    added += 1
                else:
                    skipped += 1
            reports.append({"file": str(file), "store": manifest.get("store"), "runs_added": added,
                            "runs_skipped": skipped})
    for r in reports:
        if not as_json:
            print(f"{one_line(r['file'])}: {r['runs_added']} run(s) imported, {r['runs_skipped']} already in the store",
                  flush=True)
    if as_json:
        print(json.dumps(reports))
    return 0
