"""Instrument loaders: the reference PVQ-40/SVS folders, the bundled PVQ, hf:// offline, malformed files.

Reference data: github flowersteam/value_stability (Kovač et al. 2024, MIT), read from ../shared/anchors.
"""

from __future__ import annotations

import csv
import re
import json
import shutil
from collections import Counter
from pathlib import Path

import huggingface_hub
import pytest

from analysis.errors import InputError
from analysis.methods.values import VALUES
from analysis.methods.values.instruments import Instrument, load_instrument

ANCHORS = Path(__file__).resolve().parents[3].parent / "shared/anchors/stick_to_your_role/data"
PVQ_DIR, SVS_DIR = ANCHORS / "data_pvq", ANCHORS / "data_svs"
needs_anchors = pytest.mark.skipif(not ANCHORS.is_dir(), reason=f"reference data not found at {ANCHORS}")


def csv_rows(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return [row for row in csv.reader(fh) if row]


def reference_key(folder: Path) -> dict[str, list[int]]:
    return {k: v for k, v in json.loads((folder / "raw/values.json").read_text()).items() if not k.startswith("_")}


@pytest.fixture(scope="module")
def pvq() -> Instrument:
    return load_instrument(PVQ_DIR)


@pytest.fixture(scope="module")
def svs() -> Instrument:
    return load_instrument(SVS_DIR)


# -- PVQ-40 -----------------------------------------------------------------------------------

@needs_anchors
def test_pvq_has_40_items_with_gendered_wording(pvq: Instrument) -> None:
    """The reference PVQ-40 folder gives 40 items whose male and female wordings all differ."""
    assert pvq.kind == "pvq" and len(pvq.items) == 40
    assert [i.id for i in pvq.items] == [str(n) for n in range(1, 41)]
    assert all(i.text["male"] != i.text["female"] for i in pvq.items)
    assert pvq.items[0].wording("female") == pvq.items[0].text["female"]


@needs_anchors
def test_pvq_key_matches_values_json(pvq: Instrument) -> None:
    """Item -> value keying equals raw/values.json exactly (1-based indices)."""
    key = reference_key(PVQ_DIR)
    assert {v: [int(i.id) for i in pvq.items if i.value == v] for v in key} == {v: sorted(ix) for v, ix in key.items()}
    assert pvq.items[0].value == "Self-Direction"
    assert pvq.items[1].value == "Power"
    assert pvq.items[39].value == "Universalism"
    counts = Counter(i.value for i in pvq.items)
    order = ["Conformity", "Tradition", "Benevolence", "Universalism", "Self-Direction",
             "Stimulation", "Hedonism", "Achievement", "Power", "Security"]
    assert [counts[v] for v in order] == [4, 4, 4, 6, 4, 3, 3, 4, 3, 5]
    assert set(counts) == set(VALUES) and len(pvq.keyed_items) == 40


@needs_anchors
def test_pvq_options_scored_1_to_6_in_order(pvq: Instrument) -> None:
    """Six options taken from the csv header cells, scored 1..6 in their order; 'undef' dropped."""
    first_row = csv_rows(PVQ_DIR / "test/pvq_male_test.csv")[0]
    assert [o.label for o in pvq.options] == first_row[1:7]
    assert [o.score for o in pvq.options] == [1, 2, 3, 4, 5, 6]
    assert "undef" not in [o.label.lower() for o in pvq.options]


@needs_anchors
def test_pvq_texts_verbatim(pvq: Instrument) -> None:
    """Item texts equal the csv cells byte for byte, typos (lower-case sentence starts, curly quotes) kept."""
    male, female = csv_rows(PVQ_DIR / "test/pvq_male_test.csv"), csv_rows(PVQ_DIR / "test/pvq_female_test.csv")
    for n in (1, 2, 4, 18, 23, 36, 40):
        assert pvq.items[n - 1].text == {"male": male[n - 1][0], "female": female[n - 1][0]}
    lower_start = [n for n, row in enumerate(male, 1) if row[0][0].islower()]
    assert len(lower_start) >= 2  # the reference file has such typos; a loader must not "fix" them
    assert all(pvq.items[n - 1].text["male"][0].islower() for n in lower_start)
    assert any("’" in i.text["male"] for i in pvq.items)


# -- SVS --------------------------------------------------------------------------------------

@needs_anchors
def test_svs_items_keying_and_lists(svs: Instrument) -> None:
    """57 items, 46 keyed as in values.json, 11 unkeyed; list 1 = the 30 names of values_list_1.json."""
    assert svs.kind == "svs" and len(svs.items) == 57
    assert len(svs.keyed_items) == 46
    assert sum(i.value is None for i in svs.items) == 11
    key = reference_key(SVS_DIR)
    assert {v: [int(i.id) for i in svs.items if i.value == v] for v in key} == {v: sorted(ix) for v, ix in key.items()}
    list_1 = set(json.loads((SVS_DIR / "raw/values_list_1.json").read_text())["values"])
    assert len(list_1) == 30
    assert {i.text["any"] for i in svs.items if i.list_no == 1} == list_1
    assert sum(i.list_no == 2 for i in svs.items) == 27
    rows = csv_rows(SVS_DIR / "test/svs_test.csv")
    assert [i.text["any"] for i in svs.items] == [r[0] for r in rows]


@needs_anchors
def test_svs_options_scored_minus1_to_7(svs: Instrument) -> None:
    """Nine options from the csv header cells, scored -1..7 in order."""
    assert [o.score for o in svs.options] == [-1, 0, 1, 2, 3, 4, 5, 6, 7]
    assert [o.label for o in svs.options] == csv_rows(SVS_DIR / "test/svs_test.csv")[0][1:10]


# -- bundled ----------------------------------------------------------------------------------

def test_bundled_pvq_has_4_items_per_value() -> None:
    """The project-authored 'pvq' instrument: 40 items, 4 per value, PVQ options 1..6."""
    inst = load_instrument("pvq")
    assert inst.kind == "pvq" and len(inst.items) == 40
    assert Counter(i.value for i in inst.items) == {v: 4 for v in VALUES}
    assert [o.score for o in inst.options] == [1, 2, 3, 4, 5, 6]
    assert all(set(i.text) >= {"male", "female"} for i in inst.items)


def test_svs_is_not_bundled() -> None:
    """'svs' alone is refused with a message telling where to get it."""
    with pytest.raises(InputError, match="data_svs"):
        load_instrument("svs")


# -- hf:// offline ----------------------------------------------------------------------------

class FakeHub:
    """Stands in for huggingface_hub.hf_hub_download: serves the anchors' files, records calls."""

    def __init__(self, repo_id: str, root: Path):
        self.repo_id, self.root, self.calls = repo_id, root, []

    def __call__(self, repo_id: str, filename: str, repo_type: str | None = None, **_: object) -> str:
        self.calls.append((repo_id, filename, repo_type))
        path = self.root / filename
        if repo_id != self.repo_id or not path.exists():
            raise FileNotFoundError(filename)
        return str(path)


@needs_anchors
@pytest.mark.parametrize("folder, files", [
    ("data_pvq", ["raw/values.json", "test/pvq_male_test.csv", "test/pvq_female_test.csv"]),
    ("data_svs", ["raw/values.json", "test/svs_test.csv", "raw/values_list_1.json", "raw/values_list_2.json"]),
])
def test_hub_loading_offline(monkeypatch: pytest.MonkeyPatch, folder: str, files: list[str]) -> None:
    """hf://datasets/<repo>/<folder> asks the hub for the layout's files (repo_type dataset) and equals the local load."""
    fake = FakeHub("someone/value-data", ANCHORS)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake)
    source = f"hf://datasets/someone/value-data/{folder}"
    inst = load_instrument(source)
    assert fake.calls == [("someone/value-data", f"{folder}/{f}", "dataset") for f in files]
    local = load_instrument(ANCHORS / folder)
    assert inst.source == source
    assert inst.model_dump(exclude={"source"}) == local.model_dump(exclude={"source"})


