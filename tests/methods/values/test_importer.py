"""Importer of Stick to Your Role! results.json files (flowersteam/value_stability format).

The results.json files are generated here in tmp_path, in the reference's layout
(``<label>_<YYYY_mm_dd_HH_MM_SS>/results.json`` with args/params, simulated_population, answers,
generations, lprobs); the value keys are checked against the reference's public key files in
``../shared/anchors/stick_to_your_role`` (MIT, Kovač et al. 2024).
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from analysis.__main__ import main
from analysis.errors import InputError
from analysis.methods.values.importer import (
    NO_LETTER, PVQ40, SVS, import_value_stability, parse_reply_letter,
)
from analysis.methods import execute_run
from analysis.runs.store import Store
from analysis.methods.values import VALUES

ANCHORS = Path(__file__).resolve().parents[4] / "shared" / "anchors" / "stick_to_your_role"
LETTERS = "ABCDEFGHI"
STAMP = "2024_06_01_12_00_00"
NO_LETTER_REPLY = "I would say this person is somewhat like me."


def write_results(root: Path, label: str, *, instrument: str = "pvq", engine: str = "tiny-model", n_personas: int = 5,
                  no_letter: frozenset[tuple[int, int]] = frozenset(), several: frozenset[tuple[int, int]] = frozenset(),
                  disagree: frozenset[tuple[int, int]] = frozenset(), population: list[dict[str, Any]] | None = None,
                  logprob: bool = False, seed: int = 0) -> tuple[Path, dict[tuple[int, int], tuple[str, int]]]:
    """Write one reference-format results.json; return its path and the stored (letter, score) per (persona, item)."""
    n_items, n_opt, offset, subject, data_dir = (
        (40, 6, 1, "pvq_auto", "data/data_pvq") if instrument == "pvq" else (57, 9, -1, "svs", "data/data_svs"))
    rng = random.Random(seed)
    population = population or [
        {"name": f"Persona {i}", "description": f"Persona {i}, invented for a test.", "gender": "MF"[i % 2]}
        for i in range(n_personas)]
    stored: dict[tuple[int, int], tuple[str, int]] = {}
    answers, generations, lprobs = [], [], []
    for p in range(len(population)):
        ans, gens, lps = [], [], []
        for j in range(n_items):
            perm = list(range(n_opt))
            rng.shuffle(perm)  # letter position -> option position in the questionnaire's order
            li = rng.randrange(n_opt)
            if (p, j) in several:
                li = min(li, n_opt - 2)  # the reference keeps the alphabetically first of several letters
            letter = LETTERS[li]
            lp = [-100.0] * n_opt
            lp[li] = -0.01
            if logprob:
                lp = [round(rng.uniform(-9.0, -1.0), 3) for _ in range(n_opt)]
                lp[li] = -0.2
                gen = letter
            elif (p, j) in no_letter:
                gen = NO_LETTER_REPLY  # the reference stored a random letter for this one
            elif (p, j) in several:
                gen = f"({letter}) or maybe ({LETTERS[li + 1]})"
                lp[li + 1] = -0.01
            elif (p, j) in disagree:
                gen = f"({LETTERS[(li + 1) % n_opt]})"
            else:
                gen = rng.choice([f"({letter})", f"({letter}) Like me", f"Answer: ({letter})", f" ({letter})."])
            stored[(p, j)] = (letter, perm[li] + offset)
            ans.append([letter, perm[li] + offset])
            gens.append(gen)
            lps.append(lp)
        answers.append({subject: ans})
        generations.append({subject: gens})
        lprobs.append({subject: lps})
    args = {"engine": engine, "data_dir": data_dir, "experiment_name": f"{instrument}_test",
            "simulated_conversation_theme": None if "no_conv" in label else f"contexts/{label}.jsonl",
            "simulated_conversation_n_messages": 3, "permute_options_seed": f"leaderboard_{label}",
            "model_config_path": f"./models/leaderboard_configs/{engine}.json"}
    doc = {"args": args, "metrics": {}, "pop_metrics": {}, "simulated_population": population,
           "generations": generations, "answers": answers, "lprobs": lprobs, "params": args}
    path = root / f"{label}_{STAMP}" / "results.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path, stored


def answers_of(store: Store) -> Any:
    return store.table("values_answers")


def counts(store: Store) -> tuple[int, int]:
    return len(store.runs()), len(answers_of(store))


# -- the strict parser ---------------------------------------------------------------------------
@pytest.mark.parametrize("reply,n,expected", [
    ("(B)", 6, "B"),
    ("(D) Somewhat like me", 6, "D"),
    ("Answer: (C)", 6, "C"),
    ("(E) ... yes, (E).", 6, "E"),
    ("(I)", 9, "I"),
])
def test_parse_reply_letter_accepts_one_bracketed_letter(reply: str, n: int, expected: str) -> None:
    """A reply with exactly one distinct "(X)" among the options gives that letter."""
    assert parse_reply_letter(reply, n) == (expected, None)


@pytest.mark.parametrize("reply,n", [("B", 6), ("Like me", 6), ("(G)", 6), ("(b)", 6), ("B)", 6), ("", 6), (None, 6)])
def test_parse_reply_letter_rejects_replies_without_bracketed_option_letter(reply: str | None, n: int) -> None:
    """No "(X)" of an offered option (bare letter, label text, out-of-range or lower-case letter, empty) -> invalid."""
    letter, reason = parse_reply_letter(reply, n)
    assert letter is None
    assert "the reference substituted a random letter" in reason


def test_parse_reply_letter_flags_several_letters() -> None:
    """Two different letters -> invalid, naming both (the reference silently took the first)."""
    letter, reason = parse_reply_letter("(C) or maybe (A)", 6)
    assert letter is None
    assert reason.startswith("several answer letters in reply ((A), (C))")


def test_parse_reply_letter_chain_of_thought() -> None:
    """CoT replies: only the 40 characters after the single "Answer:" count."""
    reasoning = "Options (A) and (B) seem close; " * 3
    assert parse_reply_letter(reasoning + "Answer: (F)", 6, cot=True) == ("F", None)
    assert parse_reply_letter(reasoning + "so I pick (F)", 6, cot=True)[0] is None
    assert parse_reply_letter("Answer: (A) Answer: (B)", 6, cot=True)[0] is None
    assert parse_reply_letter("Answer: " + "x" * 40 + "(B)", 6, cot=True)[0] is None


# -- keys --------------------------------------------------------------------------------------------
@pytest.mark.skipif(not ANCHORS.exists(), reason="../shared/anchors not present")
@pytest.mark.parametrize("key,folder", [(PVQ40, "data_pvq"), (SVS, "data_svs")])
def test_value_keys_match_reference_key_files(key: Any, folder: str) -> None:
    """The importer's item -> value keys equal the reference's raw/values.json (1-based indices)."""
    reference = json.loads((ANCHORS / "data" / folder / "raw" / "values.json").read_text())
    reference = {v: tuple(items) for v, items in reference.items() if not v.startswith("_")}
    assert {v: tuple(sorted(i)) for v, i in key.key.items()} == {v: tuple(sorted(i)) for v, i in reference.items()}
    assert set(key.key) == set(VALUES)


@pytest.mark.skipif(not ANCHORS.exists(), reason="../shared/anchors not present")
def test_svs_lists_and_item_count_match_reference() -> None:
    """SVS: 57 items (csv rows), list I = the first 30, list II = the other 27, 46 keyed items."""
    rows = (ANCHORS / "data/data_svs/test/svs_test.csv").read_text(encoding="utf-8").strip().splitlines()
    assert len(rows) == SVS.n_items == 57
    sizes = [len(json.loads((ANCHORS / f"data/data_svs/raw/values_list_{n}.json").read_text())["values"]) for n in (1, 2)]
    assert tuple(sizes) == SVS.list_sizes == (30, 27)
    assert sum(SVS.value_of(i) is not None for i in range(1, 58)) == 46
    assert [SVS.list_of(i) for i in (1, 30, 31, 57)] == [1, 1, 2, 2]


# -- importing good files ------------------------------------------------------------------------
def test_import_three_pvq_contexts_and_one_svs(tmp_path: Path) -> None:
    """3 PVQ contexts + 1 SVS file for 5 personas: one run each, every answer stored, planted bad replies flagged."""
    no_letter = frozenset({(0, 0), (2, 17), (4, 39)})
    several = frozenset({(1, 5)})
    files = {
        "chunk_no_conv": write_results(tmp_path, "chunk_no_conv", no_letter=no_letter, seed=1),
        "chunk_0": write_results(tmp_path, "chunk_0", several=several, seed=2),
        "chunk_chess_0": write_results(tmp_path, "chunk_chess_0", seed=3),
        "chunk_svs_no_conv": write_results(tmp_path, "chunk_svs_no_conv", instrument="svs", no_letter=frozenset({(3, 29)}), seed=4),
    }
    with Store(tmp_path / "s.db") as store:
        reports = import_value_stability(store, [p for p, _ in files.values()])
        assert [r.status for r in reports] == ["imported"] * 4
        by_ctx = {r.context: r for r in reports}
        assert (by_ctx["chunk_no_conv"].n_answers, by_ctx["chunk_no_conv"].n_invalid, by_ctx["chunk_no_conv"].n_no_letter) == (200, 3, 3)
        assert (by_ctx["chunk_0"].n_invalid, by_ctx["chunk_0"].n_several) == (1, 1)
        assert by_ctx["chunk_chess_0"].n_invalid == 0
        assert (by_ctx["chunk_svs_no_conv"].n_answers, by_ctx["chunk_svs_no_conv"].n_invalid) == (285, 1)
        assert all(r.n_disagree == 0 and r.model == "tiny-model" for r in reports)

        runs = store.runs()
        assert set(runs["status"]) == {"imported"} and set(runs["method"]) == {"values"} and len(runs) == 4
        df = answers_of(store)
        assert len(df) == 3 * 5 * 40 + 5 * 57
        # the reference's no-conversation labels become RoleScope's no_conv (the instrument tells PVQ from SVS)
        assert set(df["context"]) == {"no_conv", "chunk_0", "chunk_chess_0"}
        assert dict(df.groupby("instrument").size()) == {"pvq-40": 600, "svs": 285}
        assert set(df["mode"]) == {"text"} and set(df["stage"]) == {"item"} and set(df["sample"]) == {0}
        assert set(df["gender"]) == {"male", "female"}
        assert df.loc[df.persona_id == 1, "gender"].unique().tolist() == ["female"]

        # every valid answer carries the stored letter and score; invalid ones carry none
        for label, (path, stored) in files.items():
            sub = df[df.run_id == by_ctx[label].run_id]
            for row in sub.itertuples():
                letter, score = stored[(row.persona_id, int(row.item_id) - 1)]
                if row.valid:
                    assert (row.letter, row.score) == (letter, score)
                else:
                    assert pd.isna(row.letter) and pd.isna(row.score)
        bad = df[(df.context == "no_conv") & (df.instrument == "pvq-40") & (df.valid == 0)]
        assert sorted(zip(bad.persona_id, bad.item_id.astype(int))) == [(0, 1), (2, 18), (4, 40)]
        assert set(bad["reason"]) == {NO_LETTER}
        assert set(bad["raw"]) == {NO_LETTER_REPLY}
        several_row = df[(df.context == "chunk_0") & (df.valid == 0)].iloc[0]
        assert (several_row.persona_id, several_row.item_id) == (1, "6")
        assert several_row.reason.startswith("several answer letters")

        # value keys, scales and SVS lists
        pvq = df[(df.context == "chunk_chess_0") & (df.persona_id == 0)].set_index("item_id")
        assert [pvq.loc[i, "value"] for i in ("1", "2", "3", "40")] == ["Self-Direction", "Power", "Universalism", "Universalism"]
        assert pvq["score"].between(1, 6).all() and pvq["list_no"].isna().all()
        svs = df[(df.context == "no_conv") & (df.instrument == "svs") & (df.persona_id == 0)].set_index("item_id")
        assert pd.isna(svs.loc["2", "value"]) and svs.loc["1", "value"] == "Universalism"
        assert svs["value"].notna().sum() == 46
        assert svs["score"].dropna().between(-1, 7).all() and svs["score"].min() < 1  # the SVS scale, not 1..9
        assert (svs.loc["30", "list_no"], svs.loc["31", "list_no"]) == (1, 2)

        run = store.get_run(by_ctx["chunk_svs_no_conv"].run_id)
        assert run["model_spec"]["backend"] == "imported" and run["model"] == "tiny-model"
        assert run["plan"]["imported"] is True and run["plan"]["instrument"] == "svs"
        assert run["plan"]["context"] == "no_conv" and run["plan"]["reference_context"] == "chunk_svs_no_conv"
        assert run["plan"]["n_personas"] == 5
        assert run["plan"]["path"] == str(files["chunk_svs_no_conv"][0].resolve())
        assert run["plan"]["summary"] == {"answers": 285, "invalid": 1, "no_letter": 1, "several": 0, "disagree": 0}
        assert run["n_units"] == 285 and run["finished_at"] is not None


def test_disagreeing_letter_is_invalid_and_counted(tmp_path: Path) -> None:
    """A reply whose "(X)" differs from the stored letter is flagged invalid and counted as a disagreement."""
    path, stored = write_results(tmp_path, "chunk_1", disagree=frozenset({(0, 3), (3, 12)}))
    with Store(tmp_path / "s.db") as store:
        (report,) = import_value_stability(store, [path])
        assert (report.n_disagree, report.n_invalid, report.n_no_letter) == (2, 2, 0)
        df = answers_of(store)
        bad = df[df.valid == 0].sort_values("persona_id")
        assert list(bad.item_id) == ["4", "13"]
        assert bad.iloc[0].reason == f"reply answers ({LETTERS[(LETTERS.index(stored[(0, 3)][0]) + 1) % 6]}) but the file stores {stored[(0, 3)][0]}"


def test_logprob_mode_file(tmp_path: Path) -> None:
    """Files written in logprob mode (bare-letter replies, real lprobs) are valid when the stored letter is the argmax."""
    path, stored = write_results(tmp_path, "chunk_2", logprob=True)
    with Store(tmp_path / "s.db") as store:
        (report,) = import_value_stability(store, [path])
        assert report.n_invalid == 0
        df = answers_of(store)
        assert set(df["mode"]) == {"logprob"} and df["valid"].all()
        assert df.loc[(df.persona_id == 2) & (df.item_id == "7"), "score"].item() == stored[(2, 6)][1]


@pytest.mark.skipif(not ANCHORS.exists(), reason="../shared/anchors not present")
def test_import_with_reference_population(tmp_path: Path) -> None:
    """With the reference's real_world_people population (50 personas): names and M/F genders carried over."""
    population = json.loads((ANCHORS / "personas/real_world_people/personas.json").read_text(encoding="utf-8"))
    path, _ = write_results(tmp_path, "chunk_grammar_1", population=population)
    with Store(tmp_path / "s.db") as store:
        (report,) = import_value_stability(store, [path])
        assert report.n_personas == len(population) == 50
        df = answers_of(store).drop_duplicates("persona_id").sort_values("persona_id")
        assert list(df["persona"]) == [p["name"] for p in population]
        assert list(df["gender"]) == [{"M": "male", "F": "female"}[p["gender"]] for p in population]


