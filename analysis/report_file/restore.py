"""``python -m analysis import rolescope-report report.html``: a report file's tables back into a store.

Check, then write. Every file is read and every row checked before the store is opened:

- the seal: the SHA-256 of the embedded tables and reports (``Manifest.tables_sha256`` / ``reports_sha256``) must
  match them, and the manifest's runs must be the tables' runs; an edited file (or one written before the seal) is
  refused, or imported with ``--accept-edited``, each of its runs then marked (``analysis.runs.provenance``) so every
  page showing its numbers says so;
- every ``runs`` row (``RunRow``: a safe id, a method RoleScope has, a model name without control characters, JSON
  ``model_spec`` and ``plan`` objects, numeric dates) and every row of every table (``analysis.runs.row_checks``: the
  table's columns and SQL types, its method's rules, such as a score within its instrument's scale, and a row's model
  being its run's).

One broken rule refuses the whole import with one line (file, table, row, field, rule), and the store is not
created, or left byte-identical. The runs come back as they were (ids, status, dates, model spec, plan, names, tags,
notes), each with its rows, in one transaction per run; a run already in the store is skipped. The calls are not in
a report (their requests and logprobs stay in the store that made them), so the restored store answers ``metrics``
and the pages exactly as the original did, but has no replies to ``resume`` from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from analysis.errors import InputError, has_control, one_line
from analysis.importers.files import expand_paths, read_text
from analysis.report_file.contents import NOT_RESULTS, Manifest, seal, unpack_bytes, unpack_bytes_json
from analysis.report_file.html import MANIFEST_ID, REPORTS_ID, TABLES_ID
from analysis.runs.row_checks import Integer, Real, RowContext, first_problem

KIND = "rolescope-report"
#: A run's status as the store writes it: a lower-case word.
STATUS = re.compile(r"[a-z_]{1,40}")


def block(html: str, block_id: str, where: str, *, required: bool = True) -> str | None:
    """The text of the ``<script id=block_id>`` element of a report file (None when absent and not ``required``)."""
    found = re.search(rf'<script type="[^"]*" id="{re.escape(block_id)}">(.*?)</script>', html, re.S)
    if found is None and required:
        raise InputError(f"{where}: not a RoleScope report file (no {block_id} block)")
    return None if found is None else found.group(1)


class RunRow(BaseModel):
    """A ``runs`` row from a report file, as the store's schema and RoleScope's runs require it."""

    model_config = ConfigDict(strict=True, extra="forbid")

    run_id: str
    method: str
    model: str = Field(min_length=1)
    model_spec: str
    plan: str
    status: str
    n_units: Annotated[Integer, Field(ge=0)] | None = None
    created_at: Real
    updated_at: Real
    finished_at: Real | None = None
    error: str | None = None

    @field_validator("run_id")
    @classmethod
    def _safe_id(cls, value: str) -> str:
        from analysis.runs.store import check_run_id

        try:
            return check_run_id(value)
        except InputError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("method")
    @classmethod
    def _known_method(cls, value: str) -> str:
        from analysis import methods

        if value not in {m.name for m in methods.all_methods()}:
            raise ValueError(f"{value!r} is not a method of this RoleScope")
        return value

    @field_validator("model")
    @classmethod
    def _a_name(cls, value: str) -> str:
        if has_control(value):
            raise ValueError(f"model name {value!r} holds a control character")
        return value

    @field_validator("model_spec", "plan")
    @classmethod
    def _json_object(cls, value: str) -> str:
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            raise ValueError("not JSON") from None
        if not isinstance(parsed, dict):
            raise ValueError("not a JSON object")
        return value

    @field_validator("status")
    @classmethod
    def _a_status(cls, value: str) -> str:
        if not STATUS.fullmatch(value):
            raise ValueError(f"{value[:40]!r} is not a run status")
        return value


@dataclass(frozen=True)
class ReportRows:
    """A report file read and checked: its manifest, its runs (records) and each table's records; ``edited``: why
    its seal does not vouch for them (None when it does)."""

    path: Path
    manifest: Mapping[str, Any]
    runs: list[dict[str, Any]]
    tables: dict[str, list[dict[str, Any]]]
    edited: str | None


def _unsealed(manifest: Manifest, tables_raw: bytes, reports_raw: bytes | None) -> str | None:
    """Why the file's seal does not vouch for its blocks, or None."""
    if manifest.tables_sha256 is None:
        return "it carries no seal (written before RoleScope sealed its reports, or the seal was removed)"
    if seal(tables_raw) != manifest.tables_sha256:
        return "its embedded tables do not match its seal (edited after it was written)"
    if reports_raw is None or manifest.reports_sha256 is None or seal(reports_raw) != manifest.reports_sha256:
        return "its embedded reports do not match its seal (edited after it was written)"
    return None


def _check_table_doc(name: str, doc: Any) -> tuple[list[str], list[Any]]:
    if not isinstance(doc, dict) or not isinstance(doc.get("columns"), list) or not isinstance(doc.get("data"), list) \
            or not all(isinstance(c, str) for c in doc["columns"]):
        raise InputError(f"table {name}: not {{columns: [names], data: [rows]}}")
    return doc["columns"], doc["data"]


