"""Persona attribute sets, a seeded generated bank with train/validation/test splits, and descriptions.

Two attribute sets (``ATTRIBUTE_SETS``, recorded in the plan):

- ``paper`` (default): Table 5 of the paper (``analysis.methods.trust.attributes``): a persona of split s has
  the traits and levels Table 5 marks s; description = one "Trait: level" line per trait (App. C.4).
- ``rolescope15``: RoleScope's earlier set of 15 attributes, the same for every split (below).

The ``rolescope15`` attributes: age band, sex, highest degree, political views, religion, work status, total wealth,
U.S. citizenship, family structure at 16, residence since 16, and the Big Five (openness,
conscientiousness, extraversion, agreeableness, neuroticism) at Low/Moderate/High. Level names
and the first-person sentences are RoleScope's wording.

Generated bank: persona ``i`` of seed ``s`` (id ``g{s}-{i:04d}``) draws every attribute
independently and uniformly from its levels with ``random.Random(f"{s}:{i}")``, plus an exact age
inside its band, so a persona is the same whatever the bank size. Splits: the ids, sorted, are
shuffled with ``random.Random(s)``; the first 60 % are train, the next 20 % validation, the rest
test (``split_sizes``). The paper reports on its test split; ``select`` picks one split.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from analysis.errors import InputError
from analysis.methods.trust.attributes import TABLE3_ATTRIBUTES, Attribute, paper_split

Split = Literal["train", "validation", "test"]
SPLITS: tuple[str, ...] = ("train", "validation", "test")
SPLIT_FRACTIONS: tuple[float, float] = (0.6, 0.2)  # train, validation; test is the rest


AGE_BANDS: tuple[tuple[str, int, int], ...] = (("18-29", 18, 29), ("30-44", 30, 44), ("45-64", 45, 64), ("65+", 65, 89))
_LOW_MID_HIGH = ("Low", "Moderate", "High")

ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute("age", "Age", tuple(b for b, _, _ in AGE_BANDS), (
        "I am between 18 and 29 years old.", "I am between 30 and 44 years old.",
        "I am between 45 and 64 years old.", "I am 65 or older.")),
    Attribute("sex", "Sex", ("Female", "Male"), ("I am a woman.", "I am a man.")),
    Attribute("education", "Highest degree", (
        "Less than high school", "High school", "Associate/junior college", "Bachelor's", "Graduate"), (
        "I did not finish high school.", "My highest degree is a high school diploma.",
        "I have an associate degree from a junior college.", "I have a bachelor's degree.", "I have a graduate degree.")),
    Attribute("political_views", "Political views", (
        "Extremely liberal", "Liberal", "Slightly liberal", "Moderate", "Slightly conservative", "Conservative",
        "Extremely conservative"), (
        "Politically, I am extremely liberal.", "Politically, I am liberal.", "Politically, I am slightly liberal.",
        "Politically, I am a moderate, middle of the road.", "Politically, I am slightly conservative.",
        "Politically, I am conservative.", "Politically, I am extremely conservative.")),
    Attribute("religion", "Religion", (
        "Protestant", "Catholic", "Other Christian", "Jewish", "Muslim", "Buddhist", "Hindu", "Other religion",
        "No religion"), (
        "I am a Protestant.", "I am a Catholic.", "I am a Christian of a church that is neither Protestant nor Catholic.",
        "I am Jewish.", "I am Muslim.", "I am Buddhist.", "I am Hindu.", "I follow a religion other than these.",
        "I have no religion.")),
    Attribute("work_status", "Work status", (
        "Full time", "Part time", "Temporarily not working", "Unemployed", "Retired", "In school", "Keeping house",
        "Other"), (
        "I work full time.", "I work part time.", "I have a job but am temporarily not at work.",
        "I am unemployed and looking for work.", "I am retired.", "I am in school.", "I keep house.",
        "My work situation is none of the usual ones.")),
    Attribute("wealth", "Total wealth", (
        "Less than $20,000", "$20,000-$75,000", "$75,000-$250,000", "$250,000-$1 million", "$1 million-$5 million",
        "Above $5 million"), (
        "My total wealth is less than $20,000.", "My total wealth is between $20,000 and $75,000.",
        "My total wealth is between $75,000 and $250,000.", "My total wealth is between $250,000 and $1 million.",
        "My total wealth is between $1 million and $5 million.", "My total wealth is above $5 million.")),
    Attribute("citizenship", "U.S. citizenship", ("U.S. citizen", "Not a U.S. citizen"), (
        "I am a U.S. citizen.", "I am not a U.S. citizen.")),
    Attribute("family_at_16", "Family structure at 16", (
        "Both parents", "Divorced or separated parents", "A parent had died", "Institution", "Other"), (
        "At 16 I lived with both of my parents.", "At 16 my parents were divorced or separated.",
        "By 16 one of my parents had died.", "At 16 I lived in an institution.",
        "At 16 I lived in some other arrangement, away from my parents.")),
    Attribute("residence_since_16", "Residence since 16", ("Same city", "Same state, different city", "Different state"), (
        "I live in the same city as when I was 16.", "I live in the same state as when I was 16, but in another city.",
        "I live in a different state from the one I lived in at 16.")),
    Attribute("openness", "Openness to experience", _LOW_MID_HIGH, (
        "I prefer the familiar and am not very curious about new ideas.", "I am moderately open to new experiences.",
        "I am very open to new experiences and ideas."), big_five=True),
    Attribute("conscientiousness", "Conscientiousness", _LOW_MID_HIGH, (
        "I am not very organized or disciplined.", "I am moderately organized and dependable.",
        "I am highly organized, careful and dependable."), big_five=True),
    Attribute("extraversion", "Extraversion", _LOW_MID_HIGH, (
        "I am introverted and reserved.", "I am neither especially outgoing nor especially reserved.",
        "I am outgoing and sociable."), big_five=True),
    Attribute("agreeableness", "Agreeableness", _LOW_MID_HIGH, (
        "I am often critical of others and competitive.", "I am moderately warm and cooperative.",
        "I am very warm, kind and cooperative."), big_five=True),
    Attribute("neuroticism", "Neuroticism", _LOW_MID_HIGH, (
        "I am calm and emotionally stable.", "I sometimes worry and feel stressed.",
        "I often feel anxious and worried."), big_five=True),
)
BY_KEY: dict[str, Attribute] = {a.key: a for a in ATTRIBUTES}
ATTRIBUTE_KEYS: tuple[str, ...] = tuple(BY_KEY)
BIG_FIVE: tuple[str, ...] = tuple(a.key for a in ATTRIBUTES if a.big_five)

ATTRIBUTE_SETS: tuple[str, ...] = ("paper", "rolescope15")
DEFAULT_ATTRIBUTE_SET = "paper"


def check_attribute_set(name: str) -> None:
    if name not in ATTRIBUTE_SETS:
        raise InputError(f"--attribute-set '{name}': use {' or '.join(ATTRIBUTE_SETS)}")


def attribute_table(attribute_set: str, split: str = "test") -> dict[str, Attribute]:
    """key -> Attribute of one set and split (``rolescope15`` is the same for every split)."""
    check_attribute_set(attribute_set)
    if attribute_set == "rolescope15":
        return dict(BY_KEY)
    if split not in SPLITS:
        raise InputError(f"--split '{split}': the paper's attribute set differs per split; use train, validation or test")
    return {a.key: a for a in paper_split(split)}


def plan_levels(plan: dict[str, Any]) -> dict[str, tuple[str, ...]] | None:
    """attribute -> levels of a stored plan (or configuration signature): its attribute set (plans before the choice:
    rolescope15) and its bank's split; None for imported results or a split without a table ('all' in the paper
    set), whose personas' values are then grouped as they are."""
    if plan.get("imported"):
        return None
    attribute_set = plan.get("attribute_set", "rolescope15")
    split = (plan.get("bank") or {}).get("split", "test") if isinstance(plan.get("bank"), dict) else "test"
    if attribute_set not in ATTRIBUTE_SETS or (attribute_set == "paper" and split not in SPLITS):
        return None
    return {k: a.levels for k, a in attribute_table(attribute_set, split).items()}


