"""GenAgents loader on the public bank (../shared/anchors/genagents, Park et al. 2024, MIT): mapping, Big Five, folders."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from analysis.errors import InputError
from analysis.methods.trust.genagents import FIELD_MAPS, big_five_seed, load_genagents, read_agents
from analysis.methods.trust.personas import ATTRIBUTE_KEYS, BIG_FIVE, BY_KEY, age_band

ANCHORS = Path(__file__).resolve().parents[4] / "shared" / "anchors"
GSS = ANCHORS / "genagents" / "gss_agents.jsonl"

pytestmark = pytest.mark.skipif(not GSS.exists(), reason="reference data ../shared/anchors not present")


@pytest.fixture(scope="module")
def bank():
    return load_genagents(GSS, seed=7, attribute_set="rolescope15")


@pytest.fixture(scope="module")
def raw() -> dict[str, dict]:
    return {doc["agent_id"]: doc for _, doc in read_agents(GSS)}


def test_every_agent_loads_with_all_attributes(bank, raw) -> None:
    """3,505 agents, each with a valid level for all 15 attributes; splits 2103/701/701; ids carry the seed."""
    assert len(bank) == len(raw) == 3505
    for p in bank:
        assert set(p.attributes) == set(ATTRIBUTE_KEYS)
        assert all(p.attributes[k] in BY_KEY[k].levels for k in ATTRIBUTE_KEYS)
        assert p.id == f"ga7-{p.details['agent_id']}" and p.source == "genagents"
    assert Counter(p.split for p in bank) == {"train": 2103, "validation": 701, "test": 701}


def test_mapping_follows_the_raw_answers(bank, raw) -> None:
    """Age band from the exact age; each mapped field equals the map of the raw GSS answer; the first agent by hand."""
    for p in bank:
        doc = raw[p.details["agent_id"]]
        assert p.attributes["age"] == age_band(doc["age"]) and p.details["age"] == doc["age"]
        for key, (field, mapping) in FIELD_MAPS.items():
            assert p.attributes[key] == mapping[doc[field]]
    first = next(p for p in bank if p.details["agent_id"] == "0023952f-142e-434b-82e2-7a7451b7c55f")
    assert {k: first.attributes[k] for k in ATTRIBUTE_KEYS[:10]} == {
        "age": "18-29", "sex": "Male", "education": "High school", "political_views": "Slightly liberal",
        "religion": "Catholic", "work_status": "Temporarily not working", "wealth": "Less than $20,000",
        "citizenship": "U.S. citizen", "family_at_16": "Both parents", "residence_since_16": "Different state"}
    levels = Counter(p.attributes["wealth"] for p in bank)
    assert set(levels) == set(BY_KEY["wealth"].levels)  # all six merged bands occur in the bank


def test_descriptions_state_every_attribute(bank, raw) -> None:
    """Each description: name, exact age, place, and the sentence of the persona's level for all other 14 attributes."""
    for p in bank:
        doc = raw[p.details["agent_id"]]
        text = p.description
        assert text.startswith(f"My name is {doc['first_name']} {doc['last_name']}. I am {doc['age']} years old.")
        assert f"I live in {doc['city']}, {doc['state']}." in text
        for key in ATTRIBUTE_KEYS[1:]:
            assert BY_KEY[key].phrase(p.attributes[key]) in text, (p.id, key)