def _validation_line(where: str, exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    field = ".".join(str(p) for p in error["loc"]) or "row"
    return f"{where}, {field}: {error['msg'].removeprefix('Value error, ')}"


def check_report(path: Path) -> ReportRows:
    """A report file read, its seal and every row checked (``InputError`` naming the first broken rule, and that
    nothing was imported)."""
    try:
        return _checked(path)
    except InputError as exc:
        raise InputError(f"{exc}; nothing imported") from None


def _checked(path: Path) -> ReportRows:
    from analysis.runs.store import registered_table

    html = read_text(path, ("utf-8",))  # a regular file only: a FIFO would block, a folder is named
    try:
        manifest_doc = json.loads(block(html, MANIFEST_ID, str(path)))  # \u003c and (older files) <\/ are JSON escapes
        tables_raw = unpack_bytes(block(html, TABLES_ID, str(path)))
        reports_text = block(html, REPORTS_ID, str(path), required=False)
        reports_raw = unpack_bytes(reports_text) if reports_text is not None else None
        docs = unpack_bytes_json(tables_raw)
    except InputError as exc:
        raise (exc if str(exc).startswith(str(path)) else
               InputError(f"{path}: the report's embedded tables are damaged ({exc})")) from None
    except Exception as exc:  # noqa: BLE001 - any damage to the blocks is the file's, said in one line
        raise InputError(f"{path}: the report's embedded tables are damaged ({type(exc).__name__}: {exc})") from None
    try:
        manifest = Manifest.model_validate(manifest_doc)
    except ValidationError as exc:
        raise InputError(f"{path}: {_validation_line('manifest', exc)}") from None
    if not isinstance(docs, dict) or "runs" not in docs:
        raise InputError(f"{path}: the report holds no runs table")
    try:
        runs_columns, runs_data = _check_table_doc("runs", docs.pop("runs"))
        runs = []
        for i, row in enumerate(runs_data, 1):
            if not isinstance(row, list) or len(row) != len(runs_columns):
                raise InputError(f"table runs, row {i}: {len(runs_columns)} values expected")
            try:
                runs.append(RunRow.model_validate(dict(zip(runs_columns, row))).model_dump())
            except ValidationError as exc:
                raise InputError(_validation_line(f"table runs, row {i:,}", exc)) from None
        ids = [r["run_id"] for r in runs]
        if len(set(ids)) != len(ids):
            raise InputError("table runs: a run id appears twice")
        listed = {(r.run_id, r.method, r.model) for r in manifest.runs}
        relisted = listed != {(r["run_id"], r["method"], r["model"]) for r in runs}
        context = RowContext({r["run_id"]: {**r, "plan": json.loads(r["plan"]), "model_spec": json.loads(r["model_spec"])}
                              for r in runs})
        tables: dict[str, list[dict[str, Any]]] = {}
        for name, doc in docs.items():
            columns, data = _check_table_doc(name, doc)
            if name in NOT_RESULTS and not data:
                continue  # an empty call-record table an earlier RoleScope embedded
            table = registered_table(name)
            if table is None:
                raise InputError(f"table {name!r}: not a result table of RoleScope's store")
            problem = first_problem(table, columns, data, context)
            if problem is not None:
                raise InputError(str(problem))
            tables[name] = [dict(zip(columns, row)) for row in data]
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    edited = ("the manifest's runs are not the runs table's (edited after it was written)" if relisted
              else _unsealed(manifest, tables_raw, reports_raw))
    return ReportRows(path, manifest_doc, runs, tables, edited)


def _register_tables(every: list[Any]) -> None:
    """Every method's tables registered in the store's schema: its ``method.py`` registers them, or its session
    module does (imported here through the method's ``session`` hook)."""
    from analysis.hooks import Hook
    from analysis.runs.store import registered_tables

    for method in every:
        if any(t not in registered_tables() for t in method.tables) and isinstance(method.session, Hook):
            method.session.resolve()


def restore(paths: list[Path], store_path: Path, as_json: bool = False, *, accept_edited: bool = False) -> int:
    """Import each report file's runs into the store at ``store_path``; prints one line per file (or JSON). Every
    file is checked whole (``check_report``) before the store is opened; an edited one only with ``accept_edited``."""
    from analysis import methods
    from analysis.runs.provenance import mark_edited
    from analysis.runs.store import Store

    _register_tables(methods.all_methods())
    files = expand_paths(paths, "*.html", what="report file (*.html)")  # a folder without one is named
    read = [check_report(file) for file in files]
    for r in read:
        if r.edited and not accept_edited:
            raise InputError(f"{r.path}: {r.edited}; refused, nothing imported (--accept-edited imports it, every "
                             "page then marking its numbers as from an edited report)")
    reports = []
    with Store(store_path) as store:
        for r in read:
            added = skipped = 0
            for run in r.runs:
                if r.edited:
                    run = mark_edited(run, r.path.name, r.edited)
                rows = {name: [row for row in records if row.get("run_id") == run["run_id"]]
                        for name, records in r.tables.items()}
                if store.restore_run(run, {name: mine for name, mine in rows.items() if mine}):
                    added += 1
                else:
                    skipped += 1
            reports.append({"file": str(r.path), "store": r.manifest.get("store"), "runs_added": added,
                            "runs_skipped": skipped, "edited": r.edited})
    for rep in reports:
        if not as_json:
            edited = " (EDITED: marked on every page)" if rep["edited"] else ""
            print(f"{one_line(rep['file'])}: {rep['runs_added']} run(s) imported{edited}, {rep['runs_skipped']} "
                  "already in the store", flush=True)
    if as_json:
        print(json.dumps(reports))
    return 0