def test_hub_failure_names_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A file the hub cannot serve -> InputError naming the hf:// path."""
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", FakeHub("someone/value-data", tmp_path))
    with pytest.raises(InputError, match=r"hf://datasets/someone/value-data/data_pvq/raw/values\.json: cannot fetch"):
        load_instrument("hf://datasets/someone/value-data/data_pvq")


def test_hub_path_needs_owner_and_name() -> None:
    """hf://datasets/<owner> alone is malformed."""
    with pytest.raises(InputError, match="expected hf://datasets/<owner>/<name>"):
        load_instrument("hf://datasets/onlyowner")


# -- malformed inputs -------------------------------------------------------------------------

OPTIONS = ["Not like me at all", "Not like me", "A little like me", "Somewhat like me", "Like me", "Very much like me"]


def write_pvq(root: Path, n_items: int = 3, key: object | None = None) -> Path:
    """A tiny PVQ folder in the reference layout, authored here."""
    (root / "raw").mkdir(parents=True)
    (root / "test").mkdir()
    for gender, pron in (("male", "him"), ("female", "her")):
        with (root / f"test/pvq_{gender}_test.csv").open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, quoting=csv.QUOTE_ALL)
            for n in range(n_items):
                writer.writerow([f"Item {n + 1} matters to {pron}.", *OPTIONS, "undef"])
    key = key if key is not None else {"Power": [1], "Security": [2, 3]}
    (root / "raw/values.json").write_text(json.dumps(key), encoding="utf-8")
    return root


