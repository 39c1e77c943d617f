"""``import lee-values``: Lee et al.'s role-played PVQ-RR answers (github brucewlee/values, read from
``../shared/anchors/lee_values``) become values runs whose scores follow the authors' own ``score.py`` (its functions
executed here on the same letters), with a circumplex, CFA fits and re-test stability for each of the three models."""

from __future__ import annotations

import ast
import json
import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.__main__ import main
from analysis.errors import InputError
from analysis.methods.base import doc_frame
from analysis.methods.values.import_lee import (
    AUTHORS_KEY, FIRST, SECOND, agreement_class, parse_source, prompt_labels, store_parsed,
)
from analysis.methods.values.scores import value_scores
from analysis.runs.store import Store

SOURCE = Path(__file__).resolve().parents[4] / "shared" / "anchors" / "lee_values"
MODELS = ("gpt-3.5-turbo-0125", "command-r-plus", "claude-3-sonnet-20240229")
needs_source = pytest.mark.skipif(not SOURCE.is_dir(), reason="../shared/anchors/lee_values not present")


def authors_functions() -> dict:
    """``parse_responses`` and ``compute_scores`` of the authors' ``score.py``, executed from its own text (its module
    body also renders reports with rich and plotly, so only these two function definitions are run)."""
    tree = ast.parse((SOURCE / "score.py").read_text())
    wanted = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in ("parse_responses", "compute_scores")]
    namespace: dict = {"json": json, "defaultdict": defaultdict}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), "score.py", "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def parsed():
    return parse_source([SOURCE])


@pytest.fixture(scope="module")
def report(parsed, tmp_path_factory):
    from analysis.methods.values.metrics import values_report

    store = Store(tmp_path_factory.mktemp("lee") / "store.db")
    store_parsed(store, parsed)
    return values_report(store, n_boot=200)


@needs_source
def test_the_authors_key_holds_54_of_the_57_items_and_leaves_face_out() -> None:
    items = [i for v in AUTHORS_KEY.values() for i in v]
    assert len(items) == len(set(items)) == 54
    assert set(range(1, 58)) - set(items) == {9, 24, 49}  # face (Schwartz et al. 2012's items 9, 24, 49)
    assert {7, 38, 54} <= set(AUTHORS_KEY["Tradition"])  # humility under Tradition


@needs_source
def test_value_scores_on_the_authors_letters_equal_score_py(parsed, tmp_path) -> None:
    """RoleScope's ``ipsatised`` score (value mean − the persona's mean over every answered item) on the authors'
    parsed letters equals ``compute_scores(parse_responses(file))`` of their score.py, for every persona of one file
    per model (each file is one persona's answers only when split per persona: the authors' function averages a file,
    so it is run on one persona's lines at a time)."""
    authors = authors_functions()
    for model_dir in sorted((SOURCE / "runs").glob("run_25_1_*")):
        lines = [json.loads(x) for x in (model_dir / "prompts-response.jsonl").read_text().splitlines() if x.strip()]
        by_persona: dict[str, list[dict]] = defaultdict(list)
        for line in lines:
            by_persona[line["persona"]["description"]].append(line)
        checked = 0
        for pid, (_, mine) in enumerate(list(by_persona.items())[:8]):
            path = tmp_path / f"{model_dir.name[:20]}-{pid}.jsonl"
            path.write_text("\n".join(json.dumps(x) for x in mine))
            theirs, _ = authors["compute_scores"](*authors["parse_responses"](str(path)))
            rows = pd.DataFrame([{"model": "m", "context": "c", "instrument": "pvq-rr", "persona_id": pid,
                                  "item_id": str(x["question_number"]), "stage": "item",
                                  "value": next((v for v, items in AUTHORS_KEY.items() if x["question_number"] in items),
                                                None),
                                  "valid": int(x["response_parsed"] in "ABCDEF" and len(x["response_parsed"]) == 1),
                                  "score": "ABCDEF".find(x["response_parsed"]) + 1} for x in mine])
            ours = value_scores(rows).set_index("value")["ipsatised"]
            for value, score in theirs.items():
                assert ours[value] == pytest.approx(score, abs=1e-12), (model_dir.name, pid, value)
            checked += 1
        assert checked == 8


