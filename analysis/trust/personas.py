"""Persona attributes (the paper's Table 5 subset named in the issue), a seeded generated bank with
train/validation/test splits, and first-person descriptions.

Attributes: age band, sex, highest degree, political views, religion, work status, total wealth,
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
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from analysis.errors import InputError

Split = Literal["train", "validation", "test"]
SPLITS: tuple[str, ...] = ("train", "validation", "test")
SPLIT_FRACTIONS: tuple[float, float] = (0.6, 0.2)  # train, validation; test is the rest


@dataclass(frozen=True)
class Attribute:
    """One persona attribute: its levels (in a natural order) and one first-person sentence per level."""

    key: str
    label: str
    levels: tuple[str, ...]
    phrases: tuple[str, ...]
    big_five: bool = False

    def phrase(self, level: str) -> str:
        return self.phrases[self.levels.index(level)]


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


def describe(attributes: dict[str, str], details: dict[str, Any] | None = None) -> str:
    """First-person description: name and place when known, then one sentence per attribute in ATTRIBUTES order.

    The age sentence says the exact age when ``details['age']`` is known, else the band.
    """
    details = details or {}
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


def sample_levels(rng: random.Random, keys: Sequence[str]) -> dict[str, str]:
    """One uniform, independent draw per attribute key."""
    return {key: rng.choice(BY_KEY[key].levels) for key in keys}


def generate_bank(n: int, seed: int = 0) -> list[Persona]:
    """``n`` generated personas (see module docstring), ids ``g{seed}-{i:04d}``, with their splits."""
    if n < 1:
        raise InputError("--personas: a generated bank needs at least 1 persona")
    drafts: list[tuple[str, dict[str, str], dict[str, Any]]] = []
    for i in range(n):
        rng = random.Random(f"{seed}:{i}")
        levels = sample_levels(rng, ATTRIBUTE_KEYS)
        _, lo, hi = next(b for b in AGE_BANDS if b[0] == levels["age"])
        drafts.append((f"g{seed}-{i:04d}", levels, {"age": rng.randint(lo, hi)}))
    splits = assign_splits([d[0] for d in drafts], seed)
    return [Persona(id=pid, source="generated", split=splits[pid], attributes=levels, details=details,
                    description=describe(levels, details)) for pid, levels, details in drafts]


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
