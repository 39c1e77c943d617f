"""Bundled PersonaGym data (environments, personas, rubrics) and the loaders' file formats and errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from analysis.errors import InputError
from analysis.methods.personagym import TASKS, canonical_task
from analysis.methods.personagym.data import (
    load_environments,
    load_judge_system,
    load_personas,
    load_rubrics,
    persona_key,
    read_question_file,
    sample_personas,
)

ANCHORS = Path(__file__).resolve().parents[4] / "shared" / "anchors" / "personagym"


def test_bundled_environments() -> None:
    """At least 100 distinct settings (case-insensitive), none of them a line of the reference list."""
    envs = load_environments()
    assert len(envs) >= 100 and len({e.lower() for e in envs}) == len(envs)
    if ANCHORS.exists():
        reference = {e.lower() for e in json.loads((ANCHORS / "environments.json").read_text())}
        assert not reference & {e.lower() for e in envs}


def test_bundled_personas_are_varied() -> None:
    """60 personas with unique ids, ages from teens to 90s (>= 30 distinct ages), many places; not the reference's."""
    personas = load_personas("all")
    assert len(personas) == 60 and len({p.id for p in personas}) == 60
    ages = [int(re.search(r"(\d+)-year-old", p.description).group(1)) for p in personas]
    assert min(ages) <= 18 and max(ages) >= 90 and len(set(ages)) >= 30
    found = [re.search(r" (?:in|from|on) (?:the |rural )?([A-Z][\w ]+?)(?: who|,| and|$)", p.description) for p in personas]
    places = {m.group(1) for m in found if m}
    assert len(places) >= 45  # a few name a nationality instead ("a Texan cattle rancher")
    assert all(p.questions is None for p in personas)
    if ANCHORS.exists():
        reference = set(json.loads((ANCHORS / "personas.json").read_text()))
        assert not reference & {p.description for p in personas}


def test_rubrics() -> None:
    """Five tasks in order, each with a description, question guidance and criteria 1-5; Toxicity 5 = not toxic."""
    rubrics = load_rubrics()
    assert list(rubrics) == list(TASKS)
    for r in rubrics.values():
        assert len(r.description) > 80 and len(r.question_guidance) > 80 and list(r.criteria) == ["1", "2", "3", "4", "5"]
    assert rubrics["Toxicity Control"].criteria["5"].startswith("Not toxic at all")
    assert rubrics["Toxicity Control"].criteria["1"].startswith("Highly toxic")


def test_task_names() -> None:
    """Task names are matched case/space-insensitively; 'Toxicity' is Toxicity Control; unknown names are None."""
    assert canonical_task("toxicity") == "Toxicity Control" and canonical_task(" expected  action ") == "Expected Action"
    assert canonical_task("Vibes") is None


def test_persona_sources(tmp_path: Path) -> None:
    """A seeded sample of N bundled personas (file order), JSON lists of strings or objects, .txt lines."""
    three = load_personas(3, seed=1)
    assert len(three) == 3 and [p.id for p in three] == sorted(p.id for p in three)
    assert [p.id for p in load_personas("3", seed=1)] == [p.id for p in three] != [p.id for p in load_personas(3, seed=2)]
    (tmp_path / "a.json").write_text(json.dumps(["A 30-year-old baker from Lyon", "A 70-year-old sailor from Bergen"]))
    (tmp_path / "b.json").write_text(json.dumps({"personas": [{"id": "x1", "persona": "A  chef   from Lima"}]}))
    (tmp_path / "c.txt").write_text("# comment\nA 20-year-old student from Oslo\n\nA 45-year-old nurse from Accra\n")
    a = load_personas(tmp_path / "a.json")
    assert [p.description for p in a] == ["A 30-year-old baker from Lyon", "A 70-year-old sailor from Bergen"]
    assert a[0].id == persona_key("A 30-year-old baker from Lyon") and a[0].id.startswith("p")
    assert [(p.id, p.description) for p in load_personas(tmp_path / "b.json")] == [("x1", "A chef from Lima")]
    assert len(load_personas(tmp_path / "c.txt")) == 2
    if ANCHORS.exists():
        assert len(load_personas(ANCHORS / "personas.json")) == 200


def test_persona_errors(tmp_path: Path) -> None:
    """Out-of-range N, a missing file, an entry without a description and duplicate ids are InputErrors."""
    with pytest.raises(InputError, match="choose 1..60"):
        load_personas(61)
    with pytest.raises(InputError, match="file not found"):
        load_personas(tmp_path / "nope.json")
    (tmp_path / "d.json").write_text(json.dumps([{"id": "a", "name": "Bob"}]))
    with pytest.raises(InputError, match="persona 1: field 'description'"):
        load_personas(tmp_path / "d.json")
    (tmp_path / "e.json").write_text(json.dumps([{"id": "a", "description": "x y"}, {"id": "a", "description": "z w"}]))
    with pytest.raises(InputError, match="persona id 'a' appears twice"):
        load_personas(tmp_path / "e.json")


def test_question_files(tmp_path: Path) -> None:
    """A question file: persona = file name, tasks canonical, whitespace normalised; a folder of them is sampled."""
    for i in range(4):
        (tmp_path / f"A {30 + i}-year-old potter from Kyoto.json").write_text(
            json.dumps({"Toxicity": [" What  do you say? "], "Expected Action": ["What next?", "Then?"]}))
    persona, questions = read_question_file(tmp_path / "A 30-year-old potter from Kyoto.json")
    assert persona == "A 30-year-old potter from Kyoto"
    assert questions == {"Expected Action": ["What next?", "Then?"], "Toxicity Control": ["What do you say?"]}
    personas = load_personas(tmp_path)
    assert len(personas) == 4 and personas[0].questions["Toxicity Control"] == ["What do you say?"]
    assert len(sample_personas(personas, 2, seed=0)) == 2 and sample_personas(personas, None) == personas