def default_attributes(attribute_set: str, split: str = "test") -> list[str]:
    """The attributes elicited by default: Table 3's nine for the paper's test split, else every attribute of the split."""
    if attribute_set == "paper" and split == "test":
        return list(TABLE3_ATTRIBUTES)
    return list(attribute_table(attribute_set, split))


def big_five_keys(attribute_set: str, split: str = "test") -> list[str]:
    """The Big Five traits of one set and split (the paper's test split: conscientiousness, openness)."""
    return [k for k, a in attribute_table(attribute_set, split).items() if a.big_five]


class Persona(BaseModel):
    """One persona: its attribute levels, optional details (name, exact age, place) and description."""

    id: str
    source: str = Field(description="'generated' or 'genagents'")
    split: Split
    attributes: dict[str, str]
    details: dict[str, Any] = Field(default_factory=dict)
    description: str


def age_band(age: int) -> str:
    """The band of an age in years (18-29, 30-44, 45-64, 65+); below 18 is refused."""
    if age < 18:
        raise ValueError(f"age {age} is below 18")
    for band, lo, hi in AGE_BANDS:
        if lo <= age <= hi:
            return band
    return AGE_BANDS[-1][0]


def describe(attributes: dict[str, str], details: dict[str, Any] | None = None,
             attribute_set: str = "rolescope15", split: str = "test") -> str:
    """The persona description of ``attribute_set``.

    ``paper``: one "Trait: level" line per trait of the split (Table 5 order) the persona has a level for.
    ``rolescope15``: first person; name and place when known, then one sentence per attribute in ATTRIBUTES
    order; the age sentence says the exact age when ``details['age']`` is known, else the band.
    """
    details = details or {}
    if attribute_set == "paper":
        return "\n".join(a.phrase(attributes[a.key]) for a in paper_split(split) if attributes.get(a.key) is not None)
    parts: list[str] = []
    if details.get("name"):
        parts.append(f"My name is {details['name']}.")
    for attr in ATTRIBUTES:
        level = attributes[attr.key]
        if attr.key == "age" and details.get("age") is not None:
            parts.append(f"I am {int(details['age'])} years old.")
        else:
            parts.append(attr.phrase(level))
        if attr.key == "sex" and details.get("place"):
            parts.append(f"I live in {details['place']}.")
    return " ".join(parts)


