"""Load the GenAgents persona bank (Park et al. 2024) and augment it with Big Five levels.

Formats: a ``.jsonl`` file with one agent object a line (the public ``gss_agents.jsonl``), or a
folder holding ``<id>/scratch.json`` agent folders (searched recursively; a folder that holds a
``scratch.json`` itself is one agent). The GSS answers are mapped onto RoleScope's levels
(``analysis.methods.trust.personas``): age -> band, wealth brackets merged into six bands, GSS work status
and family structure names shortened, religions outside the named ones grouped. An unknown value
is an InputError naming the file, line/folder and field.

Paper attribute set (the default): the personas of the paper's test split (Table 5), read as far as the paper
states them. The paper says only that its results use "our test split of the GenAgents persona bank" (Sec. 3.2), with
N = 50 personas (Sec. 4); it does not say how agents were assigned to splits or drawn. Its App. C.4 persona (a
Catholic, temporarily not at work: levels Table 5 gives no test mark) shows that a test persona's traits need not all
be test levels. So every agent is a candidate: the agents come in a seeded order (ids sorted, shuffled with
``random.Random(seed)``) and ``--limit-personas 50`` (the default for a GenAgents file) is a seeded sample of the whole
bank. A test-split trait whose value is not one of its test levels keeps the agent's own value (``paper_levels``); the
analysis leaves that persona out of that trait's groups only and counts it (``consistency``, ``behaviour``). Age,
highest degree, same residence and citizenship always map; family structure at 16: see ``PAPER_TRAITS``.

Descriptions (``describe_agent``): the paper's attribute vector as its C.4 persona gives it, one "Trait: value" line
each in C.4's order: exact age, race, sex, state (written out), religion, political views, marital status, work
status, highest degree, total wealth (GenAgents' bracket, as C.4's "less than $5,000"), then family structure at 16,
same residence since 16 and US citizenship (test-split traits C.4 does not mention) and the split's Big Five
(conscientiousness, openness: the two C.4 names). Name and city are not described (C.4 gives neither).
The plan records ``PAPER_PERSONA_FORM`` (``persona_form``).

Big Five (the paper's augmentation, Sec. 3.2): each trait gets an independent uniform level drawn
with ``random.Random(big_five_seed(seed, agent_id))``: the recorded ``seed`` plus the agent id fix
it, whatever the file order or subset (``paper``: the split's two traits; ``rolescope15``: all five). Persona ids are
``gp{seed}-{agent_id}`` (paper) or ``ga{seed}-{agent_id}`` (rolescope15): another seed gives other Big Five levels,
hence another persona. ``rolescope15`` splits as generated banks do (``assign_splits``).
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

from analysis.errors import InputError
from analysis.importers.files import load_json, parse_json, read_text
from analysis.methods.trust.attributes import paper_split
from analysis.methods.trust.personas import (
    BIG_FIVE, DEFAULT_ATTRIBUTE_SET, Persona, age_band, assign_splits, attribute_table, big_five_keys, check_attribute_set,
    describe, sample_levels,
)

_WEALTH = {
    "Less than $5,000": "Less than $20,000", "$5,000 to $20,000": "Less than $20,000",
    "$20,000 to $40,000": "$20,000-$75,000", "$40,000 to $75,000": "$20,000-$75,000",
    "$75,000 to $100,000": "$75,000-$250,000", "$100,000 to $150,000": "$75,000-$250,000",
    "$150,000 to $250,000": "$75,000-$250,000",
    "$250,000 to $500,000": "$250,000-$1 million", "$500,000 to $1 million": "$250,000-$1 million",
    "$1 million to $2 million": "$1 million-$5 million", "$2 million to $3 million": "$1 million-$5 million",
    "$3 million to $4 million": "$1 million-$5 million", "$4 million to $5 million": "$1 million-$5 million",
    "$5 million to $10 million": "Above $5 million", "Above $10 million": "Above $5 million",
}
_WORK = {
    "Working full time": "Full time", "Working part time": "Part time",
    "With a job, but not at work because of temporary illness, vacation, strike": "Temporarily not working",
    "Unemployed, laid off, looking for work": "Unemployed", "Retired": "Retired", "In school": "In school",
    "Keeping house": "Keeping house", "Other": "Other",
}
_RELIGION = {
    "Protestant": "Protestant", "Catholic": "Catholic", "Christian": "Other Christian",
    "Orthodox-Christian": "Other Christian", "Inter-nondenominational": "Other Christian", "Jewish": "Jewish",
    "Muslim/Islam": "Muslim", "Buddhism": "Buddhist", "Hinduism": "Hindu", "Other": "Other religion",
    "Other eastern religions": "Other religion", "Native American": "Other religion", "None": "No religion",
}
_FAMILY = {
    "Lived with parents": "Both parents", "Divorce, separated": "Divorced or separated parents",
    "Parent died": "A parent had died", "Institution": "Institution",
    "Other (left home before 16, e.g., for school)": "Other", "Armed forces": "Other",
}
_POLITICS = {v: v for v in ("Extremely liberal", "Liberal", "Slightly liberal", "Slightly conservative", "Conservative",
                            "Extremely conservative")} | {"Moderate, middle of the road": "Moderate"}
_DEGREE = {v: v for v in ("Less than high school", "High school", "Associate/junior college", "Bachelor's", "Graduate")}

# attribute key -> (GenAgents field, value map)
FIELD_MAPS: dict[str, tuple[str, dict[str, str]]] = {
    "sex": ("sex", {"Female": "Female", "Male": "Male"}),
    "education": ("highest_degree_received", _DEGREE),
    "political_views": ("political_views", _POLITICS),
    "religion": ("religion", _RELIGION),
    "work_status": ("work_status", _WORK),
    "wealth": ("total_wealth", _WEALTH),
    "citizenship": ("us_citizenship_status", {"A U.S. citizen": "U.S. citizen", "Not a U.S. citizen": "Not a U.S. citizen"}),
    "family_at_16": ("family_structure_at_16", _FAMILY),
    "residence_since_16": ("same_residence_since_16",
                           {v: v for v in ("Same city", "Same state, different city", "Different state")}),
}


def big_five_seed(seed: int, agent_id: str) -> int:
    """The 48-bit seed of one agent's Big Five draw: sha256 of ``"{seed}|{agent_id}"``."""
    return int(hashlib.sha256(f"{seed}|{agent_id}".encode()).hexdigest()[:12], 16)


