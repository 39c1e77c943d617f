"""Value questionnaires as data: items keyed to values, option labels with their scores.

Formats read here:

- RoleScope JSON (``data/values/instruments/*.json``): ``{name, kind, title, instructions,
  options: [{label, score}], items: [{id, value, text: {male, female}}]}``.
- The Stick to Your Role! reference layout (``flowersteam/value_stability``), a folder
  ``data_pvq`` or ``data_svs`` with ``raw/values.json`` (value -> 1-based item indices) and
  ``test/*.csv`` (one row per item: text, option labels..., "undef"). PVQ-40 has a male and a
  female file; SVS has ``svs_test.csv`` plus ``raw/values_list_{1,2}.json`` (its two lists).
  Options are scored by position: PVQ 1..6, SVS -1..7 (Schwartz 1992).
- Either of those from the hub: ``hf://datasets/<owner>/<name>/<folder>``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from analysis.errors import InputError
from analysis.importers.files import csv_rows, load_json, read_text
from analysis.methods.values import VALUES
from analysis.sources import DATA_DIR, existing_path, hub_file, is_hub_path, split_hub_path

BUNDLED = {"pvq": DATA_DIR / "values/instruments/pvq_rs.json"}
PVQ_SCORES = (1, 2, 3, 4, 5, 6)
SVS_SCORES = (-1, 0, 1, 2, 3, 4, 5, 6, 7)


#: Options a question can letter (A-Z), and the range of an option's score (a rating scale's points).
MAX_OPTIONS = 26
SCORE_RANGE = (-10.0, 10.0)


class Option(BaseModel):
    label: str
    score: float = Field(allow_inf_nan=False)

    @field_validator("label")
    @classmethod
    def _label(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("option label is empty")
        return value


class Item(BaseModel):
    id: str
    value: str | None = Field(description="Schwartz value the item is keyed to; None = unkeyed (SVS has 11).")
    text: dict[str, str] = Field(description="Wording per gender ('male', 'female'); 'any' when not gendered.")
    list_no: int | None = Field(default=None, description="SVS list (1 or 2); None for PVQ.")

    @field_validator("text")
    @classmethod
    def _text(cls, value: dict[str, str]) -> dict[str, str]:
        if not value:
            raise ValueError("item has no text (expected {'male': ..., 'female': ...} or {'any': ...})")
        empty = [k for k, v in value.items() if not v.strip()]
        if empty:
            raise ValueError(f"item text is empty ({', '.join(empty)})")
        return value

    def wording(self, gender: str) -> str:
        return self.text.get(gender) or self.text.get("any") or next(iter(self.text.values()))


class Instrument(BaseModel):
    name: str
    kind: Literal["pvq", "svs"]
    title: str = ""
    instructions: str = ""
    source: str = ""
    options: list[Option]
    items: list[Item]

    @model_validator(mode="after")
    def _check(self) -> Instrument:
        if len(self.options) < 2:
            raise ValueError("needs at least 2 options")
        if len(self.options) > MAX_OPTIONS:
            raise ValueError(f"{len(self.options)} options; a question shows at most {MAX_OPTIONS} (lettered A to Z)")
        labels = [o.label.strip().casefold() for o in self.options]
        if len(set(labels)) != len(labels):
            twice = next(o.label for o, key in zip(self.options, labels) if labels.count(key) > 1)
            raise ValueError(f"option label '{twice[:60]}' appears twice (a reply naming it could not be read)")
        scores = [o.score for o in self.options]
        if len(set(scores)) != len(scores):
            raise ValueError("two options have the same score")
        outside = [s for s in scores if not SCORE_RANGE[0] <= s <= SCORE_RANGE[1]]
        if outside:
            raise ValueError(f"option score {outside[0]:g} is outside {SCORE_RANGE[0]:g}..{SCORE_RANGE[1]:g} (a rating "
                             "scale's points: PVQ 1..6, SVS -1..7)")
        if not any(i.value is not None for i in self.items):
            raise ValueError("no item is keyed to a value: nothing could be scored")
        ids = [i.id for i in self.items]
        if len(set(ids)) != len(ids):
            raise ValueError("item ids are not unique")
        unknown = {i.value for i in self.items if i.value is not None} - set(VALUES)
        if unknown:
            raise ValueError(f"unknown values {sorted(unknown)}; expected {list(VALUES)}")
        return self

    @property
    def keyed_items(self) -> list[Item]:
        return [i for i in self.items if i.value is not None]

    def limited(self, n: int | None) -> Instrument:
        """The first ``n`` items (all when None), keeping SVS lists whole in order; ``n`` < 1 is an InputError."""
        if n is not None and n < 1:
            raise InputError(f"--limit-items {n}: give a number of items of at least 1")
        return self if n is None else self.model_copy(update={"items": self.items[:n]})


def load_instrument(source: str | Path) -> Instrument:
    """``pvq`` (bundled, project-authored), a JSON file, a reference folder, or an hf:// folder."""
    source_str = str(source)
    if source_str in BUNDLED:
        return _from_json(BUNDLED[source_str])
    if source_str == "svs":
        raise InputError(
            "instrument 'svs': the SVS is not bundled; pass its folder (the reference 'data_svs' layout) "
            "or hf://datasets/<owner>/<name>/<path-to-data_svs>"
        )
    if is_hub_path(source_str):
        return _from_hub(source_str)
    path = existing_path(source_str, "instrument")
    if path.is_dir():
        return load_reference_folder(path)
    if path.suffix.lower() == ".json":
        return _from_json(path)
    raise InputError(f"instrument {path}: expected a RoleScope .json file or a reference data_pvq/data_svs folder")