def test_big_five_is_seeded_recorded_and_uniform(bank) -> None:
    """Big Five come from the recorded per-agent seed: reloading reproduces them, another seed changes them;
    each trait's levels are near uniform (within 0.03 of 1/3 over 3,505 agents)."""
    again = {p.details["agent_id"]: p for p in load_genagents(GSS, seed=7, attribute_set="rolescope15")}
    other = {p.details["agent_id"]: p for p in load_genagents(GSS, seed=8, attribute_set="rolescope15")}
    changed = 0
    for p in bank:
        aid = p.details["agent_id"]
        assert p.details["big_five_seed"] == big_five_seed(7, aid)
        assert {k: p.attributes[k] for k in BIG_FIVE} == {k: again[aid].attributes[k] for k in BIG_FIVE}
        changed += any(p.attributes[k] != other[aid].attributes[k] for k in BIG_FIVE)
        assert {k: p.attributes[k] for k in ATTRIBUTE_KEYS[:10]} == {k: other[aid].attributes[k] for k in ATTRIBUTE_KEYS[:10]}
    assert changed > 0.9 * len(bank)  # P(all five equal) = 3^-5
    for trait in BIG_FIVE:
        shares = Counter(p.attributes[trait] for p in bank)
        assert all(abs(n / len(bank) - 1 / 3) < 0.03 for n in shares.values()) and len(shares) == 3


def test_scratch_folders_load_like_the_jsonl(tmp_path: Path, bank, raw) -> None:
    """``<id>/scratch.json`` folders (agent_id from the folder name when absent) give the same personas as the jsonl."""
    ids = sorted(raw)[:6]
    for aid in ids:
        doc = dict(raw[aid])
        if aid == ids[0]:
            doc.pop("agent_id")
        (tmp_path / "gss_agents" / aid).mkdir(parents=True)
        (tmp_path / "gss_agents" / aid / "scratch.json").write_text(json.dumps(doc), encoding="utf-8")
    folder = {p.details["agent_id"]: p for p in load_genagents(tmp_path, seed=7, attribute_set="rolescope15")}
    by_id = {p.details["agent_id"]: p for p in bank}
    assert sorted(folder) == ids
    for aid in ids:
        assert folder[aid].attributes == by_id[aid].attributes and folder[aid].description == by_id[aid].description
    single = load_genagents(tmp_path / "gss_agents" / ids[1], seed=7, attribute_set="rolescope15")
    assert len(single) == 1 and single[0].attributes == by_id[ids[1]].attributes


def test_bad_input_names_file_and_field(tmp_path: Path, raw) -> None:
    """Unknown values, missing fields, bad JSON, duplicates and empty folders are InputErrors naming the place."""
    doc = dict(next(iter(raw.values())))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(doc) + "\n" + json.dumps(doc | {"agent_id": "x", "religion": "Pastafarian"}) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl: 1 bad agent: line 2: field 'religion': unknown value 'Pastafarian'"):
        load_genagents(bad)
    missing = {k: v for k, v in doc.items() if k != "total_wealth"}
    bad.write_text(json.dumps(missing) + "\n")
    with pytest.raises(InputError, match=r"line 1: field 'total_wealth' is missing"):
        load_genagents(bad)
    bad.write_text(json.dumps(doc | {"age": 12}) + "\n")
    with pytest.raises(InputError, match="field 'age': age 12 is below 18"):
        load_genagents(bad)
    bad.write_text("{not json\n")
    with pytest.raises(InputError, match="line 1: invalid JSON"):
        load_genagents(bad)
    bad.write_text(json.dumps(doc) + "\n" + json.dumps(doc) + "\n")
    with pytest.raises(InputError, match="appears twice"):
        load_genagents(bad)
    agents = [doc | {"agent_id": f"a{i}"} for i in range(9)]
    agents[1] |= {"religion": "Pastafarian"}
    agents[4] = {k: v for k, v in agents[4].items() if k != "age"}
    rows = [json.dumps(a) for a in agents]
    rows[6] = "{not json"
    rows[8] = json.dumps(agents[0])
    bad.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError) as err:  # every bad agent named in one line, none loaded
        load_genagents(bad)
    assert str(err.value) == (f"{bad}: 1 bad agent: line 7: invalid JSON at line 1, column 2 (Expecting property name "
                              "enclosed in double quotes)")  # a line that is not JSON refuses the file before fields
    rows[6] = json.dumps(agents[6])
    bad.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError) as err:
        load_genagents(bad)
    assert str(err.value) == (f"{bad}: 3 bad agents: line 2: field 'religion': unknown value 'Pastafarian'; line 5: "
                              "field 'age' is missing; line 9: agent_id 'a0' appears twice")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no <id>/scratch.json"):
        load_genagents(tmp_path / "empty")
    with pytest.raises(InputError, match="not found"):
        load_genagents(tmp_path / "nope.jsonl")