def test_environment_files(tmp_path: Path) -> None:
    """Environments from .txt or a JSON list; a name listed twice (any case) is an error."""
    (tmp_path / "e.txt").write_text("Harbour\nMarket hall\n")
    assert load_environments(tmp_path / "e.txt") == ["Harbour", "Market hall"]
    (tmp_path / "e.json").write_text(json.dumps(["Harbour", "harbour"]))
    with pytest.raises(InputError, match="'harbour' is listed twice"):
        load_environments(tmp_path / "e.json")
    if ANCHORS.exists():
        assert len(load_environments(ANCHORS / "environments.json")) == 150


def test_csv_personas_name_every_empty_row(tmp_path):
    """A CSV with a description column (id optional): every row without a description is named; otherwise one persona
    per row, ids from the id column or the description's key."""
    from analysis.methods.personagym.data import load_personas, persona_key

    good = tmp_path / "good.csv"
    good.write_text("id,description\nx1,A chef in Lyon.\n,A   sailor.\n", encoding="utf-8")
    assert [(p.id, p.description) for p in load_personas(good)] == [("x1", "A chef in Lyon."),
                                                                    (persona_key("A sailor."), "A sailor.")]
    bad = tmp_path / "bad.csv"
    bad.write_text("description\nA chef.\n\"\"\nA pilot.\n   \n", encoding="utf-8")
    with pytest.raises(InputError, match=r"row 3: field 'description' is empty; row 5: field 'description' is empty"):
        load_personas(bad)


def test_rubric_files_bad_input_is_one_clear_line(tmp_path: Path) -> None:
    """A rubric folder without a task's file, a file without a field, a file missing a score's criterion: each an
    InputError naming the folder or file and what is wrong."""
    import shutil

    from analysis.methods.personagym.data import load_rubrics

    anchors = Path("/work/shared/anchors/personagym/rubrics")
    folder = tmp_path / "rubrics"
    folder.mkdir()
    for f in anchors.glob("*.txt"):
        shutil.copyfile(f, folder / f.name)
    assert load_rubrics(folder)["Linguistic Habits"].template == (anchors / "Linguistic Habits.txt").read_text()
    (folder / "Toxicity.txt").unlink()
    with pytest.raises(InputError, match=r"rubrics: no rubric file for Toxicity Control"):
        load_rubrics(folder)
    text = (anchors / "Toxicity.txt").read_text()
    (folder / "Toxicity.txt").write_text(text.replace("{response}", ""))
    with pytest.raises(InputError, match=r"Toxicity.txt: the rubric lacks the field\(s\) \{response\}"):
        load_rubrics(folder)
    (folder / "Toxicity.txt").write_text(re.sub(r"Score = 3:.*\n", "", text))
    with pytest.raises(InputError, match=r"Toxicity.txt: .*criteria must describe each score 1, 2, 3, 4, 5"):
        load_rubrics(folder)


@pytest.mark.skipif(not (ANCHORS / "rubrics").is_dir(), reason="reference data ../shared/anchors/personagym not present")
def test_reference_rubric_folder_brings_the_reference_judge_prompt() -> None:
    """--rubrics PATH/rubrics: the judges' system prompt is the reference's, read as written from
    PATH/prompts/rubric_grading/sys_prompt.txt (code/run.py l. 113 reads ../prompts/rubric_grading/sys_prompt.txt beside
    ../rubrics/<task>.txt, l. 184); the bundled rubrics and a rubrics JSON keep RoleScope's (None here)."""
    expected = ANCHORS / "prompts" / "rubric_grading" / "sys_prompt.txt"
    text, source = load_judge_system(ANCHORS / "rubrics")
    assert text == expected.read_text(encoding="utf-8") and Path(source).resolve() == expected.resolve()
    assert load_judge_system("default") is None and load_judge_system("bundled") is None


def test_rubric_folder_judge_prompt_own_file_or_one_clear_line(tmp_path: Path) -> None:
    """A sys_prompt.txt in the rubric folder itself is used (before the reference's layout); a folder with neither is
    an InputError naming the paths expected; an empty one is refused; a rubrics JSON has none (RoleScope's)."""
    folder = tmp_path / "mine" / "rubrics"
    folder.mkdir(parents=True)
    with pytest.raises(InputError) as err:
        load_judge_system(folder)
    message = str(err.value)
    assert "\n" not in message and "no judge system prompt" in message
    assert str(tmp_path / "mine" / "prompts" / "rubric_grading" / "sys_prompt.txt") in message
    assert str(folder / "sys_prompt.txt") in message
    sibling = tmp_path / "mine" / "prompts" / "rubric_grading" / "sys_prompt.txt"
    sibling.parent.mkdir(parents=True)
    sibling.write_text("Judge B.\r\n", encoding="utf-8")
    assert load_judge_system(folder) == ("Judge B.\n", str(sibling))
    (folder / "sys_prompt.txt").write_text("Judge A.", encoding="utf-8")
    assert load_judge_system(folder) == ("Judge A.", str(folder / "sys_prompt.txt"))
    (folder / "sys_prompt.txt").write_text("  \n", encoding="utf-8")
    with pytest.raises(InputError, match=r"sys_prompt.txt: the judge system prompt is empty"):
        load_judge_system(folder)
    rubrics_json = tmp_path / "rubrics.json"
    rubrics_json.write_text("{}", encoding="utf-8")
    assert load_judge_system(rubrics_json) is None
