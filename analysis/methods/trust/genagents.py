"""Load the GenAgents persona bank (Park et al. 2024) and augment it with Big Five levels.

Formats: a ``.jsonl`` file with one agent object a line (the public ``gss_agents.jsonl``), or a
folder holding ``<id>/scratch.json`` agent folders (searched recursively; a folder that holds a
``scratch.json`` itself is one agent). The GSS answers are mapped onto RoleScope's levels
(``analysis.methods.trust.personas``): age -> band, wealth brackets merged into six bands, GSS work status
and family structure names shortened, religions outside the named ones grouped. An unknown value
is an InputError naming the file, line/folder and field.

Paper attribute set (the default, ``paper_test_levels``): the paper's test split (Table 5). An agent joins
the test split when its political views, religion and work status are test levels (GSS names are
the paper's own there); age, highest degree, same residence and citizenship always map. Family
structure at 16: GSS "Lived with parents" is the test level "Both parents"; the other GSS answers
(divorce, a parent died, left home, ...) name no single test level (which parent? which guardian?),
so the agent's family structure is left unset (not described, not grouped) rather than guessed. The
test personas come in a seeded order (ids sorted, shuffled with ``random.Random(seed)``) so that
``--limit-personas 50`` (the default for a GenAgents file) is a seeded sample; their descriptions are
the paper's form (``personas.describe``: test-split traits and Big Five only).

Big Five (the paper's augmentation, Sec. 3.2): each trait gets an independent uniform level drawn
with ``random.Random(big_five_seed(seed, agent_id))``: the recorded ``seed`` plus the agent id fix
it, whatever the file order or subset. Persona ids are ``ga{seed}-{agent_id}`` (another seed gives
other Big Five levels, hence another persona). Splits as for generated banks (``assign_splits``).
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

from analysis.errors import InputError
from analysis.importers.files import load_json, parse_json, read_text
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


def agent_levels(origin: str, doc: dict[str, Any]) -> dict[str, str]:
    """The agent's demographic levels (no Big Five); InputError on a missing field or unknown value."""
    try:
        age = int(_field(origin, doc, "age"))
        levels = {"age": age_band(age)}
    except (TypeError, ValueError) as exc:
        raise InputError(f"{origin}: field 'age': {exc}") from None
    for key, (name, mapping) in FIELD_MAPS.items():
        value = str(_field(origin, doc, name)).strip()
        if value not in mapping:
            raise InputError(f"{origin}: field '{name}': unknown value '{value}'")
        levels[key] = mapping[value]
    return levels


# paper test-split key -> (rolescope15 key whose GenAgents level it reads, that level -> test level)
_PAPER_FAMILY = {"Both parents": "Both parents"}  # rolescope15's "Both parents" is GSS "Lived with parents"
PAPER_FROM_LEVELS: dict[str, tuple[str, dict[str, str] | None]] = {
    "age": ("age", None), "highest_degree": ("education", None), "same_residence_since_16": ("residence_since_16", None),
    "us_citizenship": ("citizenship", {"U.S. citizen": "A U.S. citizen", "Not a U.S. citizen": "Not a U.S. citizen"}),
    "political_views": ("political_views", {"Moderate": "Moderate, middle of the road"}),
    "religion": ("religion", None),  # read from the raw answer: rolescope15 merges Orthodox-Christian away
    "work_status": ("work_status", None), "family_structure_at_16": ("family_at_16", _PAPER_FAMILY),
}
# These must hold a test level for the agent to join the test split; the others may stay unset.
PAPER_REQUIRED = ("age", "highest_degree", "same_residence_since_16", "us_citizenship", "political_views", "religion",
                  "work_status")


def paper_test_levels(origin: str, doc: dict[str, Any], levels: dict[str, str]) -> dict[str, str] | None:
    """The agent's levels of the paper's test split, or None when it is not a test persona.

    ``levels``: the agent's rolescope15 levels (``agent_levels``). Religion reads the raw GSS answer (rolescope15
    merges Christian and Orthodox-Christian)."""
    table = attribute_table("paper", "test")
    out: dict[str, str] = {}
    for key, (source, mapping) in PAPER_FROM_LEVELS.items():
        value = str(doc["religion"]).strip() if key == "religion" else levels[source]
        if mapping is not None:
            value = mapping.get(value, value if key != "family_structure_at_16" else "")
        if value in table[key].levels:
            out[key] = value
        elif key in PAPER_REQUIRED:
            return None
    return out


def load_genagents(path: str | Path, seed: int = 0, attribute_set: str = DEFAULT_ATTRIBUTE_SET) -> list[Persona]:
    """Every agent as a Persona with Big Five levels drawn from the recorded seed, and its split.

    ``paper``: only the agents that are test personas of Table 5, all in split 'test', in a seeded order."""
    check_attribute_set(attribute_set)
    drafts: list[tuple[str, dict[str, str], dict[str, Any]]] = []
    seen: set[str] = set()
    paper = attribute_set == "paper"
    errors: list[str] = []
    for origin, doc in read_agents(path):
        try:
            agent_id = str(_field(origin, doc, "agent_id"))
            if agent_id in seen:
                raise InputError(f"{origin}: agent_id '{agent_id}' appears twice")
            seen.add(agent_id)
            levels = agent_levels(origin, doc)
        except InputError as exc:
            errors.append(str(exc))
            continue
        b5_seed = big_five_seed(seed, agent_id)
        if paper:
            test = paper_test_levels(origin, doc, levels)
            if test is None:
                continue
            table = attribute_table("paper", "test")
            keys = big_five_keys("paper", "test")
            drafts.append((f"gp{seed}-{agent_id}", test | sample_levels(random.Random(b5_seed), keys, table),
                           {"agent_id": agent_id, "age": int(doc["age"]), "big_five_seed": b5_seed}))
            continue
        levels |= sample_levels(random.Random(b5_seed), BIG_FIVE)
        name = " ".join(str(doc[k]).strip() for k in ("first_name", "last_name") if doc.get(k))
        place = ", ".join(str(doc[k]).strip() for k in ("city", "state") if doc.get(k))
        details = {"agent_id": agent_id, "age": int(doc["age"]), "big_five_seed": b5_seed}
        details |= ({"name": name} if name else {}) | ({"place": place} if place else {})
        drafts.append((f"ga{seed}-{agent_id}", levels, details))
    refuse_bad_agents(path, errors)
    if paper:
        if not drafts:
            raise InputError(f"{path}: no agent has test-split levels of the paper's Table 5")
        order = sorted(d[0] for d in drafts)
        random.Random(seed).shuffle(order)
        rank = {pid: k for k, pid in enumerate(order)}
        return [Persona(id=pid, source="genagents", split="test", attributes=levels, details=details,
                        description=describe(levels, details, "paper", "test"))
                for pid, levels, details in sorted(drafts, key=lambda d: rank[d[0]])]
    splits = assign_splits([d[0] for d in drafts], seed)
    return [Persona(id=pid, source="genagents", split=splits[pid], attributes=levels, details=details,
                    description=describe(levels, details)) for pid, levels, details in drafts]
