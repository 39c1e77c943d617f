"""Rows from outside (a report file's embedded tables) checked before any is written: each against its table's
declared columns and SQL types, the rules its method declares (``Table.rules``: ranges, allowed values, which may
depend on the row's run), and the rules every table shares (the row's run is in the file; a row's ``model`` is its
run's model; names hold no control characters).

The types are a pydantic model per table, built from the ``Table`` declaration (``row_model``): ``INTEGER`` is an int
(an integral float, as a pandas column with nulls holds one, is taken as its int), ``REAL`` a finite number, ``TEXT``
a string; primary-key columns are required. The shared rules and a method's rules (``RowRules``) then see each typed
row with its run (``RowContext``). The first broken rule is reported as (table, row, field, rule).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, Optional

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError, create_model, \
    model_validator

from analysis.errors import has_control
from analysis.runs.store import Table


def _integral(value: Any) -> Any:
    """An integral float (pandas writes an INTEGER column with nulls as floats) as its int; anything else as is, for
    the strict int check to judge."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Integer = Annotated[int, BeforeValidator(_integral)]
Real = Annotated[float, Field(allow_inf_nan=False)]
SQL_TYPES: dict[str, Any] = {"INTEGER": Integer, "REAL": Real, "TEXT": str}


@dataclass(frozen=True)
class RowContext:
    """What a row's rules may read: each run of the file (its ``runs`` row, ``model_spec`` and ``plan`` parsed)."""

    runs: Mapping[str, Mapping[str, Any]]


#: A method's rules for one typed row of a table, given the row's run (its ``runs`` row, plan and spec parsed): the
#: field and the rule it breaks, or None.
RowRules = Callable[[Mapping[str, Any], Mapping[str, Any]], "tuple[str, str] | None"]


class StrictRow(BaseModel):
    """The types of a row: no column the table does not declare, no type coercion, finite numbers, a ``model`` name
    without control characters."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    @model_validator(mode="after")
    def _a_model_name(self) -> StrictRow:
        model = getattr(self, "model", None)
        if isinstance(model, str) and (not model or has_control(model)):
            raise ValueError(f"model name {model!r} is empty or holds a control character")
        return self


def _run_problem(table: Table, row: BaseModel, runs: Mapping[str, Mapping[str, Any]]) -> tuple[str, str] | None:
    """The shared rules: a row's run is a run of the file; its ``model`` is its run's (unless the table's rows are
    made by other models, ``Table.own_model`` False: its method's rules say which)."""
    fields = type(row).model_fields
    if "run_id" not in fields:
        return None
    run_id, model = getattr(row, "run_id"), getattr(row, "model", None)
    run = runs.get(run_id)
    if not run:
        return "run_id", f"{run_id!r} is not a run of this file"
    if table.own_model and "model" in fields and model != run.get("model"):
        return "model", f"{model!r} is not its run's model {run.get('model')!r}"
    return None


@lru_cache(maxsize=None)
def row_model(table: Table) -> type[BaseModel]:
    """The pydantic model of one row of ``table``: its columns with their SQL types (key columns required, others
    nullable) on ``StrictRow``."""
    fields: dict[str, Any] = {}
    for column, sql_type in table.columns:
        kind = SQL_TYPES.get(sql_type.split()[0].upper(), Any)
        fields[column] = (kind, ...) if column in table.key else (Optional[kind], None)
    return create_model(f"{table.name}_row", __base__=StrictRow, **fields)


@dataclass(frozen=True)
class RowProblem:
    """The first broken rule of a table: where (table, 1-based row, field) and which rule."""

    table: str
    row: int
    field: str
    rule: str

    def __str__(self) -> str:
        return f"table {self.table}, row {self.row:,}, {self.field}: {self.rule}"


def first_problem(table: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]],
                  context: RowContext) -> RowProblem | None:
    """The first row of ``rows`` (lists in ``columns`` order) that breaks a rule of ``table``, or None."""
    unknown = [c for c in columns if c not in dict(table.columns)]
    if unknown:
        return RowProblem(table.name, 0, unknown[0], "not a column of this table")
    if len(set(columns)) != len(columns):
        return RowProblem(table.name, 0, "columns", "a column is named twice")
    for i, row in enumerate(rows, 1):
        if not isinstance(row, (list, tuple)) or len(row) != len(columns):
            return RowProblem(table.name, i, "row", f"{len(columns)} values expected")
    records = [dict(zip(columns, row)) for row in rows]
    try:
        typed = TypeAdapter(list[row_model(table)]).validate_python(records)  # type: ignore[valid-type]
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = [str(p) for p in error["loc"][1:]]
        return RowProblem(table.name, int(error["loc"][0]) + 1, ".".join(where) or "row",
                          error["msg"].removeprefix("Value error, "))
    for i, row in enumerate(typed, 1):
        broken = _run_problem(table, row, context.runs)
        if broken is None and table.rules is not None:
            broken = table.rules(row.model_dump(), context.runs.get(getattr(row, "run_id", None)) or {})
        if broken is not None:
            return RowProblem(table.name, i, *broken)
    return None


def within(row: Mapping[str, Any], field: str, lo: float, hi: float, what: str = "") -> tuple[str, str] | None:
    """The broken rule when ``row[field]`` (not null) lies outside ``lo..hi`` (``what`` names the scale), else None."""
    value = row.get(field)
    if value is None or lo <= value <= hi:
        return None
    return field, f"{value:g} is outside {what + ' ' if what else ''}{lo:g}..{hi:g}"


def flags(row: Mapping[str, Any], *fields: str) -> tuple[str, str] | None:
    """The broken rule when a 0/1 column among ``fields`` holds anything else (null is allowed), else None."""
    for field in fields:
        if row.get(field) not in (None, 0, 1):
            return field, f"{row[field]} is not 0 or 1"
    return None


def first_broken(*found: tuple[str, str] | None) -> tuple[str, str] | None:
    """The first of ``found`` that is a broken rule."""
    return next((f for f in found if f is not None), None)