def read_agents(path: str | Path) -> list[tuple[str, dict[str, Any]]]:
    """(origin, agent object) pairs from a .jsonl file or a folder of ``<id>/scratch.json``; origin names the line
    ("line 7") or the agent's scratch.json."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"--personas {path}: file or folder not found")
    if path.is_dir():
        files = [path / "scratch.json"] if (path / "scratch.json").is_file() else sorted(path.rglob("scratch.json"))
        if not files:
            raise InputError(f"--personas {path}: no <id>/scratch.json agent folders in this folder")
        out = []
        for f in files:
            doc = load_json(f)
            if not isinstance(doc, dict):
                raise InputError(f"{f}: expected a JSON object")
            doc.setdefault("agent_id", f.parent.name)
            out.append((str(f), doc))
        return out
    out, errors = [], []
    lines = read_text(path).splitlines()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            doc = parse_json(line, f"line {n}")
            if not isinstance(doc, dict):
                raise InputError(f"line {n}: expected a JSON object")
        except InputError as exc:
            errors.append(str(exc))
            continue
        out.append((f"line {n}", doc))
    refuse_bad_agents(path, errors)
    if not out:
        raise InputError(f"{path}: no agents")
    return out


def refuse_bad_agents(path: str | Path, errors: list[str], shown: int = 5) -> None:
    """One line naming every bad agent (the first ``shown`` in full, then how many more); a bad agent refuses the file."""
    if errors:
        more = f"; and {len(errors) - shown} more" if len(errors) > shown else ""
        raise InputError(f"{path}: {len(errors)} bad agent{'s' * (len(errors) > 1)}: {'; '.join(errors[:shown])}{more}")


def _field(origin: str, doc: dict[str, Any], name: str) -> Any:
    if name not in doc or doc[name] in (None, ""):
        raise InputError(f"{origin}: field '{name}' is missing")
    return doc[name]


#: The ages an adult GSS respondent can have (the GSS codes 89 and older as 89).
AGES = range(18, 121)


def agent_age(origin: str, doc: dict[str, Any]) -> int:
    """The agent's age: a whole number of years in ``AGES`` (an integer, or digits as text); InputError otherwise."""
    value = _field(origin, doc, "age")
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 3:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value not in AGES:
        raise InputError(f"{origin}: field 'age': {str(value)[:40]!r} is not a whole number of years from "
                         f"{AGES.start} to {AGES.stop - 1}")
    return value


