"""Import of camel-ai/agent-trust's published trust-game answers (``import agent-trust``).

Golden checks read the source itself from ``../shared/anchors/agent_trust`` (github camel-ai/agent-trust @ a3f14f0,
Xie et al. 2024, Apache-2.0; skipped when absent); malformed inputs are small files written here (their persona prompts
and replies are this test's own text)."""

from __future__ import annotations

import json
import math
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis.errors import InputError
from analysis.methods.trust.cli import metrics_json
from analysis.methods.trust.families import INDIVIDUAL, POPULATION
from analysis.methods.trust.importer import (
    IMPORT_COMMAND, NOT_BUNDLED, REPEATED_REASON, import_paths, parse_paths, parse_trust_file,
)
from analysis.methods.trust.samples import samples
from analysis.methods.trust.tables import TRANSFERS
from analysis.runs import comparable
from analysis.runs.store import Store

ROOT = Path(__file__).resolve().parents[3]
ANCHORS = ROOT.parent / "shared" / "anchors" / "agent_trust"
RESULTS = ANCHORS / "agent_trust" / "No repeated res"


@pytest.fixture(scope="module")
def results() -> Path:
    if not RESULTS.is_dir():
        pytest.skip("../shared/anchors/agent_trust (camel-ai/agent-trust @ a3f14f0) not present")
    return RESULTS


def source_file(results: Path, condition: str, model: str) -> Path:
    return results / condition / f"{model}_res" / f"Trust_Game_{model}.json"


def in_range(path: Path, endowment: int = 10) -> list[float]:
    """The file's ``res`` amounts that are finite numbers in [0, endowment] (Python's json reads NaN)."""
    res = json.loads(path.read_text())["res"]
    return [float(v) for v in res if isinstance(v, (int, float)) and math.isfinite(v) and 0 <= v <= endowment]


def entry_of(doc: dict, model: str, condition: str) -> dict:
    [entry] = [e for e in doc["models"][model]["imported"].values() if e["condition"] == condition]
    return entry


# -- small files of this test's own ---------------------------------------------------------------------------------
def write_game(root: Path, condition: str = "res", model: str = "m1", res: list | None = None,
               dialog: list | None = None, raw: str | None = None) -> Path:
    path = root / condition / f"{model}_res" / f"Trust_Game_{model}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    res = [4, 12, "I don't know."] if res is None else res
    dialog = dialog if dialog is not None else [
        [i, f"You are test persona {i}, a careful baker.", f"Reply {i}: I will give ${a} to the other player."
         if not isinstance(a, str) else "I cannot decide."] for i, a in enumerate(res)]
    doc = {"res": res, "dialog": dialog,
           "origin_prompt": ["Trust_Game", "Extract the amount.", "You will receive $10 from the study group."]}
    path.write_text(raw if raw is not None else json.dumps(doc))
    return path


def n_runs(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]


# -- golden checks against the source ---------------------------------------------------------------------------------
def test_gpt4_base_amount_sent_equals_numpy_on_the_source(results: Path, tmp_path: Path) -> None:
    path = source_file(results, "res", "gpt-4")
    with Store(tmp_path / "s.db") as store:
        [run_id] = import_paths(store, [path])
        run = store.get_run(run_id)
        doc = metrics_json(store, "gpt-4", n_boot=0)
    assert (run["status"], run["method"], run["model"]) == ("imported", "trust", "gpt-4")
    assert run["plan"]["level"] == "population" and run["plan"]["condition"] == "base"
    x = np.asarray(in_range(path))
    got = entry_of(doc, "gpt-4", "base")["amount_sent"]
    assert (got["n"], got["valid"]) == (53, x.size)
    assert got["mean"]["value"] == pytest.approx(float(x.mean()), abs=1e-12)
    assert got["sd"]["value"] == pytest.approx(float(x.std(ddof=1)), abs=1e-12)
    assert sum(got["distribution"].values()) == x.size
    assert got["distribution"] == {(f"[{d}, {d + 1})" if d < 10 else "10"): int((np.floor(x) == d).sum())
                                   for d in range(11)}
    headline = doc["models"]["gpt-4"]["headlines"]["trust_spearman"]
    assert headline["value"] is None and "published amounts sent, not beliefs; the belief–behaviour ρ needs both" in headline["reason"]


