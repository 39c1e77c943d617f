"""Population and context loaders: reference personas and chunks, bundled defaults, malformed files.

Reference data: github flowersteam/value_stability (Kovač et al. 2024, MIT), read from ../shared/anchors.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from analysis.errors import InputError
from analysis.methods.values.contexts import load_context
from analysis.methods.values.populations import load_population, parse_personas

ANCHORS = Path(__file__).resolve().parents[3].parent / "shared/anchors/stick_to_your_role"
needs_anchors = pytest.mark.skipif(not ANCHORS.is_dir(), reason=f"reference data not found at {ANCHORS}")
CHUNK_0 = ANCHORS / "contexts/leaderboard_reddit_chunks/chunk_0.jsonl"
# persona counts of the reference populations (tolkien_characters has 60, the other two 50)
REFERENCE_SIZES = {"famous_people": 50, "real_world_people": 50, "tolkien_characters": 60}


# -- populations ------------------------------------------------------------------------------

@needs_anchors
@pytest.mark.parametrize("population", sorted(REFERENCE_SIZES))
def test_reference_population_loads(population: str) -> None:
    """Each reference personas.json loads whole, in order, genders F/M normalised to female/male."""
    path = ANCHORS / "personas" / population / "personas.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    personas = load_population(path)
    assert len(personas) == REFERENCE_SIZES[population] == len(raw)
    assert [p.id for p in personas] == list(range(len(raw)))
    assert [p.name for p in personas] == [r["name"] for r in raw]
    assert [p.description for p in personas] == [r["description"] for r in raw]
    assert [p.gender for p in personas] == [{"F": "female", "M": "male"}[r["gender"]] for r in raw]
    assert load_population(path.parent) == personas  # the folder holding personas.json works too


def test_bundled_default_population() -> None:
    """The project's default population: 40 personas, 20 female and 20 male."""
    personas = load_population("default")
    assert len(personas) == 40
    assert Counter(p.gender for p in personas) == {"female": 20, "male": 20}
    assert len({p.name for p in personas}) == 40



def test_bundled_personas_read_as_a_noun_phrase_after_you_are() -> None:
    """The persona message is the reference's "You are {description}" (``set_persona_str``), whose populations describe
    a persona as a noun phrase ("Marilyn Monroe (1926 – 1962) American actress, singer, model."). The bundled
    descriptions are noun phrases too ("Name (born Y), a … who …"), so the message is grammatical; the campaign set
    carries the same descriptions (a persona's identity across methods)."""
    from analysis.methods.cross_method.personas import BUNDLED, read_personas
    from analysis.methods.values.prompts import persona_system

    personas = load_population("default")
    for p in personas:
        message = persona_system(p)
        assert re.match(rf"You are {re.escape(p.name)} \(born \d{{4}}\), an? \w", message), message
        assert not re.search(r"\) (is|was) ", message), message
    assert [c.description for c in read_personas(BUNDLED)] == [p.description for p in personas]

def write_personas(tmp_path: Path, doc: object) -> Path:
    path = tmp_path / "personas.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


GOOD = {"name": "Ada", "description": "A test persona.", "gender": "F"}


@pytest.mark.parametrize("entry, field", [
    ({**GOOD, "gender": "X"}, "gender"),
    ({"name": "Bo", "gender": "M"}, "description"),
    ({"description": "No name.", "gender": "m"}, "name"),
    ("just a string", "entry"),
])
def test_malformed_persona_names_index_and_field(tmp_path: Path, entry: object, field: str) -> None:
    """A bad second persona -> InputError naming the file, persona 1 and the field."""
    path = write_personas(tmp_path, [GOOD, entry])
    with pytest.raises(InputError, match=rf"population {re.escape(str(path))}: persona 1 field '{field}'"):
        load_population(path)


@pytest.mark.parametrize("doc", [{"personas": [GOOD]}, [], "text"])
def test_population_not_a_list(tmp_path: Path, doc: object) -> None:
    """A document that is not a non-empty list -> InputError naming the file."""
    path = write_personas(tmp_path, doc)
    with pytest.raises(InputError, match=rf"population {re.escape(str(path))}: expected a non-empty list"):
        load_population(path)


def test_population_invalid_json_and_missing(tmp_path: Path) -> None:
    """Invalid JSON names the line; a missing file is 'not found'."""
    path = tmp_path / "personas.json"
    path.write_text('[\n{"name": "Ada",\n]', encoding="utf-8")
    with pytest.raises(InputError, match=r"invalid JSON at line 3"):
        load_population(path)
    with pytest.raises(InputError, match="not found"):
        load_population(tmp_path / "missing.json")


def test_gender_spellings_normalised(tmp_path: Path) -> None:
    """f/F/female/w and m/M/male map to female/male."""
    entries = [{**GOOD, "name": f"Ada {i}", "gender": g}  # names apart: one persona twice is refused
               for i, g in enumerate(("f", "F", "female", "w", "m", "M", "male", " Male "))]
    genders = [p.gender for p in load_population(write_personas(tmp_path, entries))]
    assert genders == ["female"] * 4 + ["male"] * 4


# -- contexts ---------------------------------------------------------------------------------

