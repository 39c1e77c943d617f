"""The inventory's psychometrics against references: R psych 2.2.9 for α, λ6 and ω (values printed by
``psych::alpha(x)$total`` and ``psych::omega(x, nfactors = 1)$omega.tot`` on the data below), hand-worked Spearman,
Pearson and MTMM numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.methods.inventory import psychometrics as pm

# 20 respondents × 6 items (one factor), read into R with read.csv(header = FALSE)
DATA = pd.DataFrame([
    [2, 2, 3, 3, 2, 2], [4, 3, 3, 4, 5, 4], [4, 4, 5, 4, 4, 4], [2, 2, 3, 3, 3, 2], [2, 2, 2, 3, 3, 2],
    [3, 3, 3, 3, 3, 2], [4, 4, 2, 4, 3, 4], [3, 3, 3, 2, 3, 3], [4, 3, 4, 4, 3, 4], [2, 3, 1, 3, 2, 2],
    [4, 5, 4, 4, 5, 3], [3, 2, 3, 4, 4, 2], [3, 4, 5, 4, 3, 4], [3, 3, 2, 3, 3, 3], [2, 2, 2, 4, 3, 2],
    [4, 4, 5, 3, 3, 2], [5, 5, 3, 3, 4, 3], [3, 3, 3, 4, 3, 4], [3, 3, 1, 2, 3, 3], [4, 4, 5, 4, 4, 3]])
R_ALPHA = 0.824273724983861  # psych::alpha(x)$total$raw_alpha
R_G6 = 0.857643831407150  # psych::alpha(x)$total$"G6(smc)" (= psych::guttman(x)$lambda.6)
R_OMEGA = 0.840047746893643  # psych::omega(x, nfactors = 1)$omega.tot


def test_alpha_lambda6_and_omega_equal_r_psych() -> None:
    assert pm.alpha(DATA)[0] == pytest.approx(R_ALPHA, abs=1e-12)
    assert pm.lambda6(DATA)[0] == pytest.approx(R_G6, abs=1e-12)
    assert pm.omega(DATA)[0] == pytest.approx(R_OMEGA, abs=1e-6)  # minres optimiser tolerance


# One keyed item (i3) that still runs against the others: the model agrees with "Am quiet" and with "Am talkative".
# The data and psych's numbers are tests/test_reliability.py's ONE_REVERSED (R 4.2.2, psych 2.2.9):
#   psych::omega(x, nfactors = 1)$omega.tot                  # 0.885148003124876  (flips i3)
#   psych::omega(x, nfactors = 1, flip = FALSE)$omega.tot    # 0.635372829957377  (the key imposed)
AGAINST = pd.DataFrame([[4, 3, 3, 4], [4, 4, 3, 3], [2, 1, 5, 1], [2, 4, 3, 3], [4, 3, 3, 3], [3, 4, 3, 4],
                        [3, 3, 3, 3], [2, 1, 4, 1], [3, 3, 2, 4], [2, 2, 5, 3]], columns=["i1", "i2", "i3", "i4"])


def test_omega_keeps_the_key_and_names_the_item_against_it() -> None:
    """A keyed item that correlates negatively lowers ω (psych ``flip = FALSE``, 1e-6) instead of being flipped back
    to a high ω (psych's default, 0.885 on the same data, with α = 0.007); the diagnostic names that item."""
    value, why, loadings = pm.omega_keyed(AGAINST)
    assert why is None and value == pytest.approx(0.635372829957377, abs=1e-6)
    assert pm.omega(AGAINST)[0] == value
    alpha = pm.alpha(AGAINST)[0]
    assert alpha == pytest.approx(0.00701754385964944, abs=1e-12)
    assert value < 0.885148003124876 - 0.2  # the flipped ω hid the failure; the keyed one is lower by 0.25
    assert [AGAINST.columns[k] for k in pm.against_key(loadings)] == ["i3"]
    # well-keyed items: the keyed ω is psych's default ω and nothing is named
    value, why, loadings = pm.omega_keyed(DATA)
    assert value == pytest.approx(R_OMEGA, abs=1e-6) and pm.against_key(loadings) == []


def test_reliability_is_undefined_with_its_reason() -> None:
    assert pm.alpha(DATA.iloc[:, :1]) == (pytest.approx(np.nan, nan_ok=True), "needs ≥ 2 items, has 1")
    value, why = pm.lambda6(DATA.iloc[:2])
    assert np.isnan(value) and "≥ 3 units" in why
    value, why = pm.omega(DATA.iloc[:, :2])
    assert np.isnan(value) and why == "needs ≥ 3 items, has 2"


def test_spearman_of_shaping_by_hand() -> None:
    """Levels 1, 5, 9, 1, 5, 9 against scores 1.5, 3, 4.5, 2, 2.5, 5: ranks (1.5, 3.5, 5.5, 1.5, 3.5, 5.5) and
    (1, 4, 5, 2, 3, 6); Pearson of the ranks = 16 / sqrt(16 · 17.5) = 0.956182887."""
    levels = np.array([1, 5, 9, 1, 5, 9], float)
    scores = {"E": np.array([1.5, 3, 4.5, 2, 2.5, 5]), "A": np.array([1, 2, 3, 2, 3, 4.0]),
              "N": np.array([2, 3, 4, 4, 3, 2])}
    out = pm.shaping(levels, scores, "E")
    assert out["rho"][0] == pytest.approx(16 / np.sqrt(16 * 17.5), abs=1e-12)
    # drift: mean of |ρ(level, A)| and |ρ(level, N)|. A's ranks (1, 2.5, 4.5, 2.5, 4.5, 6): deviations
    # (−2.5, −1, 1, −1, 1, 2.5) against the levels' (−2, 0, 2, −2, 0, 2): 14 / sqrt(16 · 16.5); N's ranks
    # (1.5, 3.5, 5.5, 5.5, 3.5, 1.5) give Σ = 4 + 4 − 4 − 4 = 0
    assert out["drift"][0] == pytest.approx((14 / np.sqrt(16 * 16.5) + 0) / 2, abs=1e-12)


def test_shaping_needs_levels_and_personas() -> None:
    assert pm.shaping(np.array([5, 5, 5.0]), {"E": np.array([1, 2, 3.0])}, "E")["rho"][1] == "needs ≥ 2 target levels"
    assert "has 2" in pm.shaping(np.array([1, 9, np.nan]), {"E": np.array([1, 2, 3.0])}, "E")["rho"][1]


def test_pearson_test_retest_by_hand() -> None:
    x, y = np.array([1, 2, 3, 4.0]), np.array([2, 1, 4, 3.0])
    assert pm.pearson(x, y)[0] == pytest.approx(0.6, abs=1e-12)  # Σdxdy = 3, Σdx² = Σdy² = 5
    assert pm.pearson(x, np.array([2, 2, 2, 2.0]))[1] == "a score has no variance across personas"


def test_mtmm_convergent_and_discriminant_by_hand() -> None:
    """Two inventories, two domains: B's E equals A's E and B's A equals A's A (r = 1); A's E and A's A
    correlate r = 0.6 (above), so the heteromethod-heterotrait |r| are both 0.6 and Δ = 1 − 0.6."""
    e, a = np.array([1, 2, 3, 4.0]), np.array([2, 1, 4, 3.0])
    R, conv, disc, why = pm.mtmm({"ipip": {"E": e, "A": a}, "mini": {"E": e * 2, "A": a + 1}})
    assert why is None and conv == pytest.approx(1.0) and disc == pytest.approx(0.4)
    assert R.loc["ipip · E", "mini · A"] == pytest.approx(0.6)
    assert pm.mtmm({"ipip": {"E": e}})[3] == "needs two inventories given to the same personas"


def test_position_shares() -> None:
    shares = pm.position_shares(np.array([[1, 1, 2, np.nan]]), 3)
    assert shares == {1: pytest.approx(2 / 3), 2: pytest.approx(1 / 3), 3: 0.0}


def test_items_in_lockstep_leave_omega_and_lambda6_undefined() -> None:
    """The 135M model's answers by position: every item 1 in one order, 5 in the other (items ±1 correlated)."""
    frame = pd.DataFrame([[1, 5, 1]] * 3 + [[5, 1, 5]] * 3)
    for f in (pm.omega, pm.lambda6):
        value, why = f(frame)
        assert np.isnan(value) and why == pm.SINGULAR
    assert pm.alpha(frame)[1] is None  # α needs no inverse: defined (and negative here, reversed items)


# 24 sheets × 5 items with 12 missing answers (seeded one-factor draws, NaN = missing), 14 sheets complete.
# R 4.2.2, psych 2.2.9, run once while developing (x: this matrix row by row, NA for nan):
#   psych::omega(x, nfactors = 1, flip = FALSE)$omega.tot          # 0.780800547646228 (pairwise correlations)
#   psych::alpha(x)$total$"G6(smc)"                                # 0.774970342757184
#   psych::alpha(x)$total$raw_alpha                                # 0.773672693647144
#   psych::omega(x[complete.cases(x), ], nfactors = 1, flip = FALSE)$omega.tot   # 0.785867743889784 (the old way)
nan = np.nan
MISSING = pd.DataFrame([
    [3, 4, 4, 3, 2], [3, 4, 4, 4, 5], [5, 4, 2, 5, nan], [5, 3, 5, 3, 5], [nan, 3, 2, 4, 3], [nan, 2, 3, 2, 3],
    [2, 2, 3, 2, 2], [2, 3, 2, 4, 1], [3, 2, 2, 3, 3], [3, 4, 5, 2, 4], [2, 2, nan, nan, 1], [1, 3, 3, 2, 3],
    [3, nan, nan, 4, 4], [nan, 4, 3, 2, 2], [2, 3, 2, 2, 2], [3, 4, 4, 4, 3], [5, nan, 5, 5, 4], [4, nan, 3, 3, 5],
    [5, 3, 5, 3, 3], [5, 5, 3, 3, 3], [2, 1, 2, 2, 2], [3, nan, 2, 2, 2], [2, 3, 2, 3, 2], [3, 3, 1, 4, nan]])


def test_omega_and_lambda6_with_missing_answers_are_psychs_pairwise_numbers() -> None:
    """psych correlates raw data pairwise (ω: ``cor(x, use = "pairwise")``; alpha's G6: ``cov2cor(cov(x, use =
    "pairwise"))``), not on the complete sheets alone: the complete-row ω (0.7859) is not psych's."""
    assert pm.complete_sheets(MISSING) == 14 and pm.complete_sheets(DATA) == len(DATA)
    value, why = pm.omega(MISSING)
    assert why is None and value == pytest.approx(0.780800547646228, abs=1e-6)
    assert abs(pm.omega(MISSING.dropna())[0] - value) > 4e-3  # the old, complete-row ω is another number
    value, why = pm.lambda6(MISSING)
    assert why is None and value == pytest.approx(0.774970342757184, abs=1e-12)  # cov2cor, not cor: 0.7804 there
    assert pm.alpha(MISSING)[0] == pytest.approx(0.773672693647144, abs=1e-12)


def test_omega_and_lambda6_refuse_what_pairwise_correlations_cannot_give() -> None:
    never_together = pd.DataFrame({"a": [1, 2, 3, nan, nan, nan], "b": [nan, nan, nan, 1, 2, 3], "c": [1, 2, 3, 2, 3, 1]})
    for f in (pm.omega, pm.lambda6):
        value, why = f(never_together)
        assert np.isnan(value) and why == "needs ≥ 3 units answering items a and b, has 0"
    # a and b agree on their shared sheets, b and c on theirs, a and c disagree on theirs: r = 1, 1, −1, which no
    # data set has (the matrix has eigenvalue −1)
    apart = pd.DataFrame({"a": [1, 2, 3, 4, nan, nan, nan, nan, 1, 2, 3, 4], "b": [1, 2, 3, 4, 1, 2, 3, 4] + [nan] * 4,
                          "c": [nan] * 4 + [1, 2, 3, 4, 4, 3, 2, 1]})
    for f in (pm.omega, pm.lambda6):
        value, why = f(apart)
        assert np.isnan(value) and why.startswith("the pairwise correlation matrix is not positive semi-definite")