@needs_source
def test_every_model_has_75_personas_15_asked_again_and_every_item(parsed) -> None:
    assert sorted(m.model for m in parsed) == sorted(MODELS)
    for m in parsed:
        rows = pd.DataFrame(m.rows)
        assert rows.loc[rows["context"] == FIRST, "persona_id"].nunique() == 75
        assert rows.loc[rows["context"] == SECOND, "persona_id"].nunique() == 15
        assert len(rows) == (75 + 15) * 57
        # a re-asked persona is the same persona id as its first asking (matched by description, never position)
        plan_personas = {p["id"]: p["description"] for p in m.plan["personas"]}
        assert set(rows.loc[rows["context"] == SECOND, "persona_id"]) == set(m.plan["retest_personas"])
        assert all(plan_personas[p] for p in m.plan["retest_personas"])


@needs_source
def test_reader_agreement_counts_every_answer_once_and_finds_the_authors_very_much_misread(parsed) -> None:
    for m in parsed:
        agree = m.plan["reader_agreement"]
        assert sum(c["n"] for c in agree.values()) == len(m.rows)
        assert agree["both_equal"]["n"] > 0.7 * len(m.rows)
    # command-r-plus opens with "F. Very much like you": the authors' parser reads E there, RoleScope F
    command = next(m for m in parsed if m.model == "command-r-plus")
    different = command.plan["reader_agreement"]["both_different"]
    assert different["pairs"][0][0] == "E→F" and different["pairs"][0][1] > 500
    assert all(e["reply"] for e in different["examples"])


def test_agreement_classes_by_hand() -> None:
    assert agreement_class("C", "C") == "both_equal"
    assert agreement_class("F", "E") == "both_different"
    assert agreement_class(None, "D") == "only_source"
    assert agreement_class("B", "N") == "only_reader"
    assert agreement_class(None, "N") == "both_invalid"
    assert prompt_labels("STATEMENT: x\nA. Not like you at all \n B. Not like you \n C. A little\n") == [
        "Not like you at all", "Not like you", "A little"]


@needs_source
def test_the_report_gives_each_model_a_circumplex_a_cfa_fit_and_retest_stability_with_a_ci(report) -> None:
    for model in MODELS:
        doc = report["models"][model]
        first = doc["contexts"][FIRST]
        assert first["stress"] is not None and 0 < first["stress"] < 0.5
        assert any(g["converged"] and g["cfi"] is not None for g in first["cfa"].values())
        assert doc["rank_order"] is not None and doc["ci"]["rank_order"]["lo"] <= doc["rank_order"] \
            <= doc["ci"]["rank_order"]["hi"]
        assert doc["headlines"]["values_rank_order"]["value"] == doc["rank_order"]
        layout = doc_frame(first["figures"]["layout"])
        assert len(layout) == 54  # every keyed item placed on the circle
        notes = doc["imported"]
        assert notes and notes[0]["reader_agreement"]["both_equal"]["n"] > 0
    # command-r-plus's second asking repeats its first asking's replies byte for byte: said, beside a stability of 1
    command = report["models"]["command-r-plus"]
    assert command["imported"][0]["retest_identical_replies"] == {"n": 855, "of": 855}
    assert command["rank_order"] == pytest.approx(1.0)
    claude = report["models"]["claude-3-sonnet-20240229"]
    assert claude["imported"][0]["retest_identical_replies"]["n"] == 0 and claude["rank_order"] < 0.9


@needs_source
def test_cli_imports_then_metrics_json_and_a_second_import_stores_nothing(tmp_path, capsys) -> None:
    store = tmp_path / "s.db"
    assert main(["import", "lee-values", str(SOURCE), "--store", str(store)]) == 0
    err = capsys.readouterr().err
    assert err.count("imported ") == 3 and "both read, different letters" in err
    assert main(["import", "lee-values", str(SOURCE), "--store", str(store)]) == 0
    assert capsys.readouterr().err.count("already imported") == 3
    with Store(store) as s:
        assert s.query_one("SELECT COUNT(*) AS n FROM runs")["n"] == 3


