"""The paper's attributes, levels and splits (App. A, Table 5) and what they imply for Table 3 and chance-level η²."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from analysis.methods.trust.attributes import TABLE3_ATTRIBUTES, TABLE3_NAMES, paper_split
from analysis.methods.trust.effects import eta_squared
from analysis.methods.trust.personas import BY_KEY, attribute_table, big_five_keys, default_attributes, generate_bank, select

PAPER_TABLES = Path(__file__).resolve().parents[3] / "data" / "trust" / "paper_tables.json"
# Table 5's test split, counted by hand from the te marks: trait -> number of test levels.
TEST_LEVELS = {"age": 4, "conscientiousness": 3, "family_structure_at_16": 6, "highest_degree": 5, "openness": 3,
               "political_views": 4, "religion": 5, "same_residence_since_16": 3, "us_citizenship": 2, "work_status": 4}


def test_test_split_is_table5_te() -> None:
    """Ten test traits with their te levels; the split's Big Five are conscientiousness and openness; the train and
    validation splits carry the other three traits; Table 3's nine (no religion) are the default elicited attributes."""
    test = attribute_table("paper", "test")
    assert {k: len(a.levels) for k, a in test.items()} == TEST_LEVELS
    assert test["family_structure_at_16"].levels == ("Both parents", "Foster care", "Grandparents", "Other guardian",
                                                     "Single parent - father", "Single parent - mother")
    assert test["political_views"].levels == ("Extremely liberal", "Slightly liberal", "Slightly conservative",
                                              "Extremely conservative")
    assert test["work_status"].levels == ("In school", "Keeping house", "Retired", "Other")
    assert test["religion"].levels == ("Jewish", "Muslim/Islam", "None", "Orthodox-Christian", "Protestant")
    assert big_five_keys("paper", "test") == ["conscientiousness", "openness"]
    assert big_five_keys("paper", "train") == ["agreeableness"]
    assert big_five_keys("paper", "validation") == ["extraversion", "neuroticism"]
    assert len(attribute_table("paper", "train")["political_views"].levels) == 5  # tr: 5 of the 7
    assert len(attribute_table("paper", "validation")["highest_degree"].levels) == 5  # the v spellings
    assert default_attributes("paper") == list(TABLE3_ATTRIBUTES) and len(TABLE3_ATTRIBUTES) == 9
    assert "religion" not in TABLE3_ATTRIBUTES and set(TABLE3_ATTRIBUTES) < set(test)
    assert len(default_attributes("rolescope15")) == 15
    assert all(a.phrase(a.levels[0]) == f"{a.label}: {a.levels[0]}" for a in paper_split("test"))


def spearman_values(n_levels: int) -> tuple[float, ...]:
    """Every Spearman ρ two full rankings of n ≤ 8 levels can have, descending: 1 − 6·Σd²/(n(n²−1)) over the Σd² of
    all n! permutations (not every even Σd² occurs: for n = 3 Σd² = 4 does not)."""
    if n_levels < 2:
        return ()
    if n_levels > 8:
        raise ValueError("spearman_values enumerates permutations: at most 8 levels")
    denom = n_levels * (n_levels ** 2 - 1)
    sums = {sum((i - p) ** 2 for i, p in enumerate(perm)) for perm in itertools.permutations(range(n_levels))}
    return tuple(1 - 6 * s / denom for s in sorted(sums))


def test_spearman_values_by_hand() -> None:
    """ρ = 1 − 6Σd²/(n(n²−1)) over the permutations: 2 levels ±1; 3 levels {1, .5, −.5, −1} (Σd² = 4 impossible);
    6 levels Σd² = 6 gives 1 − 36/210 = 0.83."""
    assert spearman_values(2) == (1.0, -1.0)
    assert spearman_values(3) == (1.0, 0.5, -0.5, -1.0)
    assert pytest.approx(spearman_values(6)[3]) == 1 - 6 * 6 / 210 == pytest.approx(0.8286, abs=1e-4)
    assert len(spearman_values(4)) == 11 and spearman_values(1) == ()  # Σd² = 0, 2, ..., 20 all occur for n = 4


def test_table3_rho_fit_the_test_split_level_counts() -> None:
    """Every ρ of Table 3 (3 strategies × 9 attributes × 3 models) is a value two full rankings of the attribute's
    test-split levels can have (to the table's two decimals); with RoleScope's earlier level counts several are not."""
    table3 = json.loads(PAPER_TABLES.read_text())["table3"]["strategies"]
    test = attribute_table("paper", "test")
    checked, misfit_old = 0, 0
    old_counts = {"family_structure_at_16": len(BY_KEY["family_at_16"].levels), "political_views": 7, "work_status": 8}
    for strategy, rows in table3.items():
        for name, models in rows.items():
            if name == "Median":
                continue
            key = TABLE3_NAMES[name]
            possible = {round(v, 2) for v in spearman_values(len(test[key].levels))}
            old = {round(v, 2) for v in spearman_values(old_counts.get(key, len(test[key].levels)))}
            for model, cell in models.items():
                assert round(cell["spearman"], 2) in possible, (strategy, name, model, cell["spearman"])
                misfit_old += round(cell["spearman"], 2) not in old
                checked += 1
    assert checked == 81 and misfit_old > 0


def test_table3_medians_are_medians_of_the_nine() -> None:
    """The 'Median' row is the median over the nine attributes (e.g. Gemma Ctx+$: 0.83)."""
    table3 = json.loads(PAPER_TABLES.read_text())["table3"]["strategies"]
    for strategy, rows in table3.items():
        if "Median" not in rows:
            continue
        for model, cell in rows["Median"].items():
            values = [rows[n][model]["spearman"] for n in TABLE3_NAMES]
            assert cell["spearman"] == pytest.approx(float(np.median(values)), abs=0.005), (strategy, model)


def test_chance_eta2_follows_the_level_counts() -> None:
    """On the 50 generated test personas, η² of shuffled transfers has mean (k−1)/(N−1) (exact under permutation):
    ≤ 0.10 for every test trait (k ≤ 6, N = 50), where RoleScope's 9-level religion gave 8/49 = 0.16."""
    people = select(generate_bank(250, seed=0), "test")
    assert len(people) == 50
    rng = np.random.default_rng(0)
    sent = rng.integers(0, 11, size=50).astype(float)
    sims = [sent[rng.permutation(50)] for _ in range(1500)]
    for key in TABLE3_ATTRIBUTES:
        levels = [p.attributes[key] for p in people]
        k = len(set(levels))
        assert k == TEST_LEVELS[key]  # every test level occurs among the 50
        draws = np.array([eta_squared(x, levels) for x in sims])
        expected = (k - 1) / 49
        assert draws.mean() == pytest.approx(expected, abs=4 * draws.std() / np.sqrt(len(draws)))
        assert expected <= 0.103
