"""``import persona-llm``: PersonaLLM's published BFI-44 answers (Jiang et al. 2024; github hjian42/PersonaLLM, read
from ``../shared/anchors/persona_llm``) re-scored by RoleScope reproduce the authors' own per-persona trait scores
(``scores/*_all_scores.csv``) to 1e-9, and the report's shaping effect per domain is the Cohen's d of those scores."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.errors import InputError
from analysis.methods.base import doc_frame
from analysis.methods.inventory.families import FAMILY
from analysis.methods.inventory.importer import (
    HIGH, LOW, build_inventory, import_source, item_labels, parse_source, read_reply, type_targets,
)
from analysis.methods.inventory.report import metrics_json
from analysis.runs import comparable
from analysis.runs.store import Store
from tests.methods.inventory.test_cli import run

SOURCE = Path(__file__).resolve().parents[4] / "shared" / "anchors" / "persona_llm"
#: The authors' score files, by the model folder they score.
SCORES = {"gpt-4-0613": "gpt4_0613_all_scores.csv", "gpt-3.5-turbo-0613": "gpt3.5_turbo_0613_all_scores.csv",
          "llama-2": "llama-2_all_scores.csv"}
TRAIT = {"Extraversion": "E", "Agreeableness": "A", "Conscientiousness": "C", "Neuroticism": "N", "Openness": "O"}
needs_source = pytest.mark.skipif(not SOURCE.is_dir(), reason="../shared/anchors/persona_llm not present")


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> tuple[Store, dict, list]:
    path = tmp_path_factory.mktemp("pl") / "store.db"
    store = Store(path)
    parsed = parse_source([SOURCE])
    from analysis.methods.inventory.importer import store_parsed

    store_parsed(store, parsed)
    return store, metrics_json(store), parsed


def real_models(parsed) -> list[str]:
    return [m.model for m in parsed if m.run_id is not None]


@needs_source
def test_every_persona_score_equals_the_authors(imported) -> None:
    store, doc, parsed = imported
    models = real_models(parsed)
    assert {"gpt-4-0613", "gpt-3.5-turbo-0613"} <= set(models)
    for model in models:
        authors = pd.read_csv(SOURCE / "scores" / SCORES[model])
        authors["persona_id"] = authors["personality_type"] + "-p" + authors["run"].astype(str)
        authors["domain"] = authors["trait"].map(TRAIT)
        frame = doc_frame(doc["models"][model]["persona_scores"]["frame"]).set_index("persona_id")
        assert len(frame) == 320
        ours = np.array([frame.loc[p, d] for p, d in zip(authors["persona_id"], authors["domain"])], dtype=float)
        assert len(authors) == 1600
        np.testing.assert_allclose(ours, authors["mean_score"].to_numpy(float), rtol=0, atol=1e-9)


@needs_source
def test_llama_2_answers_are_lfs_pointers_and_said_so(imported) -> None:
    _, _, parsed = imported
    llama = next(m for m in parsed if m.model == "llama-2")
    if llama.run_id is None:  # the anchors copy keeps Git LFS pointers, not the answers
        assert llama.skipped and all("Git LFS pointer" in why for _, why in llama.skipped)
        assert llama.report()["skipped"] == 320


def cohens_d(x: np.ndarray, y: np.ndarray) -> float:
    """Cohen's d with the pooled SD, by hand (Cohen 1988)."""
    n1, n2 = len(x), len(y)
    pooled = np.sqrt(((n1 - 1) * x.var(ddof=1) + (n2 - 1) * y.var(ddof=1)) / (n1 + n2 - 2))
    return float((x.mean() - y.mean()) / pooled)


