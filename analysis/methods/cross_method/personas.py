"""The persona set of a campaign: ``N`` (the first N of the bundled set) or a file of personas.

The bundled set (``data/cross_method/personas.json``) is 40 authored personas, the values method's default population
with each persona's age written out. A file is a JSON list or JSON lines of ``{id, name, description, sex, age}``
objects, or a CSV with those columns; ids and descriptions must be unique (a description is the persona's identity
across methods: ``analysis.persona_scores.persona_key``). Every bad row is named, and a file with one is refused.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from analysis.errors import InputError
from analysis.importers.files import load_json, parse_json_line, read_csv_rows, read_text
from analysis.persona_scores import CampaignPersona
from analysis.sources import DATA_DIR, existing_path
from analysis.methods.cross_method.correlations import MIN_PERSONAS

BUNDLED = DATA_DIR / "cross_method/personas.json"
DEFAULT_N = 20
FIELDS = ("id", "name", "description", "sex", "age")


def load_personas(source: str | int | Path = DEFAULT_N) -> list[CampaignPersona]:
    """``source``: N (the first N of the bundled set) or a path."""
    text = str(source).strip()
    if text.isdigit():
        n = int(text)
        bundled = read_personas(BUNDLED)
        if not MIN_PERSONAS <= n <= len(bundled):
            raise InputError(f"--personas {n}: a campaign needs {MIN_PERSONAS} to {len(bundled)} of the bundled personas "
                             f"(a correlation across fewer than {MIN_PERSONAS} personas is undefined); give a file for more")
        return bundled[:n]
    return read_personas(existing_path(text, "personas"))


def read_personas(path: Path) -> list[CampaignPersona]:
    """Every persona of ``path``; InputError naming the file and each bad row (at most five)."""
    if path.suffix.lower() == ".csv":
        entries: list[object] = list(read_csv_rows(path, FIELDS))
        where = [f"row {i + 2}" for i in range(len(entries))]
    elif path.suffix.lower() == ".jsonl":
        entries, where = [], []
        for n, line in enumerate(read_text(path).splitlines(), 1):
            if line.strip():
                entries.append(parse_json_line(line, f"personas {path}: line {n}"))
                where.append(f"line {n}")
    else:
        entries = load_json(path)
        if not isinstance(entries, list):
            raise InputError(f"personas {path}: expected a list of {{{', '.join(FIELDS)}}} objects")
        where = [f"persona {i}" for i in range(len(entries))]
    people, errors = [], []
    for entry, at in zip(entries, where):
        try:
            people.append(CampaignPersona.model_validate(entry))
        except ValidationError as exc:
            err = exc.errors()[0]
            errors.append(f"{at} field '{'.'.join(map(str, err['loc'])) or 'entry'}': {err['msg']}")
    for label, seen in (("id", [p.id for p in people]), ("description", [p.key for p in people])):
        doubled = sorted({x for x in seen if seen.count(x) > 1})
        if doubled:
            errors.append(f"{len(doubled)} {label}(s) given twice (each persona needs its own {label})")
    if errors:
        raise InputError(f"personas {path}: " + "; ".join(errors[:5]) + (f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""))
    if len(people) < MIN_PERSONAS:
        raise InputError(f"personas {path}: {len(people)} persona(s); a campaign needs at least {MIN_PERSONAS}")
    return people