def _from_json(path: Path) -> Instrument:
    try:
        return Instrument.model_validate(load_json(path))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = f"field '{'.'.join(map(str, err['loc']))}': " if err["loc"] else ""
        raise InputError(f"instrument {path}: {where}{err['msg'].removeprefix('Value error, ')}") from None


def _read_json(path: Path) -> object:
    return load_json(path)


def _read_rows(path: Path) -> list[list[str]]:
    rows = [r for r in csv_rows(csv.reader(io.StringIO(read_text(path), newline="")), path) if r]
    for n, row in enumerate(rows, 1):
        if len(row) < 3:
            raise InputError(f"{path}: line {n} has {len(row)} cells; expected item text, option labels and 'undef'")
        if not row[0].strip():
            raise InputError(f"{path}: line {n}: the item text is empty")
    return rows


def _labels(row: list[str]) -> list[str]:
    return [c for c in row[1:] if c.strip().lower() != "undef"]


def _value_of_index(values_json: Path, n_items: int) -> dict[int, str]:
    """Invert the reference key ``{value: [1-based indices]}`` into ``{0-based index: value}``."""
    key = _read_json(values_json)
    if not isinstance(key, dict):
        raise InputError(f"{values_json}: expected an object value -> item indices")
    out: dict[int, str] = {}
    for value, indices in key.items():
        if value.startswith("_"):
            continue
        if value not in VALUES:
            raise InputError(f"{values_json}: unknown value '{value}'")
        for idx in indices:
            if not isinstance(idx, int) or not 1 <= idx <= n_items:
                raise InputError(f"{values_json}: value '{value}' has index {idx!r} outside 1..{n_items}")
            if idx - 1 in out:
                raise InputError(f"{values_json}: item {idx} is keyed to both '{out[idx - 1]}' and '{value}'")
            out[idx - 1] = value
    return out


def load_reference_folder(folder: Path) -> Instrument:
    """Read a reference ``data_pvq`` or ``data_svs`` folder (see module docstring)."""
    test = folder / "test"
    if (test / "svs_test.csv").exists():
        return _svs_from_files(folder / "raw/values.json", test / "svs_test.csv",
                               [folder / "raw/values_list_1.json", folder / "raw/values_list_2.json"], str(folder))
    male, female = test / "pvq_male_test.csv", test / "pvq_female_test.csv"
    if male.exists() and female.exists():
        return _pvq_from_files(folder / "raw/values.json", male, female, str(folder))
    raise InputError(f"instrument {folder}: no test/pvq_male_test.csv + test/pvq_female_test.csv or test/svs_test.csv")


