"""GenAgents loader on the public bank (../shared/anchors/genagents, Park et al. 2024, MIT): mapping, Big Five, folders;
the paper's form (whole-bank sample, App. C.4's attributes described) and how the analysis treats a persona whose level
is outside an attribute's test levels (the tests of that need no bank)."""

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

needs_gss = pytest.mark.skipif(not GSS.exists(), reason="reference data ../shared/anchors not present")


@pytest.fixture(scope="module")
def bank():
    return load_genagents(GSS, seed=7, attribute_set="rolescope15")


@pytest.fixture(scope="module")
def raw() -> dict[str, dict]:
    return {doc["agent_id"]: doc for _, doc in read_agents(GSS)}


@needs_gss
def test_every_agent_loads_with_all_attributes(bank, raw) -> None:
    """3,505 agents, each with a valid level for all 15 attributes; splits 2103/701/701; ids carry the seed."""
    assert len(bank) == len(raw) == 3505
    for p in bank:
        assert set(p.attributes) == set(ATTRIBUTE_KEYS)
        assert all(p.attributes[k] in BY_KEY[k].levels for k in ATTRIBUTE_KEYS)
        assert p.id == f"ga7-{p.details['agent_id']}" and p.source == "genagents"
    assert Counter(p.split for p in bank) == {"train": 2103, "validation": 701, "test": 701}


@needs_gss
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


@needs_gss
def test_descriptions_state_every_attribute(bank, raw) -> None:
    """Each description: name, exact age, place, and the sentence of the persona's level for all other 14 attributes."""
    for p in bank:
        doc = raw[p.details["agent_id"]]
        text = p.description
        assert text.startswith(f"My name is {doc['first_name']} {doc['last_name']}. I am {doc['age']} years old.")
        assert f"I live in {doc['city']}, {doc['state']}." in text
        for key in ATTRIBUTE_KEYS[1:]:
            assert BY_KEY[key].phrase(p.attributes[key]) in text, (p.id, key)


@needs_gss
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


@needs_gss
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


@needs_gss
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
    with pytest.raises(InputError, match="field .age.: .12. is not a whole number of years from 18 to 120"):
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


# -- the paper's form (default): a seeded sample of the whole bank, described as App. C.4's persona ------------------
PAPER_TEST = {"political_views": {"Extremely liberal", "Slightly liberal", "Slightly conservative", "Extremely conservative"},
              "religion": {"Jewish", "Muslim/Islam", "None", "Orthodox-Christian", "Protestant"},
              "work_status": {"In school", "Keeping house", "Retired", "Other"}}
WORK = {"Working full time": "Full time", "Working part time": "Part time", "Retired": "Retired",
        "With a job, but not at work because of temporary illness, vacation, strike": "Temporarily not working",
        "Unemployed, laid off, looking for work": "Unemployed", "In school": "In school", "Keeping house": "Keeping house",
        "Other": "Other"}
C4_AGENT = "0023952f-142e-434b-82e2-7a7451b7c55f"  # Ethan Robinson: 25, White, male, AR, Catholic, ... (App. C.4)


@pytest.fixture(scope="module")
def paper_bank():
    return load_genagents(GSS, seed=7)


@needs_gss
def test_paper_bank_is_every_agent_in_a_seeded_order(paper_bank, raw) -> None:
    """Every agent is a candidate (3,505; the earlier rule kept 296), all in split test, ids gp7-<agent>; the order is
    sorted ids shuffled with Random(7), so another seed gives another sample. Each test-split trait holds the agent's
    own answer (work status in Table 5's short names, 'Lived with parents' = 'Both parents'), in or outside the test
    levels; the split's Big Five (conscientiousness, openness) only; non-test traits stay out of the attributes."""
    import random

    assert len(paper_bank) == len(raw) == 3505 and {p.split for p in paper_bank} == {"test"}
    order = sorted(f"gp7-{a}" for a in raw)
    random.Random(7).shuffle(order)
    assert [p.id for p in paper_bank] == order
    other = [p.details["agent_id"] for p in load_genagents(GSS, seed=8)[:50]]
    assert other != [p.details["agent_id"] for p in paper_bank[:50]]  # another seed, another sample
    for p in paper_bank:
        doc = raw[p.details["agent_id"]]
        family = doc["family_structure_at_16"]
        assert p.attributes == {
            "age": age_band(doc["age"]), "political_views": doc["political_views"], "religion": doc["religion"],
            "work_status": WORK[doc["work_status"]], "highest_degree": doc["highest_degree_received"],
            "same_residence_since_16": doc["same_residence_since_16"], "us_citizenship": doc["us_citizenship_status"],
            "family_structure_at_16": "Both parents" if family == "Lived with parents" else family,
            "conscientiousness": p.attributes["conscientiousness"], "openness": p.attributes["openness"]}
        assert {p.attributes["conscientiousness"], p.attributes["openness"]} <= {"Low", "Moderate", "High"}
    for trait in ("conscientiousness", "openness"):
        assert set(Counter(p.attributes[trait] for p in paper_bank)) == {"Low", "Moderate", "High"}
    religions = Counter(p.attributes["religion"] for p in paper_bank)
    assert religions["Catholic"] == 730 and religions["Christian"] == 90  # train-split / unlisted religions kept