def write_svs(root: Path, list_1: list[str], list_2: list[str], rows: list[str]) -> Path:
    (root / "raw").mkdir(parents=True)
    (root / "test").mkdir()
    labels = ["-1", "0", "1", "2", "3", "4", "5", "6", "7"]
    with (root / "test/svs_test.csv").open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([[r, *labels, "undef"] for r in rows])
    (root / "raw/values.json").write_text(json.dumps({"Power": [1]}), encoding="utf-8")
    (root / "raw/values_list_1.json").write_text(json.dumps({"values": list_1}), encoding="utf-8")
    (root / "raw/values_list_2.json").write_text(json.dumps({"values": list_2}), encoding="utf-8")
    return root


def test_tiny_pvq_folder_loads(tmp_path: Path) -> None:
    """The hand-written tiny folder is valid (so the malformed variants below fail for their own reason)."""
    inst = load_instrument(write_pvq(tmp_path / "pvq"))
    assert [i.value for i in inst.items] == ["Power", "Security", "Security"]
    assert inst.items[2].text == {"male": "Item 3 matters to him.", "female": "Item 3 matters to her."}


def test_missing_csv(tmp_path: Path) -> None:
    """A folder without the female csv -> InputError naming the folder and the expected files."""
    folder = write_pvq(tmp_path / "pvq")
    (folder / "test/pvq_female_test.csv").unlink()
    with pytest.raises(InputError, match=rf"{re.escape(str(folder))}.*pvq_female_test\.csv"):
        load_instrument(folder)


def test_missing_folder(tmp_path: Path) -> None:
    """A path that does not exist -> InputError naming it."""
    with pytest.raises(InputError, match="not found"):
        load_instrument(tmp_path / "nowhere")


def test_csv_line_with_too_few_cells(tmp_path: Path) -> None:
    """A csv line with < 3 cells -> InputError naming the csv file and the line number."""
    folder = write_pvq(tmp_path / "pvq")
    male = folder / "test/pvq_male_test.csv"
    male.write_text(male.read_text(encoding="utf-8") + '"A lone item text"\n', encoding="utf-8")
    with pytest.raises(InputError, match=rf"{re.escape(str(male))}: line 4 has 1 cells"):
        load_instrument(folder)


def test_out_of_range_index(tmp_path: Path) -> None:
    """values.json pointing at item 4 of 3 -> InputError naming the file, the value and the index."""
    folder = write_pvq(tmp_path / "pvq", key={"Power": [1, 4]})
    with pytest.raises(InputError, match=rf"{re.escape(str(folder / 'raw/values.json'))}: value 'Power' has index 4 outside 1\.\.3"):
        load_instrument(folder)


def test_duplicate_keying(tmp_path: Path) -> None:
    """One item keyed to two values -> InputError naming the file, item and both values."""
    folder = write_pvq(tmp_path / "pvq", key={"Power": [1], "Security": [1, 2]})
    with pytest.raises(InputError, match=r"values\.json: item 1 is keyed to both 'Power' and 'Security'"):
        load_instrument(folder)


def test_unknown_value_name(tmp_path: Path) -> None:
    """A value that is not one of Schwartz's ten -> InputError naming the file and the value."""
    folder = write_pvq(tmp_path / "pvq", key={"Powr": [1]})
    with pytest.raises(InputError, match=r"values\.json: unknown value 'Powr'"):
        load_instrument(folder)


def test_invalid_json(tmp_path: Path) -> None:
    """values.json that is not JSON -> InputError naming the file and line."""
    folder = write_pvq(tmp_path / "pvq")
    (folder / "raw/values.json").write_text('{\n  "Power": [1,\n}', encoding="utf-8")
    with pytest.raises(InputError, match=rf"{re.escape(str(folder / 'raw/values.json'))}: invalid JSON at line 3"):
        load_instrument(folder)


def test_invalid_instrument_json_file(tmp_path: Path) -> None:
    """A RoleScope .json instrument with a bad field -> InputError naming the file and the field."""
    doc = json.loads((Path(__file__).resolve().parents[3] / "data/values/instruments/pvq_rs.json").read_text())
    doc["items"][3]["value"] = "Fame"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError, match=rf"instrument {re.escape(str(path))}: .*unknown values \['Fame'\]"):
        load_instrument(path)
    path.write_text(json.dumps(doc)[:-20], encoding="utf-8")
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}: invalid JSON at line 1"):
        load_instrument(path)


def test_svs_item_in_neither_list(tmp_path: Path) -> None:
    """An SVS row whose text is in neither list file -> InputError naming the csv and the line."""
    folder = write_svs(tmp_path / "svs", ["ALPHA (a)"], ["BETA (b)"], ["ALPHA (a)", "BETA (b)", "GAMMA (c)"])
    with pytest.raises(InputError, match=r"svs_test\.csv: line 3 'GAMMA \(c\)' is in neither SVS list"):
        load_instrument(folder)
    shutil.rmtree(folder)
    inst = load_instrument(write_svs(folder, ["ALPHA (a)"], ["BETA (b)"], ["ALPHA (a)", "BETA (b)"]))
    assert [(i.list_no, i.value) for i in inst.items] == [(1, "Power"), (2, None)]
