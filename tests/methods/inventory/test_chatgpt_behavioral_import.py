"""``import chatgpt-behavioral``: the IPIP-50 testings of gpt-4-0314 and gpt-3.5-turbo-0301 and the human IPIP-50
answers of Mei, Xie, Yuan & Jackson 2024 (PNAS; github yutxie/ChatGPT-Behavioral @ 69ec557, MIT), read from
``../shared/anchors/chatgpt_behavioral``. RoleScope's reading of every reply equals the authors' ``choices``; the human
α per domain equals pingouin's on the CSV keyed by the published Open Psychometrics key; the report gives test–retest
across the 30 sessions and each domain's percentile among the people's scores."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.methods.inventory.behavioral import import_source, parse_source, read_answer, store_parsed
from analysis.methods.inventory.human_norm import percentile
from analysis.runs.store import Store
from tests.methods.inventory.test_cli import run

REPO = Path(__file__).resolve().parents[3]
SOURCE = REPO.parent / "shared" / "anchors" / "chatgpt_behavioral"
MODELS = {"bigfive_gpt4": "gpt-4-0314", "bigfive_turbo": "gpt-3.5-turbo-0301"}
#: The Open Psychometrics IPIP-50 scoring key (the data set's codebook): the reverse-keyed columns, Neuroticism scored
#: as such (its "relaxed" and "seldom feel blue" items reversed).
REVERSED = {"E2", "E4", "E6", "E8", "E10", "N2", "N4", "A1", "A3", "A5", "A7", "C2", "C4", "C6", "C8", "O2", "O4", "O6"}
needs_source = pytest.mark.skipif(not SOURCE.is_dir(), reason="../shared/anchors/chatgpt_behavioral not present")


@pytest.fixture(scope="module")
def parsed() -> list:
    return parse_source([SOURCE])


@pytest.fixture(scope="module")
def metrics(tmp_path_factory) -> dict:
    """``metrics inventory --json`` of a store holding the import, run as a separate process."""
    path = tmp_path_factory.mktemp("cb") / "store.db"
    with Store(path) as store:
        import_source(store, [SOURCE], text=False)
    done = subprocess.run([sys.executable, "-m", "analysis", "metrics", "inventory", "--json", "--store", str(path),
                           "--chance", "0", "--n-boot", "0"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def people() -> pd.DataFrame:
    return pd.read_csv(SOURCE / "data" / "bigfive_data.csv", sep="\t")


@needs_source
def test_every_answer_read_equals_the_authors_choices(parsed) -> None:
    by_model = {r.model: r for r in parsed}
    assert set(by_model) == set(MODELS.values())
    for prefix, model in MODELS.items():
        (record,) = SOURCE.glob(f"records/{prefix}_*.json")
        choices = json.loads(record.read_text(encoding="utf-8"))["choices"]
        rows = pd.DataFrame(by_model[model].rows)
        got = rows.pivot(index="administration", columns="seq", values="number").sort_index()
        assert got.shape == (30, 50)
        assert got.to_numpy().tolist() == choices
        assert by_model[model].plan["summary"] == {"sessions": 30, "answers": 1500, "invalid": 0,
                                                   "differ_from_choices": 0}


@needs_source
def test_items_follow_the_data_sets_columns_and_key(parsed) -> None:
    inventory = parsed[0].plan["inventory"]
    ids = [i["id"] for i in inventory["items"]]
    assert ids == [f"{d}{k}" for d in "ENACO" for k in range(1, 11)]
    assert {i["id"] for i in inventory["items"] if i["reverse"]} == REVERSED
    assert all(i["domain"] == i["id"][0] for i in inventory["items"])


@needs_source
def test_human_alpha_per_domain_equals_pingouin_on_the_csv(parsed) -> None:
    import pingouin as pg

    frame = people()
    norm = parsed[0].plan["human_norm"]
    assert norm["n_rows"] == 19_719 and norm["n_people"] == 19_718
    for d in "ENACO":
        cols = [f"{d}{k}" for k in range(1, 11)]
        x = frame[cols].replace(0, np.nan).astype(float)
        for c in cols:
            if c in REVERSED:
                x[c] = 6 - x[c]
        complete = x.dropna()
        alpha, _ = pg.cronbach_alpha(complete)
        entry = norm["domains"][d]
        assert entry["n"] == len(complete) == 19_718
        assert entry["alpha"] == pytest.approx(alpha, abs=1e-9)
        scores = complete.mean(axis=1)
        assert entry["mean"] == pytest.approx(scores.mean(), abs=1e-12)
        assert entry["sd"] == pytest.approx(scores.std(ddof=1), abs=1e-12)
        assert sum(entry["distribution"].values()) == len(complete)
        assert 0.7 < entry["omega"] < 1


def test_percentile_is_the_mid_rank_on_a_hand_worked_case() -> None:
    # ten people: two score 1, three score 2, five score 3
    dist = {"1": 2, "2": 3, "3": 5}
    assert percentile(dist, 2) == pytest.approx(100 * (2 + 0.5 * 3) / 10)  # 35
    assert percentile(dist, 2.5) == pytest.approx(50)
    assert percentile(dist, 3) == pytest.approx(75)
    assert percentile(dist, 0.5) == 0 and percentile(dist, 9) == 100
    assert percentile({}, 2) is None and percentile(dist, float("nan")) is None


def test_a_reply_is_read_by_its_bracketed_number() -> None:
    assert read_answer("[3]") == (3, None)
    assert read_answer("[4] Partially Agree.") == (4, None)
    assert read_answer("[2] ... [2]") == (2, None)
    assert read_answer("[2] or [4]")[1].startswith("ambiguous")
    assert read_answer("[7]")[1] == "[7] is outside 1..5"
    assert read_answer("Neutral")[1] == "no bracketed [n] in the reply"


@needs_source
def test_metrics_give_test_retest_and_human_percentiles_for_both_models(metrics) -> None:
    models = metrics["models"]
    assert set(MODELS.values()) <= set(models)
    human = None
    for model in MODELS.values():
        doc = models[model]
        assert doc["inventory"] == "ipip-50"
        inv = doc["inventories"]["ipip-50"]
        assert inv["n_personas"] == 30 and inv["provenance"]["imported"] is True
        testings = inv["testings"]
        assert testings["unit"] == "the model (no persona)" and testings["n_units"] == 1
        assert testings["n_testings"] == 30 and testings["n_pairs"] == 435
        assert 0 < testings["icc"] <= 1 and -1 <= testings["profile_r"] <= 1
        for d in "ENACO":
            spread = testings["domains"][d]
            assert spread["mean"] == pytest.approx(doc["domains"][d]["score"])
            assert spread["sd"] == pytest.approx(doc["domains"][d]["sd"])  # one unit: the SD across the 30 sessions
            # the mean's CI resamples the 30 sessions; about mean ± 1.96 SD/√30 (a normal check, not the bootstrap)
            assert spread["mean_ci_unit"] == "bootstrap over 30 testings"
            half = 1.96 * spread["sd"] / np.sqrt(30)
            if half > 0:
                assert spread["mean_lo"] <= spread["mean"] <= spread["mean_hi"]
                assert (spread["mean_hi"] - spread["mean_lo"]) == pytest.approx(2 * half, rel=0.25)
            assert spread["icc"] is not None or spread["icc_reason"]
            pct = doc["domains"][d]["human_percentile"]
            assert 0 <= pct <= 100
            assert inv["human"]["domains"][d]["model_percentile"] == pct
            assert doc["domains"][d]["alpha"] is not None or doc["domains"][d]["alpha_reason"]
        human = human or inv["human"]
        assert inv["human"]["domains"].keys() == set("ENACO")
        assert {d: e["alpha"] for d, e in inv["human"]["domains"].items()} == \
            {d: e["alpha"] for d, e in human["domains"].items()}
    assert all(0.75 < e["alpha"] < 0.95 and 0.75 < e["omega"] < 0.95 for e in human["domains"].values())
    assert human["n_people"] == 19_718
    # gpt-3.5-turbo-0301 answers every Neuroticism item 3 in every session: no spread, no agreement to measure
    turbo = models["gpt-3.5-turbo-0301"]["inventories"]["ipip-50"]["testings"]["domains"]["N"]
    assert turbo["sd"] == 0 and turbo["icc"] is None and "no variance" in turbo["icc_reason"]


def small_copy(tmp_path: Path, n_people: int = 200) -> Path:
    """The key, the questions, the first people, gpt-4's IPIP-50 record and its investor sessions, copied to a
    temporary folder for a test to spoil (never into the project)."""
    root = tmp_path / "ChatGPT-Behavioral"
    (root / "data").mkdir(parents=True)
    (root / "records").mkdir()
    for name in ("bigfive_IPIP.tsv", "bigfive.tsv"):
        shutil.copy(SOURCE / "data" / name, root / "data" / name)
    lines = (SOURCE / "data" / "bigfive_data.csv").read_text(encoding="utf-8").splitlines()[:n_people + 1]
    (root / "data" / "bigfive_data.csv").write_text("\n".join(lines), encoding="utf-8")
    for pattern in ("bigfive_gpt4_*.json", "trust_1_gpt4_*.json"):
        for path in SOURCE.glob(f"records/{pattern}"):
            shutil.copy(path, root / "records" / path.name)
    return root


def _spoil_choice(root: Path) -> None:
    (record,) = root.glob("records/bigfive_gpt4_*.json")
    doc = json.loads(record.read_text(encoding="utf-8"))
    doc["choices"][3][17] = 7
    record.write_text(json.dumps(doc), encoding="utf-8")


@needs_source
@pytest.mark.parametrize("spoil, message", [
    (lambda root: shutil.rmtree(root), "file not found"),
    (lambda root: next(root.glob("records/bigfive_gpt4_*.json")).write_text("{not json"), "invalid JSON"),
    (_spoil_choice, "choices[3][17]: 7 is not a number 1..5"),
    (lambda root: next(root.glob("records/trust_1_gpt4_*.json")).write_text("{not json"), "invalid JSON"),
    (lambda root: (root / "data" / "bigfive_IPIP.tsv").write_text("1\tAm x.\t(9+)\n"), "keyed to factor 9"),
])
def test_a_bad_source_is_one_line_exit_2_and_nothing_is_stored(tmp_path: Path, capsys, spoil, message: str) -> None:
    root = small_copy(tmp_path)
    spoil(root)
    store = tmp_path / "s.db"
    code, out, err = run(["import", "chatgpt-behavioral", str(root), "--store", str(store)], capsys)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and out == "" and len(lines) == 1 and message in lines[0], err
    assert not store.exists() or Store(store, read_only=True).runs().empty  # neither method stored anything


@needs_source
def test_import_twice_stores_nothing_twice(tmp_path: Path, capsys) -> None:
    root = small_copy(tmp_path)
    store = tmp_path / "s.db"
    code, out, err = run(["import", "chatgpt-behavioral", str(root), "--store", str(store), "--json"], capsys)
    assert code == 0, err
    reports = {d["method"]: d for d in map(json.loads, out.splitlines())}
    assert set(reports) == {"inventory", "trust"}
    assert [r["stored"] for r in reports["inventory"]["read"]] == [True]
    with Store(store, read_only=True) as s:
        before = (len(s.runs()), s.frame("SELECT COUNT(*) AS n FROM inventory_answers")["n"].iloc[0],
                  s.frame("SELECT COUNT(*) AS n FROM trust_transfers")["n"].iloc[0])
    assert before == (2, 1500, 30)
    code, out, err = run(["import", "chatgpt-behavioral", str(root), "--store", str(store), "--json"], capsys)
    assert code == 0 and err.count("already imported") == 2
    assert not any(r["stored"] for d in map(json.loads, out.splitlines()) for r in d["read"])
    with Store(store, read_only=True) as s:
        assert (len(s.runs()), s.frame("SELECT COUNT(*) AS n FROM inventory_answers")["n"].iloc[0],
                s.frame("SELECT COUNT(*) AS n FROM trust_transfers")["n"].iloc[0]) == before


@needs_source
def test_numbers_only_stores_no_text_of_the_source(tmp_path: Path) -> None:
    root = small_copy(tmp_path)
    with Store(tmp_path / "s.db") as store:
        store_parsed(store, parse_source([root], text=False))
        rows = store.frame("SELECT item, raw, source FROM inventory_answers")
        plans = json.dumps([store.get_run(r)["plan"] for r in store.runs()["run_id"]])
    texts = [line.split("\t")[1] for line in (SOURCE / "data" / "bigfive_IPIP.tsv").read_text().splitlines()]
    assert rows["raw"].isna().all() and (rows["source"] == "chatgpt-behavioral (numbers only)").all()
    assert not [t for t in texts if t in plans or rows["item"].str.contains(t, regex=False).any()]
    assert "Disagree" not in plans
