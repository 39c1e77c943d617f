"""MBTI statements as data: second-person statements keyed to a dimension and a direction.

Direction ``+1``: agreeing ("Correct") points to the dimension's first pole (E, N, T, J, A);
``-1`` (a reversed item, written "−" in keys): agreeing points to the second pole (I, S, F, P, T).

Sources ``load_statements`` reads:

- ``default`` / ``bundled``: ``data/mbti/statements.json``, RoleScope's own 60 statements
  (12 per dimension, 6 in each direction).
- A RoleScope JSON file: ``{name, title, source, statements: [{id, text, dimension, direction}]}``
  or just the list.
- A CSV file with a header; columns ``id`` (optional: row number), ``text`` (or ``statement``),
  and optionally ``dimension`` + ``direction`` ("+", "-", "−", "1", "-1", "+1").
- A ``.txt`` file: one statement per line, optionally numbered ("12. You ...").

When the statements carry no key, ``key`` supplies one: ``chatgpt-mbti`` (the face-validity key of
the 60 statements used by Rao et al., by item number; see ``CHATGPT_MBTI_KEY``), or a key file:
JSON ``{"E": [1, -6, ...], "N": [...], ...}`` (signed item numbers, negative = reversed), JSON
``[{id, dimension, direction}]``, or CSV ``id,dimension,direction``. A key given with keyed
statements replaces their key.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from analysis.errors import InputError
from analysis.importers.files import csv_rows, load_json, read_text
from analysis.methods.mbti import DIMENSIONS

REPO_ROOT = Path(__file__).resolve().parents[3]
BUNDLED = REPO_ROOT / "data" / "mbti" / "statements.json"

# The 60 statements of the original study, keyed by item number (negative = reversed item).
# A face-validity key written for RoleScope, not the test publisher's scoring.
CHATGPT_MBTI_KEY: dict[str, tuple[int, ...]] = {
    "E": (1, -6, 11, 16, -21, -26, 31, 36, -41, 43, -51, 53),
    "N": (2, -12, 17, -22, 30, -32, 37, 42, -46, -52, 57),
    "T": (-3, -8, 13, -18, 23, 25, 28, -33, 38, -48, -54, -58),
    "J": (4, 7, 9, -14, -19, 24, -29, -34, 39, 44, -49, 56, -59),
    "A": (5, -10, 15, -20, -27, 35, 40, -45, -47, -50, -55, 60),
}
NAMED_KEYS = {"chatgpt-mbti": CHATGPT_MBTI_KEY}


class Statement(BaseModel):
    id: str
    text: str = Field(description="Second-person wording ('You ...'); subjects are substituted by code.")
    dimension: Literal["E", "N", "T", "J", "A"] | None = Field(description="None = not keyed (not scored).")
    direction: Literal[1, -1] = 1

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("statement text is empty")
        return value


class StatementSet(BaseModel):
    name: str
    title: str = ""
    source: str = ""
    statements: list[Statement]

    @model_validator(mode="after")
    def _check(self) -> StatementSet:
        if not self.statements:
            raise ValueError("no statements")
        ids = [s.id for s in self.statements]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"statement ids are not unique: {dupes}")
        return self

    @property
    def keyed(self) -> list[Statement]:
        return [s for s in self.statements if s.dimension is not None]

    def limited(self, n: int | None) -> StatementSet:
        """The first ``n`` statements (all when None), in questionnaire order."""
        if n is None:
            return self
        if n < 1:
            raise InputError("--limit-statements must be >= 1")
        return self.model_copy(update={"statements": self.statements[:n]})

    def with_key(self, key: dict[str, tuple[str, int]]) -> StatementSet:
        """Re-key every statement from ``id -> (dimension, direction)``; ids missing from the key are unkeyed."""
        unknown = sorted(set(key) - {s.id for s in self.statements}, key=_natural)
        if unknown:
            raise InputError(f"key names statements that are not in the set: {unknown[:10]}")
        return self.model_copy(update={"statements": [
            s.model_copy(update={"dimension": key[s.id][0] if s.id in key else None,
                                 "direction": key[s.id][1] if s.id in key else 1})
            for s in self.statements
        ]})


def _natural(value: str) -> tuple[int, str]:
    return (int(value), "") if value.isdigit() else (10**9, value)


def parse_direction(value: Any, where: str) -> int:
    text = str(value).strip().replace("−", "-").replace("–", "-")
    if text in ("+", "1", "+1", "plus", "forward"):
        return 1
    if text in ("-", "-1", "minus", "reverse", "reversed", "r"):
        return -1
    raise InputError(f"{where}: direction '{value}' not understood; use + or -")


def parse_dimension(value: Any, where: str) -> str:
    text = str(value).strip().upper().replace(" ", "")
    # a second pole alone ("I", "S", ...) is refused: it would leave the direction ambiguous
    aliases = {"E/I": "E", "EI": "E", "N/S": "N", "NS": "N", "T/F": "T", "TF": "T", "J/P": "J", "JP": "J", "A/T": "A", "AT": "A"}
    text = aliases.get(text, text)
    if text not in DIMENSIONS:
        raise InputError(f"{where}: dimension '{value}' not understood; use one of E/I, N/S, T/F, J/P, A/T")
    return text


def signed_key(key: dict[str, Any], where: str) -> dict[str, tuple[str, int]]:
    """``{"E": [1, -6, ...]}`` (signed item numbers per dimension) -> ``id -> (dimension, direction)``."""
    out: dict[str, tuple[str, int]] = {}
    for dim, numbers in key.items():
        d = parse_dimension(dim, where)
        if not isinstance(numbers, (list, tuple)):
            raise InputError(f"{where}: key '{dim}' must be a list of signed item numbers")
        for n in numbers:
            text = str(n).strip().replace("−", "-")
            if not re.fullmatch(r"[+-]?\d+", text) or int(text) == 0:
                raise InputError(f"{where}: key '{dim}': '{n}' is not a signed item number")
            item = str(abs(int(text)))
            if item in out:
                raise InputError(f"{where}: item {item} is keyed twice")
            out[item] = (d, -1 if text.startswith("-") else 1)
    return out


def load_key(source: str | Path) -> dict[str, tuple[str, int]]:
    """A named key (``chatgpt-mbti``) or a key file (see module docstring)."""
    name = str(source)
    if name in NAMED_KEYS:
        return signed_key(NAMED_KEYS[name], f"key {name}")  # type: ignore[arg-type]
    path = _existing(source, "key")
    if path.suffix.lower() == ".json":
        doc = _read_json(path)
        if isinstance(doc, dict):
            return signed_key(doc, f"key {path}")
        if isinstance(doc, list):
            return _key_rows(doc, f"key {path}")
        raise InputError(f"key {path}: expected an object of signed item numbers or a list of {{id, dimension, direction}}")
    if path.suffix.lower() == ".csv":
        return _key_rows(_csv_dicts(path), f"key {path}")
    raise InputError(f"key {path}: expected a .json or .csv file, or 'chatgpt-mbti'")


def _key_rows(rows: list[Any], where: str) -> dict[str, tuple[str, int]]:
    out: dict[str, tuple[str, int]] = {}
    for n, row in enumerate(rows, 1):
        if not isinstance(row, dict) or not {"id", "dimension", "direction"} <= set(row):
            raise InputError(f"{where}: entry {n} needs id, dimension and direction")
        item = str(row["id"]).strip()
        if item in out:
            raise InputError(f"{where}: item {item} is keyed twice")
        entry = f"{where} entry {n}"
        out[item] = (parse_dimension(row["dimension"], entry), parse_direction(row["direction"], entry))
    return out


def load_statements(source: str | Path = "default", key: str | Path | None = None) -> StatementSet:
    """Statements from a bundled name or a file, keyed by their own columns or by ``key``."""
    name = str(source)
    if name in ("default", "bundled"):
        stset = _from_json(BUNDLED)
    else:
        path = _existing(source, "statements")
        suffix = path.suffix.lower()
        if suffix == ".json":
            stset = _from_json(path)
        elif suffix == ".csv":
            stset = _from_csv(path)
        elif suffix == ".txt":
            stset = _from_txt(path)
        else:
            raise InputError(f"statements {path}: expected a .json, .csv or .txt file")
    if key is not None:
        stset = stset.with_key(load_key(key))
    if not stset.keyed:
        raise InputError(f"statements {source}: no statement is keyed to a dimension; "
                         "give a key (--key chatgpt-mbti or a key file)")
    return stset


def _existing(source: str | Path, what: str) -> Path:
    path = Path(source).expanduser()
    if not path.is_file():
        raise InputError(f"{what} {path}: file not found")
    return path


def _read_json(path: Path) -> Any:
    return load_json(path)


def _validated(data: dict[str, Any], path: Path) -> StatementSet:
    try:
        return StatementSet.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise InputError(f"statements {path}: field '{loc}': {err['msg'].removeprefix('Value error, ')}") from None


def _from_json(path: Path) -> StatementSet:
    doc = _read_json(path)
    if isinstance(doc, list):
        doc = {"name": path.stem, "statements": doc}
    if not isinstance(doc, dict):
        raise InputError(f"statements {path}: expected an object with 'statements' or a list")
    rows = doc.get("statements")
    if isinstance(rows, list):
        doc = dict(doc, statements=[_normalise_row(r, path, n) for n, r in enumerate(rows, 1)])
    return _validated({"name": path.stem} | doc, path)


def _normalise_row(row: Any, path: Path, n: int) -> Any:
    if not isinstance(row, dict):
        return row
    row = dict(row)
    where = f"statements {path} entry {n}"
    row.setdefault("id", str(n))
    row["id"] = str(row["id"]).strip()
    if "text" not in row and "statement" in row:
        row["text"] = row.pop("statement")
    dim = row.get("dimension")
    row["dimension"] = parse_dimension(dim, where) if dim not in (None, "") else None
    if row.get("direction") not in (None, ""):
        row["direction"] = parse_direction(row["direction"], where)
    else:
        row["direction"] = 1
    return row


def _csv_dicts(path: Path) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(read_text(path, ("utf-8-sig", "cp1252")), newline=""))
    rows = csv_rows(reader, path)
    if not reader.fieldnames:
        raise InputError(f"{path}: empty CSV file")
    names = [f.strip().lower() for f in reader.fieldnames]
    return [dict(zip(names, r.values())) for r in rows if any(isinstance(v, str) and v.strip() for v in r.values())]


def _from_csv(path: Path) -> StatementSet:
    rows = _csv_dicts(path)
    if rows and not ({"text", "statement"} & set(rows[0])):
        raise InputError(f"statements {path}: needs a 'text' (or 'statement') column")
    out = []
    for n, row in enumerate(rows, 1):
        clean = {k: (v or "").strip() for k, v in row.items() if k}
        if not clean.get("id"):
            clean["id"] = str(n)
        out.append(_normalise_row(clean, path, n))
    return _validated({"name": path.stem, "source": str(path), "statements": out}, path)


def _from_txt(path: Path) -> StatementSet:
    lines = read_text(path, ("utf-8-sig", "cp1252")).splitlines()
    out = []
    for line in lines:
        if not line.strip():
            continue
        m = re.match(r"\s*(\d+)[.)]\s+(.*)", line)
        item, text = (m.group(1), m.group(2)) if m else (str(len(out) + 1), line)
        out.append({"id": item, "text": text, "dimension": None})
    return _validated({"name": path.stem, "source": str(path), "statements": out}, path)