def _small_copy(tmp_path: Path) -> Path:
    root = tmp_path / "lee"
    (root / "benchmark").mkdir(parents=True)
    shutil.copy(SOURCE / "benchmark" / "questions.jsonl", root / "benchmark")
    for name in ("run_25_1_gpt-3.5-turbo-0125", "run_5_1_gpt-3.5-turbo-0125"):
        (root / "runs" / name).mkdir(parents=True)
        shutil.copy(SOURCE / "runs" / name / "prompts-response.jsonl", root / "runs" / name)
    return root


@needs_source
@pytest.mark.parametrize("damage, message", [
    (lambda lines: lines[:10] + ["{not json"] + lines[10:], "line 11"),
    (lambda lines: [lines[0].replace('"question_number": 1,', '"question_number": 99,')] + lines[1:],
     "question_number 99"),
])
def test_a_bad_line_is_one_error_naming_file_and_line_and_nothing_is_stored(tmp_path, capsys, damage, message) -> None:
    root = _small_copy(tmp_path)
    path = root / "runs" / "run_5_1_gpt-3.5-turbo-0125" / "prompts-response.jsonl"
    path.write_text("\n".join(damage(path.read_text().splitlines())) + "\n")
    store = tmp_path / "s.db"
    assert main(["import", "lee-values", str(root), "--store", str(store)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "run_5_1_gpt-3.5-turbo-0125" in err[0] and message in err[0]
    assert not store.exists()


@needs_source
def test_a_re_asked_persona_missing_from_the_first_asking_is_refused(tmp_path) -> None:
    root = _small_copy(tmp_path)
    first = root / "runs" / "run_25_1_gpt-3.5-turbo-0125" / "prompts-response.jsonl"
    lines = [json.loads(x) for x in first.read_text().splitlines()]
    kept = [x for x in lines if x["persona"]["description"] != lines[0]["persona"]["description"]]
    first.write_text("\n".join(json.dumps(x) for x in kept) + "\n")
    with pytest.raises(InputError, match="re-asked persona"):
        parse_source([root])


@needs_source
def test_numbers_only_keeps_no_text(parsed) -> None:
    bare = parse_source([SOURCE], text=False)
    for m in bare:
        assert all(r["raw"] is None for r in m.rows)
        assert all(p["description"] is None for p in m.plan["personas"])
        assert all(e["reply"] is None for c in m.plan["reader_agreement"].values() for e in c["examples"])
    # the same answers as the full import
    full = {(r["model"], r["persona_id"], r["context"], r["item_id"]): r["score"] for m in parsed for r in m.rows}
    assert {(r["model"], r["persona_id"], r["context"], r["item_id"]): r["score"] for m in bare for r in m.rows} == full
    assert np.isfinite([v for v in full.values() if v is not None]).all()


@needs_source
def test_the_structure_page_draws_a_real_models_cfa_loadings(parsed, tmp_path, cache_dir, monkeypatch) -> None:
    """75 personas are enough for the CFA (the app fixture's 12 are not): the Structure page shows a fitted group's
    fit indices as text (never above 1) and, on request, its standardized loadings."""
    from tests.app.conftest import _bind, open_app

    path = tmp_path / "lee.db"
    with Store(path) as store:
        store_parsed(store, parsed)
    _bind(monkeypatch, path, tmp_path / "user.db", cache_dir)
    model = "gpt-3.5-turbo-0125" if "gpt-3.5-turbo-0125" in MODELS else MODELS[0]
    at = open_app("structure", model=model, context=FIRST)
    assert not at.exception
    cfa = at.dataframe[0].value
    fitted = cfa[cfa["cfi"] != "—"]
    assert len(fitted) >= 1
    assert all(text == "≥ 1 (over-fitted)" or float(text) <= 1 for text in [*fitted["cfi"], *fitted["tli"]])
    at.toggle(key="loadings").set_value(True).run()
    loadings = next(d.value for d in at.dataframe if "std_loading" in d.value.columns)
    assert {"group", "latent", "item", "std_loading"} <= set(loadings.columns) and len(loadings) > 0
    assert set(fitted["group"]) <= set(loadings["group"])