def agent_id_of(origin: str, doc: dict[str, Any]) -> str:
    """The agent's id: text or a whole number (an object, a list or a float is refused)."""
    value = _field(origin, doc, "agent_id")
    if isinstance(value, bool) or not isinstance(value, (str, int)) or len(str(value)) > 200:
        raise InputError(f"{origin}: field 'agent_id': {type(value).__name__} is not an id (text or a whole number)")
    return str(value)


def agent_levels(origin: str, doc: dict[str, Any]) -> dict[str, str]:
    """The agent's demographic levels (no Big Five); InputError on a missing field or unknown value."""
    levels = {"age": age_band(agent_age(origin, doc))}
    for key, (name, mapping) in FIELD_MAPS.items():
        value = str(_field(origin, doc, name)).strip()
        if value not in mapping:
            raise InputError(f"{origin}: field '{name}': unknown value '{value}'")
        levels[key] = mapping[value]
    return levels


# -- the paper's attribute set (the default) -------------------------------------------------------------------------
# Table 5's test-split traits other than age and the Big Five -> (GenAgents field, GSS answer -> Table 5 name). Without a
# map the answer is kept as GenAgents gives it (Table 5 names the GSS answers it lists the same way). Family structure:
# GSS "Lived with parents" is the test level "Both parents"; the other answers (divorce, a parent died, left home, ...)
# name no single test level (which parent? which guardian?), so they stay the agent's own answer: outside the test levels.
PAPER_TRAITS: dict[str, tuple[str, dict[str, str] | None]] = {
    "family_structure_at_16": ("family_structure_at_16", {"Lived with parents": "Both parents"}),
    "highest_degree": ("highest_degree_received", None),
    "political_views": ("political_views", None),
    "religion": ("religion", None),
    "same_residence_since_16": ("same_residence_since_16", None),
    "us_citizenship": ("us_citizenship_status", None),
    "work_status": ("work_status", _WORK),  # Table 5's short names of the eight GSS answers
}
# Fields of the description that are not test-split traits (Table 5's train-split traits, and the state App. C.4 names):
# details key -> (GenAgents field, label). Race, state and marital status are described when the agent has them.
PAPER_RECORD: dict[str, tuple[str, str]] = {
    "race": ("race", "Race"), "sex": ("sex", "Sex"), "state": ("state", "State"),
    "marital_status": ("marital_status", "Marital Status"), "total_wealth": ("total_wealth", "Total Wealth"),
}
# The description's lines in App. C.4's order (age, race, sex, state, religion, political views, marital status, work
# status, degree, wealth, then the Big Five), the three test-split traits C.4 does not mention before the Big Five.
PAPER_ORDER: tuple[str, ...] = (
    "age", "race", "sex", "state", "religion", "political_views", "marital_status", "work_status", "highest_degree",
    "total_wealth", "family_structure_at_16", "same_residence_since_16", "us_citizenship", "conscientiousness", "openness")
#: The plan's ``persona_form`` for a GenAgents bank under the paper's set: runs of the earlier rule (only agents whose
#: political views, religion and work status were all test levels; test-split traits alone described), whose plans
#: lack the field, never pool with these.
PAPER_PERSONA_FORM = "whole bank sampled; App. C.4 attributes described"

US_STATES: dict[str, str] = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California", "CO": "Colorado",
    "CT": "Connecticut", "DE": "Delaware", "DC": "District of Columbia", "FL": "Florida", "GA": "Georgia",
    "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois", "IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky",
    "LA": "Louisiana", "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota",
    "MS": "Mississippi", "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire",
    "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York", "NC": "North Carolina", "ND": "North Dakota", "OH": "Ohio",
    "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania", "RI": "Rhode Island", "SC": "South Carolina",
    "SD": "South Dakota", "TN": "Tennessee", "TX": "Texas", "UT": "Utah", "VT": "Vermont", "VA": "Virginia",
    "WA": "Washington", "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming",
}


def paper_levels(doc: dict[str, Any], levels: dict[str, str]) -> dict[str, str]:
    """The agent's value of every test-split trait of Table 5 but the Big Five: its test level where its answer is one,
    else its own answer (Table 5's name where Table 5 has one: 'Temporarily not working', 'Liberal'; else GenAgents':
    'Catholic'). ``levels``: the agent's rolescope15 levels (``agent_levels``, which has checked every answer)."""
    out = {"age": levels["age"]}
    for key, (name, mapping) in PAPER_TRAITS.items():
        value = str(doc[name]).strip()
        out[key] = mapping.get(value, value) if mapping else value
    return out