@needs_source
def test_shaping_d_per_domain_is_cohens_d_of_the_authors_scores(imported) -> None:
    _, doc, parsed = imported
    for model in real_models(parsed):
        authors = pd.read_csv(SOURCE / "scores" / SCORES[model])
        codes = authors["personality_type"].str.split("_")
        for position, (trait, domain) in enumerate(TRAIT.items()):
            rows = authors[authors["trait"] == trait]
            high_pole = {"E": "extr", "A": "agre", "C": "cons", "N": "neur", "O": "open"}[domain]
            is_high = codes.loc[rows.index].str[position] == high_pole
            x, y = rows.loc[is_high, "mean_score"].to_numpy(float), rows.loc[~is_high, "mean_score"].to_numpy(float)
            entry = doc["models"][model]["domains"][domain]
            # the published figure: d over the 320 sheets, every repeat counted
            assert entry["shaping_d_sheets_n_high"] == len(x) == 160 and entry["shaping_d_sheets_n_low"] == len(y) == 160
            assert entry["shaping_d_sheets"] == pytest.approx(cohens_d(x, y), abs=1e-9)
            # the headline: d over the 32 persona types' mean scores (the design's unit)
            means = rows.groupby("personality_type")["mean_score"].mean()
            type_high = means.index.str.split("_").str[position] == high_pole
            assert entry["shaping_n_high"] == 16 and entry["shaping_n_low"] == 16
            assert entry["shaping_d"] == pytest.approx(cohens_d(means[type_high].to_numpy(), means[~type_high].to_numpy()),
                                                       abs=1e-9)
            assert entry["shaping_d_lo"] < entry["shaping_d"] < entry["shaping_d_hi"]
            assert entry["shaping_d_sheets_lo"] < entry["shaping_d_sheets"] < entry["shaping_d_sheets_hi"]
            # shaping ρ: Spearman of target level against the score over the 320 respondents
            rho = stats.spearmanr(np.where(is_high, HIGH, LOW), rows["mean_score"]).statistic
            assert entry["shaping_rho"] == pytest.approx(rho, abs=1e-9)


@needs_source
def test_reliability_is_within_persona_type_and_the_pooled_one_is_between_type(imported) -> None:
    """32 shaped types × 10 repeats: α within each type (pingouin on that type's 10 sheets) summarised by its median,
    range and count; α of the type-centred answers as the pooled within-type figure (an independent recomputation
    from the raw files gave gpt-3.5's E 0.203 and A 0.147); the pooled α over all 320 sheets only as between-type."""
    _, doc, _ = imported
    entry = doc["models"]["gpt-3.5-turbo-0613"]["domains"]
    assert entry["E"]["alpha_within"]["pooled"] == pytest.approx(0.2027, abs=5e-4)
    assert entry["A"]["alpha_within"]["pooled"] == pytest.approx(0.1469, abs=5e-4)
    frame = doc_frame(doc["models"]["gpt-3.5-turbo-0613"]["persona_scores"]["frame"])
    assert len(frame) == 320
    for d in "OCEAN":
        e = entry[d]
        within = e["alpha_within"]
        assert within["of_types"] == 32 and 0 < within["n_types"] <= 32
        values = [v for v in within["by_type"].values() if v is not None]
        assert e["alpha"] == pytest.approx(float(np.median(values)), abs=1e-12)
        assert (within["min"], within["max"]) == (min(values), max(values))
        assert e["alpha_between"] > e["alpha"]  # shaping inflates the pooled coefficient
        assert e["alpha_between_unit"] == "between persona types, inflated by shaping"
        assert e["alpha_unit"].startswith("within persona type: median of")


@needs_source
def test_alpha_within_one_type_is_pingouins_on_its_sheets(imported) -> None:
    import pingouin as pg

    from analysis.methods.inventory.answers import selected_answers

    store, doc, _ = imported
    rows = selected_answers(store, selection=comparable.select(store, FAMILY))
    rows = rows[(rows["model"] == "gpt-4-0613") & (rows["valid"] == 1) & (rows["domain"] == "N")]
    within = doc["models"]["gpt-4-0613"]["domains"]["N"]["alpha_within"]["by_type"]
    for code in sorted(rows["persona_type"].unique())[:6]:
        wide = rows[rows["persona_type"] == code].pivot_table(index="persona_id", columns="item_id", values="keyed")
        key = json.dumps(type_targets(code), sort_keys=True)
        expected = pg.cronbach_alpha(wide.astype(float))[0]
        assert within[key] == pytest.approx(expected, abs=1e-9) if np.isfinite(expected) else within[key] is None


