"""The bundled per-domain figures (``analysis/methods/inventory/published_domains.json``) equal the paper's repository's
figures_data CSVs cell for cell (github google-deepmind/personality_in_llms @ c3fea44, read from the anchors copy), the
scale codes are the study's own scales, and the file holds numbers, ids, names and the citation only."""

from __future__ import annotations

import csv
import importlib.util
import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from analysis.methods.inventory import published

REPO = Path(__file__).resolve().parents[3]
ANCHOR = REPO.parent / "shared" / "anchors" / "personality_in_llms"
needs_anchor = pytest.mark.skipif(not (ANCHOR / "figures_data").is_dir(),
                                  reason=f"the anchors copy of personality_in_llms is not at {ANCHOR}")
DOC = published.domains()


def _script() -> Any:
    spec = importlib.util.spec_from_file_location("published_domains", REPO / "scripts" / "published_domains.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _csv(name: str) -> list[list[str]]:
    with (ANCHOR / "figures_data" / name).open(newline="", encoding="utf-8") as fh:
        return [[c.strip() for c in row] for row in csv.reader(fh)]


@needs_anchor
def test_convergent_equals_the_csv_cell_for_cell():
    header, *rows = _csv("convergent_validity.csv")
    assert [r[1] for r in rows] == list(DOC["convergent"]["models"]) == list(DOC["models"])
    for row in rows:
        assert DOC["convergent"]["models"][row[1]] == {c: float(v) for c, v in zip(header[2:], row[2:])}, row[1]


@needs_anchor
@pytest.mark.parametrize("domain", ["EXT", "AGR", "CON", "NEU", "OPE"])
def test_external_validity_equals_the_csv_cell_for_cell(domain):
    header, *rows = _csv(f"external_validity_{domain}.csv")
    entry = DOC["external"][domain]
    data = [r for r in rows if r[1]]  # spacer and note rows have no scale code
    assert entry["scales"] == [r[1] for r in data]
    n_cells = 0
    for k, column in enumerate(header[2:], start=2):
        cells = [r[k] for r in data]
        if not any(cells):  # the stray last column
            continue
        mine = entry["models"][column] if column in DOC["models"] else entry["human"]["values"]
        if column not in DOC["models"]:
            assert entry["human"]["label"] == column
        assert mine == {s: float(v) for s, v in zip(entry["scales"], cells)}, column
        n_cells += len(cells)
    assert n_cells == len(entry["scales"]) * (len(DOC["models"]) + (entry["human"] is not None))


@needs_anchor
def test_the_script_regenerates_the_bundled_file():
    assert _script().build(ANCHOR) == json.loads(published.DOMAINS_FILE.read_text(encoding="utf-8"))


@needs_anchor
def test_every_scale_code_is_a_scale_of_the_study():
    """Codes and names as the study's external-rating admin session defines them (its "Achievment" spelled right)."""
    session = json.loads((ANCHOR / "admin_sessions" / "prod_run_01_external_rating.json").read_text(encoding="utf-8"))
    for code, scale in DOC["scales"].items():
        defined = session["measures"][scale["instrument"]]["scales"][code]["user_readable_name"]
        assert scale["name"] == defined.replace("Achievment", "Achievement"), code


def test_the_average_is_the_mean_of_the_domains_and_table_1s_figure():
    """Avg is the mean of the five domains (within the rounding of six two-decimal figures), and Table 1's 'Convrg.'
    (``published.json``) for every model but one: Llama 2-Chat 13B is 0.83 in figures_data (its domains' mean 0.826)
    and 0.82 in the bundled Table 1."""
    table1 = json.loads(published.DOMAINS_FILE.with_name("published.json").read_text(encoding="utf-8"))["models"]
    differ = {}
    for model_id, row in DOC["convergent"]["models"].items():
        assert statistics.mean(row[d] for d in DOC["domains"]) == pytest.approx(row["Avg"], abs=0.01), model_id
        name = DOC["models"][model_id]
        if table1[name]["convergent"] != row["Avg"]:
            differ[name] = (row["Avg"], table1[name]["convergent"])
    assert differ == {"Llama 2-Chat 13B": (0.83, 0.82)}


def _strings(node: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in _strings(v, (*path, k))]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v, path)]
    return [(path, node)] if isinstance(node, str) else []


def test_the_file_holds_numbers_ids_names_and_the_citation_only():
    ids, codes = set(DOC["models"]), set(DOC["scales"]) | set(DOC["domains"]) | {"Avg"}
    citation = {DOC["source"], DOC["repository"], DOC["commit"]}
    for path, text in _strings(DOC):
        where = path[-1]
        if where in ("source", "repository", "commit"):
            assert "Serapio-García" in text or text in citation, path
        elif where == "file":
            assert text.startswith("figures_data/") and text.endswith(".csv")
        elif where in ("columns", "scales"):
            assert text in codes, (path, text)
        elif where in ("name", "domain", "instrument", "label") or path[:1] == ("models",):
            assert len(text) <= 40 and "\n" not in text, (path, text)
        else:
            raise AssertionError(f"unexpected text at {path}: {text!r}")
    for entry in [DOC["convergent"], *DOC["external"].values()]:
        for model_id, row in entry["models"].items():
            assert model_id in ids and all(isinstance(v, float) and -1 <= v <= 1 for v in row.values())
    text = json.dumps(DOC)
    for note in ("Evidence", "TODO", "red cells", "validty", "Stronger"):  # the CSVs' free-text notes stay out
        assert note not in text


def test_the_loaders_name_the_models_and_cite_the_file():
    rows = published.external_rows("CON", "ACHV")
    assert len(rows) == len(DOC["models"]) and {r["scale_name"] for r in rows} == {"PVQ-RR Achievement"}
    gpt4o = next(r for r in rows if r["model_id"] == "gpt-4o")
    assert gpt4o["model"] == "GPT-4o" and gpt4o["value"] == DOC["external"]["CON"]["models"]["gpt-4o"]["ACHV"]
    assert "external_validity_CON.csv" in gpt4o["source"] and "c3fea44" in gpt4o["source"]
    assert published.external_rows("CON", "PA") == []
    conv = published.convergent_rows()
    assert {r["domain"] for r in conv} == {"E", "A", "C", "N", "O", "Avg"} and len(conv) == 6 * len(DOC["models"])