def split_sizes(n: int) -> tuple[int, int, int]:
    """(train, validation, test) sizes for n personas: round(0.6 n), round(0.2 n), the rest."""
    n_train = round(SPLIT_FRACTIONS[0] * n)
    n_val = min(n - n_train, round(SPLIT_FRACTIONS[1] * n))
    return n_train, n_val, n - n_train - n_val


def assign_splits(ids: Sequence[str], seed: int) -> dict[str, str]:
    """Seeded split of the ids (sorted, then shuffled with ``random.Random(seed)``) into train/validation/test."""
    order = sorted(ids)
    random.Random(seed).shuffle(order)
    n_train, n_val, _ = split_sizes(len(order))
    return {pid: ("train" if k < n_train else "validation" if k < n_train + n_val else "test") for k, pid in enumerate(order)}


def sample_levels(rng: random.Random, keys: Sequence[str], table: dict[str, Attribute] | None = None) -> dict[str, str]:
    """One uniform, independent draw per attribute key (levels from ``table``, default the rolescope15 set)."""
    table = table or BY_KEY
    return {key: rng.choice(table[key].levels) for key in keys}


def generate_bank(n: int, seed: int = 0, attribute_set: str = DEFAULT_ATTRIBUTE_SET) -> list[Persona]:
    """``n`` generated personas (see module docstring) with their splits.

    ``rolescope15``: ids ``g{seed}-{i:04d}``, every attribute drawn, split assigned after.
    ``paper``: ids ``p{seed}-{i:04d}``; the split is assigned first, then persona i draws the traits and levels of
    its split (Table 5) with ``random.Random(f"{seed}:{i}")``.
    """
    check_attribute_set(attribute_set)
    if n < 1:
        raise InputError("--personas: a generated bank needs at least 1 persona")
    prefix = "p" if attribute_set == "paper" else "g"
    ids = [f"{prefix}{seed}-{i:04d}" for i in range(n)]
    splits = assign_splits(ids, seed)
    out = []
    for i, pid in enumerate(ids):
        rng = random.Random(f"{seed}:{i}")
        table = attribute_table(attribute_set, splits[pid])
        levels = sample_levels(rng, list(table), table)
        details: dict[str, Any] = {}
        if "age" in levels:
            _, lo, hi = next(b for b in AGE_BANDS if b[0] == levels["age"])
            details["age"] = rng.randint(lo, hi)
        out.append(Persona(id=pid, source="generated", split=splits[pid], attributes=levels, details=details,
                           description=describe(levels, details, attribute_set, splits[pid])))
    return out


def select(personas: Sequence[Persona], split: str = "test", limit: int | None = None) -> list[Persona]:
    """The personas of one split ('all' keeps every split), in bank order, at most ``limit``."""
    if split not in (*SPLITS, "all"):
        raise InputError(f"--split '{split}': use train, validation, test or all")
    if limit is not None and limit < 1:
        raise InputError("--limit-personas must be >= 1")
    chosen = [p for p in personas if split == "all" or p.split == split]
    if not chosen:
        raise InputError(f"the persona bank has no persona in split '{split}' ({len(personas)} personas in all)")
    return chosen[:limit] if limit is not None else chosen