@pytest.mark.parametrize("label, kind", [
    ("no_conv", "no_conv"), ("topics_a", "topic"), ("topics_b", "topic"), ("chess", "shared_opening"), ("grammar", "shared_opening"),
])
def test_bundled_contexts_resolve(label: str, kind: str) -> None:
    """Every bundled label resolves for the 40 default personas."""
    ctx = load_context(label, 40)
    assert (ctx.label, ctx.kind) == (label, kind)
    if kind == "topic":
        assert len(ctx.openings) == 40 and len(set(ctx.openings)) == 40
        assert ctx.opening_for(7) == ctx.openings[7] and ctx.interlocutor == "user"
    if kind == "no_conv":
        assert ctx.opening_for(0) is None


def test_chess_opening() -> None:
    """chess opens with '1. e4' for every persona, and the interlocutor is another persona."""
    ctx = load_context("chess", 40)
    assert ctx.opening_for(0) == ctx.opening_for(39) == "1. e4"
    assert ctx.interlocutor == "persona"
    assert load_context("grammar", 40).interlocutor == "persona"


@needs_anchors
def test_reference_chunk_persona_i_takes_line_i() -> None:
    """A reference chunk with 50 personas gives the first 50 'content' fields, in order."""
    lines = [json.loads(line) for line in CHUNK_0.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(lines) > 50
    ctx = load_context(str(CHUNK_0), 50)
    assert (ctx.label, ctx.kind, ctx.interlocutor) == ("chunk_0", "topic", "user")
    assert ctx.openings == [line["content"] for line in lines[:50]]
    assert ctx.opening_for(49) == lines[49]["content"]


@needs_anchors
def test_reference_chunk_too_short() -> None:
    """Asking for more personas than the chunk has lines -> InputError naming the file and both counts."""
    n_lines = sum(1 for line in CHUNK_0.read_text(encoding="utf-8").splitlines() if line.strip())
    with pytest.raises(InputError, match=rf"chunk_0\.jsonl: {n_lines} openings for 500 personas"):
        load_context(str(CHUNK_0), 500)


def test_chunk_too_few_lines(tmp_path: Path) -> None:
    """Two lines for three personas -> InputError naming the file."""
    path = tmp_path / "two.jsonl"
    path.write_text('{"content": "hello"}\n{"content": "hi"}\n', encoding="utf-8")
    assert load_context(str(path), 2).openings == ["hello", "hi"]
    with pytest.raises(InputError, match=rf"context {re.escape(str(path))}: 2 openings for 3 personas"):
        load_context(str(path), 3)


@pytest.mark.parametrize("bad", ['{"content": "unterminated', '{"text": "no content key"}', '["a list"]'])
def test_chunk_bad_line_named(tmp_path: Path, bad: str) -> None:
    """A line that is not a JSON object with 'content' -> InputError naming that line number."""
    path = tmp_path / "bad.jsonl"
    path.write_text(f'{{"content": "one"}}\n\n{bad}\n{{"content": "four"}}\n', encoding="utf-8")
    with pytest.raises(InputError, match=rf"context {re.escape(str(path))}: line 3 is not a JSON object with 'content'"):
        load_context(str(path), 3)


def test_unknown_context_label() -> None:
    """An unknown label -> InputError listing the available ones."""
    with pytest.raises(InputError, match=r"context 'chekers': unknown; use one of \['no_conv'.*'chess'"):
        load_context("chekers", 3)


def test_csv_population_names_every_bad_row(tmp_path):
    """A name/description/gender CSV: valid rows become personas (F/M/female normalised); every bad row is named as a
    spreadsheet numbers it (header = row 1), and parse_personas refuses the file with the first and a count."""
    from analysis.methods.values.populations import read_population

    path = tmp_path / "people.csv"
    path.write_text("Name,Description,Gender\nAda,Bakes.,F\nBo,Farms.,x\nCy,Nurse.,female\nDi,Pilot.,\n", encoding="utf-8")
    personas, errors = read_population(path)
    assert [(p.id, p.name, p.gender) for p in personas] == [(0, "Ada", "female"), (2, "Cy", "female")]
    assert errors == ["row 3 field 'gender': gender 'x' is not F/M",
                      "row 5 field 'gender': gender '' is not F/M"]
    with pytest.raises(InputError, match=r"row 3 field 'gender'.*\(and 1 more bad entries\)"):
        parse_personas(path)
    (tmp_path / "no-gender.csv").write_text("name,description\nAda,Bakes.\n", encoding="utf-8")
    with pytest.raises(InputError, match="CSV without column"):
        read_population(tmp_path / "no-gender.csv")


def test_plan_from_chosen_persona_ids():
    from analysis.llm.specs import parse_model_spec
    from analysis.methods.values.plan import build_values_plan

    spec = parse_model_spec("embedded")
    plan = build_values_plan(spec, persona_ids=[5, 1, 3], limit_items=2)
    assert [p.id for p in plan.personas] == [1, 3, 5]  # population order
    with pytest.raises(InputError, match=r"persona ids \[999\] are not in population default"):
        build_values_plan(spec, persona_ids=[1, 999])
