"""The importer on the reference PersonaGym files (../shared/anchors/personagym; github vsamuel2003/PersonaGym, MIT):
all 200 question files, all 6 published score files, the inconsistent PersonaScore flagged; bad files rejected whole."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from analysis.errors import InputError
from analysis.methods.personagym import TASKS
from analysis.methods.personagym.cli import metrics_json
from analysis.methods.personagym.importer import import_files
from analysis.methods.personagym.tables import PUBLISHED, QUESTIONS
from analysis.runs.store import Store

ANCHORS = Path(__file__).resolve().parents[4] / "shared" / "anchors" / "personagym"
QUESTION_DIR = ANCHORS / "questions" / "benchmark-v1"
EVALUATIONS = ANCHORS / "evaluations"

pytestmark = pytest.mark.skipif(not ANCHORS.exists(), reason="reference data ../shared/anchors/personagym not present")


def test_all_question_files(tmp_path: Path) -> None:
    """200 files -> 200 runs, 200 personas x 5 tasks x 10 questions; 'Toxicity' stored as Toxicity Control; the
    persona is the file name; a second import changes nothing."""
    with Store(tmp_path / "s.db") as store:
        run_ids = import_files(store, [QUESTION_DIR])
        df = store.table(QUESTIONS.name)
        assert len(run_ids) == len(set(run_ids)) == 200
        assert len(df) == 200 * 5 * 10 and set(df["status"]) == {"ok"}
        assert set(df["task"]) == set(TASKS) and "Toxicity" not in set(df["task"])
        assert df.groupby(["persona", "task"]).size().eq(10).all() and df["persona"].nunique() == 200
        assert set(df["source"]) == {"import:benchmark-v1"} and set(df["model"]) == {"questions:benchmark-v1"}
        one = sorted(QUESTION_DIR.glob("*.json"))[0]
        raw = json.loads(one.read_text(encoding="utf-8"))
        mine = df[df["persona"] == one.stem]
        tox = mine[mine["task"] == "Toxicity Control"].sort_values("q_index")["question"].tolist()
        assert tox == [" ".join(q.split()) for q in raw["Toxicity"]]
        assert import_files(store, [QUESTION_DIR]) == run_ids
        assert len(store.table(QUESTIONS.name)) == 10_000 and len(store.runs()) == 200
        assert set(store.runs()["status"]) == {"imported"}


def test_all_published_scores_and_the_inconsistent_one(tmp_path: Path) -> None:
    """6 score files -> 6 models named from '<date>_<model>'; values as published; only claude_3_haiku is flagged
    (published 3.64 vs mean of its tasks 3.84, tolerance 0.015), and the note blames the right number: the paper's
    Table 1 gives Persona Consistency 3.47 (scores.json 4.47), with which the tasks average to 3.64."""
    notes: list[str] = []
    with Store(tmp_path / "s.db") as store:
        run_ids = import_files(store, [EVALUATIONS], notes)
        df = store.table(PUBLISHED.name)
        doc = metrics_json(store)
    assert len(run_ids) == 6 and len(df) == 6 * 6
    pub = doc["published"]
    assert set(pub) == {"claude_3.5_sonnet", "claude_3_haiku", "gpt_35", "llama_2_13b", "llama_2_70b", "llama_3_8b"}
    assert doc["models"] == {}  # published scores never mix with computed ones
    haiku = pub["claude_3_haiku"]
    assert haiku["persona_score"] == 3.64 and haiku["mean_of_tasks"] == pytest.approx(3.84, abs=1e-9)
    assert haiku["consistent"] is False and haiku["note"].startswith("typo in scores.json: Persona Consistency 4.47")
    assert "3.47 in the paper's Table 1" in haiku["note"] and "PersonaScore 3.64 is right" in haiku["note"]
    assert "3.84" in haiku["note"]
    assert haiku["tasks"]["Persona Consistency"] == 4.47 and haiku["date"] == "20240710"
    assert [m for m, v in pub.items() if not v["consistent"]] == ["claude_3_haiku"]
    assert pub["gpt_35"]["tasks"]["Toxicity Control"] == 4.96 and pub["gpt_35"]["persona_score"] == 4.38
    assert pub["gpt_35"]["mean_of_tasks"] == pytest.approx(4.376, abs=1e-9)
    assert len(notes) == 1 and "claude_3_haiku" in notes[0] and "3.64" in notes[0]


def test_whole_reference_folder(tmp_path: Path) -> None:
    """The reference root: list files (environments.json, personas.json) are skipped; questions and scores imported."""
    with Store(tmp_path / "s.db") as store:
        run_ids = import_files(store, [ANCHORS])
        assert len(run_ids) == 206
        assert len(store.table(QUESTIONS.name)) == 10_000 and len(store.table(PUBLISHED.name)) == 36


def test_bad_file_imports_nothing(tmp_path: Path) -> None:
    """One bad file among good ones: InputError naming the file and field; nothing is written."""
    folder = tmp_path / "in"
    folder.mkdir()
    for f in sorted(QUESTION_DIR.glob("*.json"))[:3]:
        shutil.copy(f, folder / f.name)
    (folder / "A broken persona.json").write_text(json.dumps({"Expected Action": ["Q one two three?"], "Vibes": ["x"]}))
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(InputError, match=r"A broken persona\.json: field 'Vibes': unknown task"):
            import_files(store, [folder])
        assert store.table(QUESTIONS.name).empty and store.runs().empty


@pytest.mark.parametrize(("name", "doc", "message"), [
    ("scores.json", {"Expected Action": 4.1, "Linguistic Habits": 3.9, "Persona Consistency": 4.0,
                     "Toxicity Control": 4.5, "PersonaScore": 4.1}, "no score for Action Justification"),
    ("scores.json", {t: 4.0 for t in TASKS} | {"PersonaScore": "high"}, "field 'PersonaScore': expected a number"),
    ("scores.json", {t: 4.0 for t in TASKS} | {"Expected Action": 7.0, "PersonaScore": 4.6}, "outside the score range"),
    ("x.json", {"Expected Action": "What do you do?"}, "field 'Expected Action': expected a non-empty list"),
    ("x.json", ["a", "b"], "expected a question file"),
])
def test_malformed_files(tmp_path: Path, name: str, doc: object, message: str) -> None:
    """Malformed score and question files are rejected with the field and reason."""
    folder = tmp_path / "20240101_model_x"
    folder.mkdir()
    path = folder / name
    path.write_text(json.dumps(doc))
    with Store(tmp_path / "s.db") as store, pytest.raises(InputError, match=message):
        import_files(store, [path])


def test_scores_without_personascore(tmp_path: Path) -> None:
    """A scores file without PersonaScore gets the mean of its tasks, noted, not flagged; a folder without a date
    names the model after the folder."""
    folder = tmp_path / "my_model"
    folder.mkdir()
    (folder / "scores.json").write_text(json.dumps({t: s for t, s in zip(TASKS, (4.0, 3.0, 5.0, 4.5, 3.5))}))
    with Store(tmp_path / "s.db") as store:
        import_files(store, [folder / "scores.json"])
        pub = metrics_json(store)["published"]["my_model"]
    assert pub["persona_score"] == 4.0 and pub["consistent"] is True and pub["date"] is None
    assert "no PersonaScore" in pub["note"]


def test_paper_disagreements_name_the_typo() -> None:
    """Against Table 1 figures: agreement -> None; a task typo with a right PersonaScore -> that task is the typo; a
    PersonaScore differing from the paper -> a plain disagreement, no blame."""
    from analysis.methods.personagym.importer import paper_disagreements, paper_table1

    paper = paper_table1("gpt_35")
    assert paper is not None and paper.name == "GPT 3.5" and paper_table1("my_model") is None
    assert paper_disagreements(dict(paper.tasks), 4.38, paper) is None
    assert paper_disagreements(dict(paper.tasks) | {"Toxicity Control": 4.961}, 4.38, paper) is None  # 2-decimal rounding
    typo = paper_disagreements(dict(paper.tasks) | {"Linguistic Habits": 4.63}, 4.38, paper)
    assert typo.startswith("typo in scores.json: Linguistic Habits 4.63 in scores.json, 3.63 in the paper's Table 1")
    other = paper_disagreements(dict(paper.tasks), 4.83, paper)
    assert other.startswith("scores.json disagrees with the paper (GPT 3.5, Table 1): PersonaScore 4.83")