def test_out_of_range_and_text_amounts_are_invalid_with_a_reason_never_clipped(results: Path, tmp_path: Path) -> None:
    path = source_file(results, "res", "vicuna-7b-v1.3")
    res = json.loads(path.read_text())["res"]
    above = [v for v in res if isinstance(v, float) and v > 10]
    texts = [v for v in res if isinstance(v, str)]
    assert above and texts  # the source's dirty data
    with Store(tmp_path / "s.db") as store:
        [run_id] = import_paths(store, [path])
        rows = store.table(TRANSFERS.name, [run_id])
        doc = metrics_json(store, "vicuna-7b-v1.3", n_boot=0)
    over = rows[rows["source_amount"] > 10]
    assert sorted(over["source_amount"]) == sorted(above)  # stored as the source wrote them
    assert (over["source_valid"] == 0).all() and over["source_reason"].str.contains(r"outside \[0, 10\]").all()
    dont_know = rows[rows["source_amount"].isna()]
    assert len(dont_know) == len(texts) and dont_know["source_reason"].str.contains("I don't know").all()
    got = entry_of(doc, "vicuna-7b-v1.3", "base")
    assert got["amount_sent"]["valid"] == len(in_range(path)) == 53 - len(above) - len(texts)
    assert sum(d["n"] for d in got["reader_agreement"].values()) == 53
    assert rows.loc[rows["valid"] == 1, "sent"].between(0, 10).all()  # RoleScope's reading never clips either


def test_a_nan_amount_is_stored_invalid_not_refused(results: Path) -> None:
    path = source_file(results, "Latino American_res", "gpt-3.5-turbo-0613")
    parsed = parse_trust_file(path, path.read_bytes())
    nan = [r for r in parsed.rows if r["source_reason"] and "NaN" in r["source_reason"]]
    assert len(nan) == 1 and nan[0]["source_amount"] is None and nan[0]["source_valid"] == 0
    assert parsed.condition == "Latino American"