# -- the paper's form (default): Table 5's test split -------------------------------------------------------------
PAPER_TEST = {"political_views": {"Extremely liberal", "Slightly liberal", "Slightly conservative", "Extremely conservative"},
              "religion": {"Jewish", "Muslim/Islam", "None", "Orthodox-Christian", "Protestant"},
              "work_status": {"In school", "Keeping house", "Retired", "Other"}}


def test_paper_bank_holds_the_test_personas_in_the_papers_form(raw) -> None:
    """Default set: the agents whose political views, religion and work status are test levels (counted here on the
    raw answers: 296), all in split test, seeded order; family structure 'Both parents' from 'Lived with parents',
    unset otherwise; descriptions = "Trait: level" lines of the test traits and the split's two Big Five, nothing else."""
    expected = {a for a, d in raw.items() if d["political_views"] in PAPER_TEST["political_views"]
                and d["religion"] in PAPER_TEST["religion"] and d["work_status"] in PAPER_TEST["work_status"]}
    bank = load_genagents(GSS, seed=7)
    assert len(bank) == len(expected) == 296 and {p.details["agent_id"] for p in bank} == expected
    assert {p.split for p in bank} == {"test"} and all(p.id == f"gp7-{p.details['agent_id']}" for p in bank)
    for p in bank:
        doc = raw[p.details["agent_id"]]
        assert p.attributes["political_views"] == doc["political_views"] and p.attributes["religion"] == doc["religion"]
        assert p.attributes["work_status"] == doc["work_status"] and p.attributes["age"] == age_band(doc["age"])
        if doc["family_structure_at_16"] == "Lived with parents":
            assert p.attributes["family_structure_at_16"] == "Both parents"
        else:
            assert "family_structure_at_16" not in p.attributes and "Family Structure At 16" not in p.description
        lines = p.description.split("\n")
        assert len(lines) == len(p.attributes) and {ln.split(": ")[0] for ln in lines} <= {
            "Age", "Conscientiousness", "Family Structure At 16", "Highest Degree Received", "Openness To Experience",
            "Political Views", "Religion", "Same Residence Since 16", "Us Citizenship Status", "Work Status"}
        assert doc["first_name"] not in p.description and doc["city"] not in p.description
    by_id = {p.details["agent_id"]: p for p in bank}
    efrain = by_id["400afd76-2cb0-41b8-aa30-176caae303a5"]  # worked by hand from its raw line
    assert efrain.description.split("\n")[2:4] == ["Family Structure At 16: Both parents", "Highest Degree Received: High school"]
    assert efrain.description.split("\n")[5:] == [
        "Political Views: Slightly conservative", "Religion: Protestant", "Same Residence Since 16: Different state",
        "Us Citizenship Status: A U.S. citizen", "Work Status: Keeping house"]
    assert efrain.description.startswith("Age: 45-64\nConscientiousness: ")
    again, other = load_genagents(GSS, seed=7), load_genagents(GSS, seed=8)
    assert [p.id for p in again] == [p.id for p in bank]
    assert [p.details["agent_id"] for p in other] != [p.details["agent_id"] for p in bank]  # another seeded sample
    for trait in ("conscientiousness", "openness"):
        assert set(Counter(p.attributes[trait] for p in bank)) == {"Low", "Moderate", "High"}
    assert not any(k in p.attributes for p in bank for k in ("extraversion", "agreeableness", "neuroticism", "sex"))