def test_folder_argument_finds_results_files(tmp_path: Path) -> None:
    """A folder imports every results.json below it, each once even if also named directly."""
    a, _ = write_results(tmp_path / "model", "chunk_3")
    write_results(tmp_path / "model", "chunk_4", seed=5)
    with Store(tmp_path / "s.db") as store:
        reports = import_value_stability(store, [tmp_path / "model", a])
        assert sorted(r.context for r in reports) == ["chunk_3", "chunk_4"]
        assert counts(store) == (2, 400)


def test_import_is_idempotent(tmp_path: Path) -> None:
    """Importing the same file twice adds nothing the second time and says so."""
    path, _ = write_results(tmp_path, "chunk_0", no_letter=frozenset({(1, 1)}))
    with Store(tmp_path / "s.db") as store:
        (first,) = import_value_stability(store, [path])
        before = answers_of(store)
        (second,) = import_value_stability(store, [path])
        assert (first.status, second.status) == ("imported", "already imported")
        assert second.run_id == first.run_id
        assert counts(store) == (1, 200)
        assert answers_of(store).equals(before)


def test_resume_of_an_imported_run_is_refused(tmp_path: Path) -> None:
    """An imported run has no plan to execute: resume says so instead of failing obscurely."""
    path, _ = write_results(tmp_path, "chunk_0")
    with Store(tmp_path / "s.db") as store:
        (report,) = import_value_stability(store, [path])
        with pytest.raises(InputError, match="imported"):
            execute_run(store, report.run_id)