@needs_gss
def test_c4_persona_is_loaded_and_described_as_the_paper_describes_it(paper_bank, raw) -> None:
    """App. C.4's persona ('a 25-year-old White male from Arkansas ... Catholic, slightly liberal, never married,
    currently employed but temporarily not at work, holds a high school degree, has less than $5,000 in wealth') is
    agent 0023952f: Catholic and 'Temporarily not working' are not test levels, yet it is in the bank, can be chosen
    by id, and its description names race, sex, state, marital status and wealth as C.4 does, in C.4's order."""
    from analysis.methods.trust.genagents import outside_test_levels
    from analysis.methods.trust.plan import resolve_personas

    c4 = next(p for p in paper_bank if p.details["agent_id"] == C4_AGENT)
    assert outside_test_levels(c4.attributes) == ["religion", "work_status"]
    assert c4.description.split("\n") == [
        "Age: 25", "Race: White", "Sex: Male", "State: Arkansas", "Religion: Catholic",
        "Political Views: Slightly liberal", "Marital Status: Never married", "Work Status: Temporarily not working",
        "Highest Degree Received: High school", "Total Wealth: Less than $5,000", "Family Structure At 16: Both parents",
        "Same Residence Since 16: Different state", "Us Citizenship Status: A U.S. citizen",
        f"Conscientiousness: {c4.attributes['conscientiousness']}",
        f"Openness To Experience: {c4.attributes['openness']}"]
    chosen, info = resolve_personas(GSS, seed=7, split="test", limit=None, persona_ids=[c4.id])
    assert [p.id for p in chosen] == [c4.id] and info["n"] == 1
    # every agent: the C.4 attributes it has, never its name or city; train-split religions and work statuses too
    for p in paper_bank:
        doc = raw[p.details["agent_id"]]
        lines = p.description.split("\n")
        assert len(lines) == 15 and lines[0] == f"Age: {doc['age']}"
        for label, field in (("Race", "race"), ("Sex", "sex"), ("Marital Status", "marital_status"),
                             ("Total Wealth", "total_wealth"), ("Political Views", "political_views"),
                             ("Religion", "religion"), ("Highest Degree Received", "highest_degree_received")):
            assert f"{label}: {doc[field]}" in lines, (p.id, label)
        assert any(ln.startswith("State: ") and len(ln) > len("State: XX") for ln in lines)
        assert f"{doc['first_name']} {doc['last_name']}" not in p.description
        assert doc["street_address"] not in p.description and not any(ln.startswith(("Name", "City")) for ln in lines)


@needs_gss
def test_default_sample_is_not_dominated_by_one_work_status() -> None:
    """The default 50 (seed 0) follow the bank: every work status within 0.2 of its share of the 3,505 agents, at
    least five of them present, train-split ones included. The earlier rule (test levels of political views, religion
    and work status only) gave 30 retired of 50 (bank share 0.20)."""
    from analysis.methods.trust.plan import resolve_personas

    raw_rows = [doc for _, doc in read_agents(GSS)]
    share = {WORK[w]: n / len(raw_rows) for w, n in Counter(d["work_status"] for d in raw_rows).items()}
    chosen, info = resolve_personas(GSS, seed=0, split="test", limit=None)
    assert info["n"] == 50 and info["size"] == 3505
    work = Counter(p.attributes["work_status"] for p in chosen)
    assert max(abs(work.get(w, 0) / 50 - s) for w, s in share.items()) <= 0.2, work
    assert len(work) >= 5 and {"Full time", "Part time"} & set(work), work
    assert work["Retired"] <= 15, work  # the earlier rule: 30


def _transfers(rows: list[tuple[dict, float]]):
    import pandas as pd

    return pd.DataFrame([{"persona_id": f"p{i}", "valid": 1, "sent": sent, "attributes": json.dumps(attrs)}
                         for i, (attrs, sent) in enumerate(rows)])