def _pvq_from_files(values_json: Path, male_csv: Path, female_csv: Path, source: str) -> Instrument:
    male, female = _read_rows(male_csv), _read_rows(female_csv)
    if len(male) != len(female):
        raise InputError(f"{female_csv}: {len(female)} items but {male_csv} has {len(male)}")
    labels = _labels(male[0])
    if len(labels) != len(PVQ_SCORES):
        raise InputError(f"{male_csv}: line 1 has {len(labels)} option labels; PVQ has {len(PVQ_SCORES)}")
    key = _value_of_index(existing_path(values_json, "values key"), len(male))
    if not key:
        raise InputError(f"{values_json}: keys no item to a value; nothing could be scored")
    items = [
        Item(id=str(i + 1), value=key.get(i), text={"male": m[0], "female": f[0]})
        for i, (m, f) in enumerate(zip(male, female))
    ]
    return Instrument(name="pvq-40", kind="pvq", title="Portrait Values Questionnaire (PVQ-40)", source=source,
                      options=[Option(label=l, score=s) for l, s in zip(labels, PVQ_SCORES)], items=items)


def _svs_from_files(values_json: Path, svs_csv: Path, list_files: list[Path], source: str) -> Instrument:
    rows = _read_rows(svs_csv)
    labels = _labels(rows[0])
    if len(labels) != len(SVS_SCORES):
        raise InputError(f"{svs_csv}: line 1 has {len(labels)} option labels; SVS has {len(SVS_SCORES)}")
    key = _value_of_index(existing_path(values_json, "values key"), len(rows))
    if not key:
        raise InputError(f"{values_json}: keys no item to a value; nothing could be scored")
    list_of: dict[str, int] = {}
    for n, path in enumerate(list_files, 1):
        doc = _read_json(existing_path(path, "SVS list"))
        names = doc.get("values") if isinstance(doc, dict) else doc
        if not isinstance(names, list):
            raise InputError(f"{path}: expected {{'values': [...]}} or a list of value names")
        list_of.update({name: n for name in names})
    items = []
    for i, row in enumerate(rows):
        if row[0] not in list_of:
            raise InputError(f"{svs_csv}: line {i + 1} '{row[0][:40]}' is in neither SVS list")
        items.append(Item(id=str(i + 1), value=key.get(i), text={"any": row[0]}, list_no=list_of[row[0]]))
    return Instrument(name="svs", kind="svs", title="Schwartz Value Survey (SVS)", source=source,
                      options=[Option(label=l, score=s) for l, s in zip(labels, SVS_SCORES)], items=items)


def _from_hub(source: str) -> Instrument:
    repo_id, folder = split_hub_path(source)
    prefix = f"{folder}/" if folder else ""
    if "svs" in folder.rsplit("/", 1)[-1].lower():
        files = [hub_file(repo_id, prefix + f) for f in
                 ("raw/values.json", "test/svs_test.csv", "raw/values_list_1.json", "raw/values_list_2.json")]
        return _svs_from_files(files[0], files[1], files[2:], source)
    files = [hub_file(repo_id, prefix + f) for f in ("raw/values.json", "test/pvq_male_test.csv", "test/pvq_female_test.csv")]
    return _pvq_from_files(files[0], files[1], files[2], source)


def bundled_wording(instrument: str) -> dict[str, str]:
    """item_id -> wording for an instrument RoleScope bundles (pvq-rs, male form); empty for any other."""
    names = {"pvq-rs": "pvq", "pvq": "pvq"}
    if instrument not in names:
        return {}
    try:
        inst = load_instrument(names[instrument])
    except Exception:  # noqa: BLE001 - a missing instrument only means no wording beside the item
        return {}
    return {i.id: i.wording("male") for i in inst.items}