# -- bad files ---------------------------------------------------------------------------------------
def _mutate(path: Path, change) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize("label,change,expected", [
    ("truncated", None, "invalid JSON at line"),
    ("no_answers", lambda d: d.pop("answers"), "key 'answers': missing"),
    ("no_args", lambda d: (d.pop("args"), d.pop("params")), "key 'args': missing"),
    ("no_engine", lambda d: d["args"].pop("engine"), "key 'args.engine': missing"),
    ("short_answers", lambda d: d["answers"].pop(), "key 'answers': 4 entries but simulated_population has 5"),
    ("short_generations", lambda d: d["generations"].pop(), "key 'generations': 4 entries"),
    ("39_items", lambda d: d["answers"][2]["pvq_auto"].pop(), "key 'answers[2].pvq_auto': 39 items; pvq-40 has 40"),
    ("bad_letter", lambda d: d["answers"][1]["pvq_auto"].__setitem__(4, ["Z", 3]), "key 'answers[1].pvq_auto[4]': letter 'Z'"),
    ("bad_score", lambda d: d["answers"][1]["pvq_auto"].__setitem__(4, ["A", 7]), "key 'answers[1].pvq_auto[4]': score 7"),
    ("bad_gender", lambda d: d["simulated_population"][3].__setitem__("gender", "X"),
     "key 'simulated_population[3].gender': 'X' is not M/F"),
    ("wrong_subject", lambda d: d["answers"][0].__setitem__("svs", d["answers"][0].pop("pvq_auto")), "key 'answers[0]': no 'pvq_auto'"),
    ("bad_lprobs", lambda d: d["lprobs"][0]["pvq_auto"].__setitem__(0, [0.1]), "key 'lprobs[0].pvq_auto[0]': expected 6 numbers"),
])
def test_bad_file_names_file_and_key_and_stores_nothing(tmp_path: Path, label: str, change, expected: str) -> None:
    """A malformed file: one error naming the file and the key; nothing of it stored; the good file beside it imported."""
    good, _ = write_results(tmp_path, "chunk_good", seed=7)
    bad, _ = write_results(tmp_path, f"chunk_{label}", no_letter=frozenset({(0, 0)}), seed=8)
    if change is None:
        text = bad.read_text()
        bad.write_text(text[: len(text) // 2])
    else:
        _mutate(bad, change)
    with Store(tmp_path / "s.db") as store:
        reports = import_value_stability(store, [bad, good])
        failed = [r for r in reports if r.status == "failed"]
        assert len(failed) == 1 and failed[0].path == str(bad)
        assert failed[0].error.startswith(f"{bad}: ")
        assert expected in failed[0].error
        assert counts(store) == (1, 200)
        assert set(answers_of(store)["context"]) == {"chunk_good"}


def test_import_run_is_all_or_nothing(tmp_path: Path) -> None:
    """Store.import_run: a row that fails to insert rolls back the run row and every other row."""
    import analysis.methods.values.questionnaire  # noqa: F401  (registers values_answers)

    rows = [{"run_id": "r1", "persona_id": 0, "context": "c", "item_id": "1", "sample": 0, "valid": 1},
            {"run_id": "r1", "persona_id": 0, "context": "c", "item_id": "2", "sample": 0, "valid": object()}]
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(sqlite3.Error):
            store.import_run("r1", "values", "m", {"backend": "imported"}, {}, {"values_answers": rows})
        assert counts(store) == (0, 0)
        assert store.import_run("r1", "values", "m", {"backend": "imported"}, {}, {"values_answers": rows[:1]}) is True
        assert store.import_run("r1", "values", "m", {"backend": "imported"}, {}, {"values_answers": rows[:1]}) is False
        assert counts(store) == (1, 1)


# -- CLI ---------------------------------------------------------------------------------------------
def test_cli_imports_good_files_and_exits_2_for_bad_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`import value-stability`: good files imported, one error line per bad file, exit 2; all good -> exit 0."""
    good, _ = write_results(tmp_path, "chunk_0", no_letter=frozenset({(0, 0)}))
    bad, _ = write_results(tmp_path, "chunk_1", seed=3)
    _mutate(bad, lambda d: d.pop("generations"))
    db = tmp_path / "cli.db"
    code = main(["import", "value-stability", str(good), str(bad), str(tmp_path / "missing.json"), "--store", str(db)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    errors = [line for line in err if line.startswith("error: ")]
    assert errors == [f"error: {tmp_path / 'missing.json'}: file not found", f"error: {bad}: key 'generations': missing"]
    assert any(line.startswith(f"imported {good} -> run vs-tiny-model-chunk_0-") and "1 invalid" in line for line in err)
    with Store(db, read_only=True) as store:
        assert counts(store) == (1, 200)

    assert main(["import", "value-stability", str(good), "--store", str(db), "--json"]) == 0
    out = capsys.readouterr()
    assert [r["status"] for r in json.loads(out.out)] == ["already imported"]


def test_cli_unknown_import_kind_is_rejected(tmp_path: Path) -> None:
    """An import kind outside the contract's list is rejected by argparse (exit 2)."""
    with pytest.raises(SystemExit) as exc:
        main(["import", "nonsense", str(tmp_path)])
    assert exc.value.code == 2


def test_two_populations_of_one_engine_never_pool(tmp_path: Path) -> None:
    """Two result files of one engine with different personas are two configurations: their personas never pair by
    index (a rank-order stability of 1.0 between unrelated people). Files of the same population pool."""
    from analysis.methods.values.families import FAMILY
    from analysis.runs import comparable

    other = [{"name": f"Other {i}", "description": f"Someone else {i}.", "gender": "FM"[i % 2]} for i in range(5)]
    a, _ = write_results(tmp_path / "a", "chunk_0", seed=1)
    b, _ = write_results(tmp_path / "b", "chunk_chess_0", seed=2)
    c, _ = write_results(tmp_path / "c", "chunk_chess_0", population=other, seed=2)
    with Store(tmp_path / "s.db") as store:
        import_value_stability(store, [a, b, c])
        configs = comparable.configurations(store.frame("SELECT * FROM runs"), FAMILY)["tiny-model"]
    assert len(configs) == 2
    same, different = sorted(configs, key=lambda cfg: len(cfg.run_ids), reverse=True)
    assert len(same.run_ids) == 2 and len(different.run_ids) == 1
    assert "personas" in same.differs_from(different)