def test_a_level_outside_the_attributes_levels_leaves_that_attribute_only() -> None:
    """Personas whose work status is a train-split level ('Full time') or no level are left out of work status's
    groups — ρ and η² equal those of the test-level personas alone — and counted; they still count for age. The
    behaviour summary does the same given the plan's levels, and without them groups every value as before."""
    import numpy as np

    from analysis.methods.trust.behaviour import population_behaviour
    from analysis.methods.trust.consistency import Belief, population_consistency
    from analysis.methods.trust.effects import eta_squared, ranking_scores
    from analysis.methods.trust.personas import attribute_table

    table = attribute_table("paper", "test")
    work, age = table["work_status"].levels, table["age"].levels
    rows = [({"work_status": "Retired", "age": "65+"}, 2.0), ({"work_status": "Retired", "age": "65+"}, 3.0),
            ({"work_status": "In school", "age": "18-29"}, 8.0), ({"work_status": "In school", "age": "18-29"}, 9.0),
            ({"work_status": "Full time", "age": "30-44"}, 10.0), ({"work_status": "Full time", "age": "65+"}, 0.0),
            ({"work_status": "Unemployed", "age": "45-64"}, 5.0), ({"age": "30-44"}, 7.0)]
    transfers = _transfers(rows)
    ranking = ["In school", "Retired", "Keeping house", "Other"]
    beliefs = {"work_status": Belief("work_status", work, tuple(ranking), ranking_scores(ranking, work), 0.5),
               "age": Belief("age", age, tuple(age), ranking_scores(list(age), age), 0.1)}
    doc = population_consistency(beliefs, transfers, n_boot=50, seed=1)
    w = doc["attributes"]["work_status"]
    inside = rows[:4]
    assert w["eta2_behaviour"] == pytest.approx(eta_squared([s for _, s in inside], [a["work_status"] for a, _ in inside]))
    assert w["behaviour_means"] == {"Retired": 2.5, "In school": 8.5} and w["spearman"] == pytest.approx(1.0)
    assert (w["n_grouped"], w["n_outside_levels"]) == (4, 4)
    assert w["outside_levels"] == {"Full time": 2, "(none)": 1, "Unemployed": 1}
    a = doc["attributes"]["age"]
    assert (a["n_grouped"], a["n_outside_levels"], a["outside_levels"]) == (8, 0, {})
    assert a["eta2_behaviour"] == pytest.approx(eta_squared([s for _, s in rows], [r["age"] for r, _ in rows]))
    assert doc["n_personas"] == 8 and np.isfinite(doc["median_spearman"])
    levels = {k: t.levels for k, t in table.items()}
    beh = population_behaviour(transfers, levels)["attributes"]["work_status"]
    assert beh["n"] == {"Retired": 2, "In school": 2} and beh["n_outside_levels"] == 4
    assert beh["eta2"] == pytest.approx(w["eta2_behaviour"])
    assert beh["outside_levels"] == {"Full time": 2, "(none)": 1, "Unemployed": 1}
    old = population_behaviour(transfers)["attributes"]["work_status"]  # no levels given: every value grouped
    assert old["n"] == {"Full time": 2, "In school": 2, "Retired": 2, "Unemployed": 1} and "n_outside_levels" not in old


@needs_gss
def test_default_sample_groups_only_test_levels_per_attribute() -> None:
    """The default 50 GenAgents personas with made-up sends: work status and political views group only their
    test-level personas (counted: the rest are outside), age groups all 50."""
    from analysis.methods.trust.consistency import Belief, population_consistency
    from analysis.methods.trust.effects import ranking_scores
    from analysis.methods.trust.plan import resolve_personas
    from analysis.methods.trust.personas import attribute_table

    chosen, _ = resolve_personas(GSS, seed=0, split="test", limit=None)
    transfers = _transfers([(p.attributes, float(k % 11)) for k, p in enumerate(chosen)])
    table = attribute_table("paper", "test")
    beliefs = {k: Belief(k, table[k].levels, table[k].levels, ranking_scores(list(table[k].levels), table[k].levels), 0.1)
               for k in ("work_status", "political_views", "age")}
    doc = population_consistency(beliefs, transfers, n_boot=0)["attributes"]
    for key in ("work_status", "political_views"):
        inside = sum(p.attributes[key] in PAPER_TEST[key] for p in chosen)
        assert 0 < inside < 50 and (doc[key]["n_grouped"], doc[key]["n_outside_levels"]) == (inside, 50 - inside)
        assert sum(doc[key]["outside_levels"].values()) == 50 - inside
    assert (doc["age"]["n_grouped"], doc["age"]["n_outside_levels"]) == (50, 0)


def test_persona_form_splits_genagents_configurations_only() -> None:
    """A GenAgents plan of the paper's set records ``persona_form``: its signature differs from an earlier plan's
    (no field); a generated bank's plan (field None) keeps the signature of plans stored before the field."""
    from analysis.methods.trust.families import INDIVIDUAL, POPULATION
    from analysis.methods.trust.genagents import PAPER_PERSONA_FORM
    from analysis.runs.comparable import signature

    base = {"method": "trust", "level": "population", "attribute_set": "paper", "personas": [], "seed": 0}
    for family in (POPULATION, INDIVIDUAL):
        earlier = base | {"bank": {"source": "genagents"}}
        assert signature(family, earlier | {"persona_form": PAPER_PERSONA_FORM}) != signature(family, earlier)
        generated = base | {"bank": {"source": "generated"}}
        assert signature(family, generated | {"persona_form": None}) == signature(family, generated)