def outside_test_levels(levels: dict[str, str]) -> list[str]:
    """The traits whose value is not one of the trait's test levels (Table 5), in trait order."""
    table = attribute_table("paper", "test")
    return [key for key in table if key in levels and levels[key] not in table[key].levels]


def paper_record(doc: dict[str, Any]) -> dict[str, str]:
    """The described fields that are not test-split traits (``PAPER_RECORD``) the agent has; a state's two-letter code
    is written out ('AR' -> 'Arkansas', as App. C.4's 'from Arkansas')."""
    out = {}
    for key, (name, _) in PAPER_RECORD.items():
        if doc.get(name) not in (None, ""):
            value = str(doc[name]).strip()
            out[key] = US_STATES.get(value.upper(), value) if key == "state" else value
    return out


def describe_agent(levels: dict[str, str], details: dict[str, Any]) -> str:
    """The paper's attribute vector of a GenAgents persona: one "Trait: value" line per attribute App. C.4's persona
    names, in C.4's order, plus the test-split traits it does not name (family structure, residence and citizenship
    since 16): the exact age, race, sex, state, religion, political views, marital status, work status, highest
    degree, total wealth as GenAgents gives them, then the split's Big Five (conscientiousness, openness). Trait
    names are Table 5's."""
    labels = {a.key: a.label for a in paper_split("test")} | {k: label for k, (_, label) in PAPER_RECORD.items()}
    values = levels | {k: details[k] for k in PAPER_RECORD if k in details} | {"age": str(details["age"])}
    return "\n".join(f"{labels[key]}: {values[key]}" for key in PAPER_ORDER if values.get(key) is not None)


def load_genagents(path: str | Path, seed: int = 0, attribute_set: str = DEFAULT_ATTRIBUTE_SET) -> list[Persona]:
    """Every agent as a Persona with Big Five levels drawn from the recorded seed, and its split.

    ``paper``: every agent, all in split 'test', in a seeded order (ids sorted, shuffled with ``random.Random(seed)``):
    the first n are a seeded sample of the whole bank. A trait whose value is not a test level stays the agent's own
    value; the analysis leaves that persona out of that trait's groups only, and counts it."""
    check_attribute_set(attribute_set)
    drafts: list[tuple[str, dict[str, str], dict[str, Any]]] = []
    seen: set[str] = set()
    paper = attribute_set == "paper"
    errors: list[str] = []
    for origin, doc in read_agents(path):
        try:
            agent_id = agent_id_of(origin, doc)
            if agent_id in seen:
                raise InputError(f"{origin}: agent_id '{agent_id}' appears twice")
            seen.add(agent_id)
            levels = agent_levels(origin, doc)
        except InputError as exc:
            errors.append(str(exc))
            continue
        b5_seed = big_five_seed(seed, agent_id)
        if paper:
            keys = big_five_keys("paper", "test")
            mine = paper_levels(doc, levels) | sample_levels(random.Random(b5_seed), keys, attribute_table("paper", "test"))
            details = {"agent_id": agent_id, "age": agent_age(origin, doc), "big_five_seed": b5_seed} | paper_record(doc)
            drafts.append((f"gp{seed}-{agent_id}", mine, details))
            continue
        levels |= sample_levels(random.Random(b5_seed), BIG_FIVE)
        name = " ".join(str(doc[k]).strip() for k in ("first_name", "last_name") if doc.get(k))
        place = ", ".join(str(doc[k]).strip() for k in ("city", "state") if doc.get(k))
        details = {"agent_id": agent_id, "age": agent_age(origin, doc), "big_five_seed": b5_seed}
        details |= ({"name": name} if name else {}) | ({"place": place} if place else {})
        drafts.append((f"ga{seed}-{agent_id}", levels, details))
    refuse_bad_agents(path, errors)
    if paper:
        order = sorted(d[0] for d in drafts)
        random.Random(seed).shuffle(order)
        rank = {pid: k for k, pid in enumerate(order)}
        return [Persona(id=pid, source="genagents", split="test", attributes=levels, details=details,
                        description=describe_agent(levels, details))
                for pid, levels, details in sorted(drafts, key=lambda d: rank[d[0]])]
    splits = assign_splits([d[0] for d in drafts], seed)
    return [Persona(id=pid, source="genagents", split=splits[pid], attributes=levels, details=details,
                    description=describe(levels, details)) for pid, levels, details in drafts]