def test_two_conditions_of_one_model_are_two_configurations(results: Path, tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        import_paths(store, [source_file(results, "res", "gpt-4"), source_file(results, "COT_res", "gpt-4")])
        found = comparable.select(store, POPULATION, model="gpt-4").found["gpt-4"]
        individual = comparable.select(store, INDIVIDUAL, model="gpt-4", strict=False).found
        doc = metrics_json(store, "gpt-4", n_boot=0)
    assert len(found) == 2 and {c.signature["condition"] for c in found} == {"base", "COT"}
    assert found[0].differs_from(found[1]).keys() >= {"condition"}
    assert "gpt-4" not in individual  # a population import is no individual-level configuration
    assert {e["condition"] for e in doc["models"]["gpt-4"]["imported"].values()} == {"base", "COT"}
    assert sum(e["used"] for e in doc["models"]["gpt-4"]["imported"].values()) == 1


def test_importing_twice_stores_nothing_new(results: Path, tmp_path: Path) -> None:
    path = source_file(results, "res", "gpt-4")
    with Store(tmp_path / "s.db") as store:
        first = import_paths(store, [path])
        n = len(store.table(TRANSFERS.name))
        again = import_paths(store, [path, path.parent])
        assert again == first and len(store.table(TRANSFERS.name)) == n == 53
    assert n_runs(tmp_path / "s.db") == 1


def test_numbers_only_stores_no_reply_text_and_no_persona_prompt(results: Path, tmp_path: Path) -> None:
    path = source_file(results, "res", "gpt-4")
    source = json.loads(path.read_text())
    texts = {t for _, persona, reply in source["dialog"] for t in (persona, reply)} | set(source["origin_prompt"][1:])
    with Store(tmp_path / "s.db") as store:
        [run_id] = import_paths(store, [path], text=False)
        rows = store.table(TRANSFERS.name, [run_id])
        run = store.get_run(run_id)
        shown = samples(store, [run_id])
    assert rows["raw"].isna().all() and (rows["reply_note"] == NOT_BUNDLED).all()
    assert rows["valid"].sum() > 0 and rows["source_valid"].sum() == 53  # the numbers are there
    assert run["plan"]["text_bundled"] is False and run["plan"]["full_import"] == IMPORT_COMMAND
    assert [p["description"] for p in run["plan"]["personas"]][:2] == ["agent-trust persona 0", "agent-trust persona 1"]
    with sqlite3.connect(tmp_path / "s.db") as conn:
        stored = json.dumps([conn.execute(f'SELECT * FROM "{t}"').fetchall() for t in ("runs", TRANSFERS.name)])
    assert not [t for t in texts if json.dumps(t)[1:-1] in stored or t in stored]
    assert (shown["reply"] == NOT_BUNDLED).all() and NOT_BUNDLED.startswith("text not bundled: python -m analysis import")


def test_the_full_import_keeps_replies_and_persona_prompts(results: Path) -> None:
    path = source_file(results, "res", "gpt-4")
    source = json.loads(path.read_text())
    parsed = parse_trust_file(path, path.read_bytes())
    assert [r["raw"] for r in parsed.rows] == [d[2] for d in source["dialog"]]
    assert [p["description"] for p in parsed.plan["personas"]] == [d[1] for d in source["dialog"]]
    assert [r["persona_id"] for r in parsed.rows] == [str(d[0]) for d in source["dialog"]]


def test_other_games_and_repeated_games_are_skipped_with_the_reason(results: Path) -> None:
    parsed = parse_paths([results / "res" / "gpt-4_res"])
    assert [p.model for p in parsed.files] == ["gpt-4"]
    reasons = {Path(s["path"]).name.split("_")[0]: s["reason"] for s in parsed.skipped}
    assert set(reasons) == {"Dictator", "lottery", "map"} and "not the trust game" in reasons["Dictator"]
    with pytest.raises(InputError, match="no Trust_Game_<model>.json file in this folder"):
        parse_paths([ANCHORS / "agent_trust" / "repeated res"])
    with pytest.raises(InputError, match="the dictator game"):
        parse_paths([results / "res" / "gpt-4_res" / "Dictator_Game_gpt-4.json"])
    assert "two LLM players" in REPEATED_REASON


# -- bad inputs: one line naming the file, nothing stored ------------------------------------------------------------
@pytest.mark.parametrize("bad, message", [
    ({"raw": '{"res": [1, 2], "dialog": [[0, "p", "r"]'}, "invalid JSON"),
    ({"res": [1, 2, 3], "dialog": [[0, "You are a test persona.", "I give $1."]]}, "'res' holds 3 amounts but 'dialog' 1"),
    ({"res": [1, True]}, r"res\[1\]: expected a number or the source's text, got bool"),
    ({"res": [1, {"amount": 2}]}, r"res\[1\]: expected a number or the source's text, got dict"),
    ({"res": [1, 2], "dialog": [[0, "p", "r"], [0, "q", "s"]]}, "persona index 0 appears twice"),
])
def test_a_bad_file_refuses_the_whole_import(tmp_path: Path, bad: dict, message: str) -> None:
    good = write_game(tmp_path / "src", model="good")
    broken = write_game(tmp_path / "src", model="bad", **bad)
    db = tmp_path / "s.db"
    with Store(db) as store, pytest.raises(InputError, match=message) as err:
        import_paths(store, [good, broken])
    assert str(broken) in str(err.value) and "\n" not in str(err.value)
    assert n_runs(db) == 0


def test_a_folder_without_trust_files_and_a_file_outside_the_layout_are_refused(tmp_path: Path) -> None:
    other = tmp_path / "src" / "res" / "m_res" / "Dictator_Game_m.json"
    other.parent.mkdir(parents=True)
    other.write_text("{}")
    with pytest.raises(InputError, match=r"src: no Trust_Game_<model>.json file in this folder \(1 other JSON"):
        parse_paths([tmp_path / "src"])
    loose = tmp_path / "Trust_Game_m.json"
    loose.write_text(json.dumps({"res": [1], "dialog": [[0, "p", "r"]]}))
    with pytest.raises(InputError, match="cannot tell the condition"):
        parse_paths([loose])


def test_the_source_amount_and_the_reader_are_both_kept(tmp_path: Path) -> None:
    path = write_game(tmp_path / "src", condition="COT_res")
    parsed = parse_trust_file(path, path.read_bytes())
    got = [(r["source_amount"], r["source_valid"], r["sent"], r["valid"]) for r in parsed.rows]
    assert got == [(4.0, 1, 4, 1), (12.0, 0, None, 0), (None, 0, None, 0)]
    assert parsed.rows[1]["reason"] == "'$12' is outside [0, 10]"
    assert parsed.condition == "COT" and parsed.plan["design"]["condition"] == "COT"


def test_cli_json_reports_read_and_skipped_files_and_exit_2_on_bad_input(tmp_path: Path) -> None:
    write_game(tmp_path / "src")
    (tmp_path / "src" / "res" / "m1_res" / "lottery_problem_m1.json").write_text("{}")
    db = tmp_path / "s.db"
    cmd = [sys.executable, "-m", "analysis", "import", "agent-trust", str(tmp_path / "src"), "--store", str(db), "--json"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    [read] = doc["read"]
    assert (read["condition"], read["model"], read["personas"], read["source_valid"], read["stored"]) == (
        "base", "m1", 3, 1, True)
    assert [Path(s["path"]).name for s in doc["skipped"]] == ["lottery_problem_m1.json"]
    write_game(tmp_path / "src", model="m2", raw="{not json")
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Trust_Game_m2.json" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_compare_sets_two_imported_models_side_by_side(tmp_path) -> None:
    """Compare on two imported models: the mean amount sent in the condition shown, from both readings."""
    from analysis.methods.trust.cli import metrics_json
    from analysis.methods.trust.compare import compare_trust
    from analysis.methods.trust.importer import import_paths
    from analysis.runs.store import Store

    base = ANCHORS / "agent_trust" / "No repeated res" / "res"
    if not base.is_dir():
        pytest.skip("../shared/anchors/agent_trust not present")
    store = Store(tmp_path / "s.db")
    import_paths(store, [base / "gpt-4_res" / "Trust_Game_gpt-4.json", base / "llama-2-70b_res" / "Trust_Game_llama-2-70b.json"])
    doc = metrics_json(store, n_boot=0)["models"]
    rows = {r.metric: r for r in compare_trust(doc["gpt-4"], doc["llama-2-70b"])}
    source = rows["Amount sent, mean $ (base, the source's extraction)"]
    entry = lambda m: next(iter(doc[m]["imported"].values()))["amount_sent"]["mean"]["value"]  # noqa: E731
    assert source.a == entry("gpt-4") and source.b == entry("llama-2-70b") and source.diff == source.a - source.b
    assert "Amount sent, mean $ (base, RoleScope's reading)" in rows


def test_the_base_condition_is_each_models_newest_configuration(tmp_path) -> None:
    """A model's page opens on its newest configuration: imported together, the base condition is stored last."""
    from analysis.methods.trust.cli import metrics_json
    from analysis.methods.trust.importer import import_paths
    from analysis.runs.store import Store

    folder = ANCHORS / "agent_trust" / "No repeated res"
    if not folder.is_dir():
        pytest.skip("../shared/anchors/agent_trust not present")
    store = Store(tmp_path / "s.db")
    import_paths(store, [folder / c / "gpt-4_res" / "Trust_Game_gpt-4.json" for c in ("res", "COT_res", "male_res")])
    imported = metrics_json(store, n_boot=0)["models"]["gpt-4"]["imported"]
    assert len(imported) == 3 and [e["condition"] for e in imported.values() if e["used"]] == ["base"]