@needs_source
def test_the_shaping_d_ci_resamples_persona_types(imported) -> None:
    """Ten repeats of a type are not ten independent sheets: the CI of gpt-4's Neuroticism d over its 32 types is
    wide (the sheet-level analytic one was [4.70, 5.61])."""
    _, doc, _ = imported
    e = doc["models"]["gpt-4-0613"]["domains"]["N"]
    assert e["shaping_d_hi"] - e["shaping_d_lo"] >= 3
    assert e["shaping_d_sheets_hi"] - e["shaping_d_sheets_lo"] >= 3
    assert e["shaping_d_ci_unit"] == "bootstrap over 32 persona types"
    assert e["shaping_rho_lo"] < e["shaping_rho"] < e["shaping_rho_hi"]
    assert "persona types" in e["shaping_rho_ci_unit"]


@needs_source
def test_shaping_d_has_a_chance_band(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    import_source(store, [SOURCE])
    doc = metrics_json(store, "gpt-4-0613", chance=20)
    band = doc["models"]["gpt-4-0613"]["chance"]["bfi-44"]["shaping_d/E"]
    assert band["permutation"]["hi"] < 1 < doc["models"]["gpt-4-0613"]["domains"]["E"]["shaping_d"]


@needs_source
def test_the_one_prompt_administration_is_its_own_configuration(imported) -> None:
    store, doc, _ = imported
    run = store.get_run(store.runs()["run_id"].iloc[0])
    sig = comparable.signature(FAMILY, run["plan"])
    assert sig["imported"] is True and sig["administration"].startswith("one prompt")
    assert doc["models"]["gpt-4-0613"]["configuration"] != comparable.signature_id(
        comparable.signature(FAMILY, {"method": "inventory", "inventory": {}, "answer_mode": "text"}))


@needs_source
def test_import_twice_stores_nothing_twice_and_json_says_what_was_read(tmp_path: Path, capsys) -> None:
    store = tmp_path / "s.db"
    code, out, err = run(["import", "persona-llm", str(SOURCE), "--store", str(store), "--json"], capsys)
    assert code == 0
    report = json.loads(out)
    by_model = {m["model"]: m for m in report["models"]}
    assert by_model["gpt-4-0613"]["sheets"] == 320 and by_model["gpt-4-0613"]["answers"] == 320 * 44
    assert by_model["gpt-4-0613"]["new"] is True
    assert "skipped" in err or by_model["llama-2"]["skipped"] == 0
    count = Store(store, read_only=True).frame("SELECT COUNT(*) AS n FROM inventory_answers")["n"].iloc[0]
    code, out, err = run(["import", "persona-llm", str(SOURCE), "--store", str(store), "--json"], capsys)
    assert code == 0 and not any(m["new"] for m in json.loads(out)["models"]) and "already in the store" in err
    again = Store(store, read_only=True)
    assert again.frame("SELECT COUNT(*) AS n FROM inventory_answers")["n"].iloc[0] == count
    assert len(again.runs()) == len(report["run_ids"])


def small_copy(tmp_path: Path, n_files: int = 3) -> Path:
    """The key, the prompt and a few of gpt-4's answer files, copied to a temporary folder for a test to spoil."""
    root = tmp_path / "PersonaLLM"
    (root / "prompts").mkdir(parents=True)
    for name in ("bfi_scores.txt", "bfi_prompt.txt"):
        shutil.copy(SOURCE / "prompts" / name, root / "prompts" / name)
    answers = root / "outputs" / "gpt-4-0613" / "temp0.7" / "bfi"
    answers.mkdir(parents=True)
    for path in sorted((SOURCE / "outputs" / "gpt-4-0613" / "temp0.7" / "bfi").glob("*.json"))[:n_files]:
        shutil.copy(path, answers / path.name)
    return root


@needs_source
@pytest.mark.parametrize("spoil, message", [
    (lambda root, f: f.write_text("{not json"), "invalid JSON"),
    (lambda root, f: f.write_text(json.dumps({"persona_encoding": "x", "iteration": 1})), "text 'annotation'"),
    (lambda root, f: f.write_text(json.dumps({"persona_encoding": f.stem.rsplit("_p", 1)[0], "iteration": 99,
                                              "annotation": "(a) 1"})), "disagree with the file name"),
    (lambda root, f: f.with_name("extr_agre_cons_neur_xxxx_p1.json").write_text(json.dumps(
        {"persona_encoding": "extr_agre_cons_neur_xxxx", "iteration": 1, "annotation": "(a) 1"})),
     "'xxxx' is not open or clos"),
    (lambda root, f: (root / "prompts" / "bfi_scores.txt").write_text("trait\treverse\tquestion\nFoo\tN\tBar\n"),
     "expected '<Big Five trait>"),
    (lambda root, f: (root / "prompts" / "bfi_scores.txt").unlink(), "not a PersonaLLM folder"),
])
def test_a_bad_file_is_one_line_and_nothing_is_stored(tmp_path: Path, capsys, spoil, message: str) -> None:
    root = small_copy(tmp_path)
    first = sorted((root / "outputs" / "gpt-4-0613" / "temp0.7" / "bfi").glob("*.json"))[0]
    spoil(root, first)
    store = tmp_path / "s.db"
    code, out, err = run(["import", "persona-llm", str(root), "--store", str(store)], capsys)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and out == "" and len(lines) == 1 and message in lines[0], err
    assert not store.exists() or Store(store, read_only=True).runs().empty


@needs_source
def test_a_folder_of_lfs_pointers_imports_nothing_and_says_why(tmp_path: Path) -> None:
    root = small_copy(tmp_path, n_files=2)
    for f in (root / "outputs" / "gpt-4-0613" / "temp0.7" / "bfi").glob("*.json"):
        f.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 10\n")
    with pytest.raises(InputError, match="no PersonaLLM answers to import.*Git LFS pointer"):
        parse_source([root])


def test_a_reply_is_read_by_its_labels() -> None:
    labels = item_labels(4)
    assert item_labels(44)[26:28] == ["aa", "ab"] and item_labels(44)[-1] == "ar"
    # out of order, a stray first line repeated later (the later counts), one item missing, one out of range
    sheet = read_reply("Here are my responses:\n\n(b) 4\n(a) 2\n(b) 5\n(d) 7", labels).answers
    assert sheet["a"][0] == 2 and sheet["b"][0] == 5 and sheet["b"][1] == "(b) 5"
    assert sheet["c"][0] is None and "no line for item (c)" in sheet["c"][2]
    assert sheet["d"][0] is None and "outside 1..5" in sheet["d"][2]
    assert read_reply("(a) often\n(b) 3.", labels).answers["a"][2].startswith("item (a): 'often' is not a number")
    assert read_reply("(a) often\n(b) 3.", labels).answers["b"][0] == 3


def test_type_codes_become_targets() -> None:
    assert type_targets("extr_anta_cons_emot_clos") == {"E": HIGH, "A": LOW, "C": HIGH, "N": LOW, "O": LOW}
    with pytest.raises(InputError, match="five codes"):
        type_targets("extr_anta")


@needs_source
def test_the_inventory_is_built_from_the_key(tmp_path: Path) -> None:
    inv = build_inventory(SOURCE)
    assert len(inv.items) == 44 and inv.options[0] == "Disagree strongly" and inv.options[-1] == "Agree strongly"
    assert [i.domain for i in inv.items[:5]] == ["E", "A", "C", "N", "O"]
    assert [i.reverse for i in inv.items[:6]] == [False, True, False, False, False, True]
    assert sum(i.domain == "O" for i in inv.items) == 10 and sum(i.reverse for i in inv.items) == 16
    bare = build_inventory(SOURCE, text=False)
    assert bare.items[1].text == "BFI-44 item 2 (b)"


@needs_source
def test_numbers_only_stores_no_text_of_the_source(tmp_path: Path) -> None:
    root = small_copy(tmp_path, n_files=4)
    store = Store(tmp_path / "s.db")
    import_source(store, [root], text=False)
    rows = store.table("inventory_answers")
    assert rows["raw"].isna().all() and (rows["source"] == "persona-llm (numbers only)").all()
    dump = "\n".join(store._conn.iterdump())
    key_texts = [line.split("\t")[2] for line in (SOURCE / "prompts" / "bfi_scores.txt").read_text().splitlines()[1:]]
    assert not [t for t in key_texts if t.strip() in dump]
    plan = store.get_run(store.runs()["run_id"].iloc[0])["plan"]
    assert plan["text_bundled"] is False and "python -m analysis import persona-llm" in plan["text_note"]
    from analysis.methods.inventory.samples import samples

    shown = samples(store)
    assert shown["reply"].str.contains("not bundled").all()


@needs_source
def test_the_page_shows_an_import_with_its_shaping_d(tmp_path: Path, cache_dir, monkeypatch) -> None:
    from tests.app.conftest import _bind, open_app

    root = small_copy(tmp_path, n_files=40)  # 4 types × 10 iterations
    store_path = tmp_path / "imported.db"
    with Store(store_path) as store:
        import_source(store, [root], text=False)
        doc = metrics_json(store)["models"]["gpt-4-0613"]
    _bind(monkeypatch, store_path, tmp_path / "user.db", cache_dir)
    at = open_app("inventory", model="gpt-4-0613")
    assert not at.exception
    assert any("Imported published answers" in i.value and "one prompt" in i.value and "not bundled" in i.value
               for i in at.info)
    table = at.dataframe[0].value
    defined = [doc["domains"][d]["shaping_d"] for d in "OCEAN"]
    assert table["shaping d"].tolist() == pytest.approx([np.nan if v is None else v for v in defined], nan_ok=True)


@needs_source
def test_hostile_answer_files_are_one_line_naming_them(tmp_path: Path, capsys) -> None:
    """Each hostile content of the fuzz corpus (``tests/test_fuzz_inputs.py``) as an answer file inside a PersonaLLM
    tree: one line naming the file, exit 2, nothing stored."""
    from tests.test_fuzz_inputs import _contents

    store = tmp_path / "s.db"
    problems = []
    for case, content in _contents("json-object").items():
        root = small_copy(tmp_path / case, n_files=1)
        answers = root / "outputs" / "gpt-4-0613" / "temp0.7" / "bfi"
        target = next(answers.glob("*.json"))
        target.write_bytes(content)
        code, out, err = run(["import", "persona-llm", str(root), "--store", str(store)], capsys)
        lines = err.strip().splitlines()
        if code != 2 or len(lines) != 1 or target.name not in err or "Traceback" in err:
            problems.append(f"{case}: exit {code}, {err[:200]!r}")
    assert not problems, "\n".join(problems)
    assert not store.exists() or Store(store, read_only=True).runs().empty


@needs_source
def test_the_docs_count_of_stray_lines_before_the_first_item_is_the_sources() -> None:
    """docs/imports.md says how many replies open with a stray item line (e.g. "(u) 4") before "(a)": counted here."""
    import re

    stray = total = 0
    for path in sorted((SOURCE / "outputs").rglob("*_p*.json")):
        content = path.read_bytes()
        if content.startswith(b"version https://git-lfs"):
            continue
        total += 1
        lines = [x for x in json.loads(content)["annotation"].splitlines() if x.strip()]
        first = next((i for i, x in enumerate(lines) if re.match(r"\s*\(a\)", x)), None)
        stray += bool(first) and any(re.match(r"\s*\([a-z]{1,2}\)", x) for x in lines[:first])
    doc = (Path(__file__).resolve().parents[3] / "docs" / "imports.md").read_text(encoding="utf-8")
    said = re.search(r"(\d+) of the ([\d,]+) replies open with a stray line", doc)
    assert said and (int(said.group(1)), int(said.group(2).replace(",", ""))) == (stray, total)
