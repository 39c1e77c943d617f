"""Simulated populations: lists of personas ``{name, description, gender}``.

``default`` is the project-authored population in ``data/values/personas.json``; any file in the
same format (the reference ``personas/<population>/personas.json``) or a folder holding one can be
given instead, locally or as ``hf://datasets/<owner>/<name>/<path>``; or a CSV with the columns
name, description, gender. Every row is checked: ``read_population`` returns the personas and one
error line per bad row, and a file with any bad row is refused as a whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError, ValidationInfo, field_validator

from analysis.errors import InputError
from analysis.importers.files import load_json, read_csv_rows
from analysis.sources import DATA_DIR, existing_path, hub_file, is_hub_path, split_hub_path

BUNDLED = {"default": DATA_DIR / "values/personas.json"}
_GENDERS = {"f": "female", "female": "female", "w": "female", "m": "male", "male": "male"}


class Persona(BaseModel):
    id: int
    name: str
    description: str
    gender: Literal["female", "male"]

    @field_validator("name", "description")
    @classmethod
    def _not_blank(cls, value: str, info: ValidationInfo) -> str:
        if not value.strip():
            raise ValueError("description is empty (the persona prompt is 'You are {description}')"
                             if info.field_name == "description" else "must not be empty")
        return value

    @field_validator("gender", mode="before")
    @classmethod
    def _gender(cls, value: object) -> str:
        norm = _GENDERS.get(str(value).strip().lower())
        if norm is None:
            raise ValueError(f"gender {value!r} is not F/M")
        return norm


def load_population(source: str | Path) -> list[Persona]:
    source = str(source)
    if source in BUNDLED:
        path = BUNDLED[source]
    elif is_hub_path(source):
        repo_id, file = split_hub_path(source)
        path = hub_file(repo_id, file if file.endswith(".json") else f"{file}/personas.json".lstrip("/"))
    else:
        path = existing_path(source, "population")
        if path.is_dir():
            path = existing_path(path / "personas.json", "population")
    return parse_personas(path)


def read_population(path: Path) -> tuple[list[Persona], list[str]]:
    """(valid personas, one error per bad entry) of a personas.json list or a name/description/gender CSV.
    JSON entries are counted from 0 ("persona 3"), CSV rows as a spreadsheet shows them (header = row 1)."""
    if path.suffix.lower() == ".csv":
        entries = read_csv_rows(path, ("name", "description", "gender"))
        where = [f"row {i + 2}" for i in range(len(entries))]
    else:
        entries = load_json(path)
        if not isinstance(entries, list) or not entries:
            raise InputError(f"population {path}: expected a non-empty list of {{name, description, gender}}")
        where = [f"persona {i}" for i in range(len(entries))]
    personas, errors = [], []
    for i, entry in enumerate(entries):
        try:
            personas.append(Persona(id=i, **entry))
        except (ValidationError, TypeError) as exc:
            reason = exc.errors()[0]["msg"].removeprefix("Value error, ") if isinstance(exc, ValidationError) else str(exc)
            field = ".".join(map(str, exc.errors()[0]["loc"])) if isinstance(exc, ValidationError) else "entry"
            errors.append(f"{where[i]} field '{field}': {reason}")
    first: dict[tuple[str, str], int] = {}
    for i, persona in enumerate(personas):  # the same persona twice would count twice in every correlation
        key = (persona.name.strip().casefold(), persona.description.strip().casefold(), persona.gender)
        if key in first:
            errors.append(f"{where[persona.id]}: the same persona as {where[first[key]]} ({persona.name[:40]}); "
                          "give each persona once")
        first.setdefault(key, persona.id)
    return personas, errors


def parse_personas(path: Path) -> list[Persona]:
    personas, errors = read_population(path)
    if errors:
        more = f" (and {len(errors) - 1} more bad entries)" if len(errors) > 1 else ""
        raise InputError(f"population {path}: {errors[0]}{more}")
    return personas
