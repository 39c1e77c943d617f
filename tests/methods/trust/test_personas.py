"""Generated persona bank: seeding, splits, uniform independent levels, first-person descriptions."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from analysis.errors import InputError
from analysis.methods.trust.personas import (
    AGE_BANDS, ATTRIBUTE_KEYS, ATTRIBUTES, BIG_FIVE, BY_KEY, age_band, assign_splits, describe, generate_bank, select,
    split_sizes,
)


def test_attributes_cover_the_issue_list() -> None:
    """The 10 Table 5 attributes named in the issue plus the Big Five at Low/Moderate/High; levels and phrases pair up."""
    assert ATTRIBUTE_KEYS == ("age", "sex", "education", "political_views", "religion", "work_status", "wealth", "citizenship",
                              "family_at_16", "residence_since_16", "openness", "conscientiousness", "extraversion",
                              "agreeableness", "neuroticism")
    assert BIG_FIVE == ATTRIBUTE_KEYS[10:]
    for attr in ATTRIBUTES:
        assert len(attr.levels) == len(attr.phrases) == len(set(attr.phrases)) >= 2
        assert len(set(attr.levels)) == len(attr.levels)
    assert [len(BY_KEY[k].levels) for k in ATTRIBUTE_KEYS[:10]] == [4, 2, 5, 7, 9, 8, 6, 2, 5, 3]


def test_bank_is_seeded_and_prefix_stable() -> None:
    """Same seed -> same bank; another seed differs; persona i is the same whatever the bank size."""
    a, b, c = generate_bank(40, seed=3, attribute_set="rolescope15"), generate_bank(40, seed=3, attribute_set="rolescope15"), generate_bank(40, seed=4, attribute_set="rolescope15")
    assert [p.model_dump() for p in a] == [p.model_dump() for p in b]
    assert [p.attributes for p in a] != [p.attributes for p in c]
    big = {p.id: p for p in generate_bank(100, seed=3, attribute_set="rolescope15")}
    assert all(big[p.id].attributes == p.attributes and big[p.id].details == p.details for p in a)
    assert a[7].id == "g3-0007" and a[0].source == "generated"


def test_splits_have_exact_sizes_and_are_disjoint() -> None:
    """60/20/20 by seeded shuffle: 250 -> 150/50/50; 7 -> 4/1/2; every persona in exactly one split."""
    assert split_sizes(250) == (150, 50, 50) and split_sizes(7) == (4, 1, 2) and split_sizes(1) == (1, 0, 0)
    bank = generate_bank(250, seed=0, attribute_set="rolescope15")
    counts = Counter(p.split for p in bank)
    assert counts == {"train": 150, "validation": 50, "test": 50}
    assert assign_splits(["x", "y", "z", "w", "v"], 1) == assign_splits(["v", "w", "z", "y", "x"], 1)  # input order irrelevant
    test = select(bank, "test")
    assert len(test) == 50 and {p.split for p in test} == {"test"}
    assert [p.id for p in select(bank, "test", limit=3)] == [p.id for p in test[:3]]
    assert len(select(bank, "all")) == 250


def test_levels_are_uniform_and_independent() -> None:
    """Over 3000 personas each level's share is within 0.035 of 1/L, and age x sex cells within 0.03 of 1/8."""
    bank = generate_bank(3000, seed=11, attribute_set="rolescope15")
    for key in ATTRIBUTE_KEYS:
        levels = BY_KEY[key].levels
        counts = Counter(p.attributes[key] for p in bank)
        assert set(counts) == set(levels)
        for lv in levels:
            assert abs(counts[lv] / 3000 - 1 / len(levels)) < 0.035, (key, lv)
    cells = Counter((p.attributes["age"], p.attributes["sex"]) for p in bank)
    assert all(abs(n / 3000 - 1 / 8) < 0.03 for n in cells.values()) and len(cells) == 8


def test_exact_age_lies_in_its_band() -> None:
    """Generated details carry an exact age inside the persona's band, and age_band maps back."""
    for p in generate_bank(200, seed=5, attribute_set="rolescope15"):
        age = p.details["age"]
        band = next(b for b in AGE_BANDS if b[0] == p.attributes["age"])
        assert band[1] <= age <= band[2] and age_band(age) == p.attributes["age"]
    assert [age_band(a) for a in (18, 29, 30, 44, 45, 64, 65, 99)] == ["18-29", "18-29", "30-44", "30-44", "45-64", "45-64",
                                                                        "65+", "65+"]
    with pytest.raises(ValueError):
        age_band(17)


def test_description_states_every_attribute_level() -> None:
    """For every attribute and every level, the description contains that level's sentence (age: exact or band)."""
    base = {a.key: a.levels[0] for a in ATTRIBUTES}
    for attr in ATTRIBUTES:
        for level, phrase in zip(attr.levels, attr.phrases):
            text = describe(base | {attr.key: level})
            assert phrase in text, (attr.key, level)
            others = [p for p in attr.phrases if p != phrase]
            assert not any(o in text for o in others), (attr.key, level)
    text = describe(base, {"age": 37, "name": "Ana Ruiz", "place": "Tulsa, OK"})
    assert text.startswith("My name is Ana Ruiz. I am 37 years old. I am a woman. I live in Tulsa, OK.")
    assert "between 18 and 29" not in text
    for p in generate_bank(30, seed=2, attribute_set="rolescope15"):  # every generated description: exact age + one sentence per other attribute
        assert re.search(rf"I am {p.details['age']} years old\.", p.description)
        assert all(BY_KEY[k].phrase(p.attributes[k]) in p.description for k in ATTRIBUTE_KEYS[1:])


def test_select_and_generate_errors() -> None:
    """Bad split, limit or size are InputErrors with the option named."""
    bank = generate_bank(3, seed=0, attribute_set="rolescope15")
    with pytest.raises(InputError, match="--split"):
        select(bank, "dev")
    with pytest.raises(InputError, match="--limit-personas"):
        select(bank, "train", 0)
    with pytest.raises(InputError, match="no persona in split 'validation'"):
        select(generate_bank(1, seed=0, attribute_set="rolescope15"), "validation")
    with pytest.raises(InputError, match="at least 1"):
        generate_bank(0, attribute_set="rolescope15")


def test_ticked_personas_are_chosen_by_the_plan_builder_and_recorded() -> None:
    """persona_ids keeps those personas of the split in bank order, and the plan's bank says 3 (not the split's 50);
    an id not in the split is refused in one line."""
    from analysis.llm.specs import parse_model_spec
    from analysis.methods.trust.plan import build_trust_plan

    spec = parse_model_spec("embedded")
    every = build_trust_plan(spec, personas=250).personas
    ids = [every[7].id, every[2].id, every[30].id]
    plan = build_trust_plan(spec, personas=250, persona_ids=ids, limit_personas=1)
    assert [p.id for p in plan.personas] == [every[2].id, every[7].id, every[30].id]
    assert plan.bank["n"] == 3 and plan.bank["persona_ids"] == [every[2].id, every[7].id, every[30].id]
    with pytest.raises(InputError, match="--persona-ids: nobody not in the test split"):
        build_trust_plan(spec, personas=250, persona_ids=["nobody"])
