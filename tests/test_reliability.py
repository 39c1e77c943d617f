"""Reliability functions against R's psych (α, ω_t) and ICC values, on fixed data.

R 4.2.2 with psych 2.2.9 (Debian r-cran-psych), run while developing:

    x <- matrix(c(<DATA below, row by row>), ncol = 4, byrow = TRUE)
    psych::alpha(x)$total$raw_alpha                    # 0.848484848484848
    psych::omega(x, nfactors = 1)$omega.tot            # 0.853153213418859
    psych::ICC(x, lmer = FALSE)$results[, "ICC"]       # ICC1 .. ICC3k below
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis import reliability

DATA = pd.DataFrame([[2, 4, 1, 1], [4, 5, 1, 2], [5, 6, 4, 4], [5, 4, 1, 2], [4, 4, 3, 4], [5, 6, 2, 5], [2, 1, 1, 1],
                     [6, 5, 4, 3], [4, 4, 2, 3], [3, 3, 3, 2], [4, 6, 3, 5], [4, 5, 2, 3], [5, 6, 3, 5], [4, 5, 3, 4],
                     [2, 4, 3, 3]], columns=["i1", "i2", "i3", "i4"])
R_ICC = {"ICC1": 0.324811893753966, "ICC2": 0.382830626450116, "ICC3": 0.583333333333333,
         "ICC1k": 0.658034894398531, "ICC2k": 0.712742980561555, "ICC3k": 0.848484848484848}


def test_alpha_matches_psych():
    assert reliability.cronbach_alpha(DATA) == pytest.approx(0.848484848484848, abs=1e-9)


def test_alpha_with_a_constant_item_is_the_formula_as_pingouin_computes_it():
    """An item every unit answers alike adds no variance but keeps its place in k: α = k/(k−1)·(1 − Σσ²ᵢ/σ²_total),
    hand-worked here with k = 4 (the reference's pingouin gives the same number; before, RoleScope said undefined)."""
    constant = DATA.assign(i2=3)
    k = constant.shape[1]
    by_hand = k / (k - 1) * (1 - constant.var(ddof=1).sum() / constant.sum(axis=1).var(ddof=1))
    assert reliability.why_alpha_undefined(constant) is None
    assert reliability.cronbach_alpha(constant) == pytest.approx(by_hand, abs=1e-12)


def test_omega_total_matches_psych():
    # psych's minres stops at optim's default tolerance; ours converges further: agreement to 1e-6
    assert reliability.omega_total(DATA) == pytest.approx(0.853153213418859, abs=1e-6)


# One reverse-keyed item (i3). R 4.2.2, psych 2.2.9:
#   x <- matrix(c(4,3,3,4, 4,4,3,3, 2,1,5,1, 2,4,3,3, 4,3,3,3, 3,4,3,4, 3,3,3,3, 2,1,4,1, 3,3,2,4, 2,2,5,3),
#               ncol = 4, byrow = TRUE)
#   psych::omega(x, nfactors = 1)$omega.tot                  # 0.885148003124876  (key 1 1 -1 1)
#   psych::omega(x, nfactors = 1, flip = FALSE)$omega.tot    # 0.635372829957377  (the old, unflipped value)
ONE_REVERSED = pd.DataFrame([[4, 3, 3, 4], [4, 4, 3, 3], [2, 1, 5, 1], [2, 4, 3, 3], [4, 3, 3, 3], [3, 4, 3, 4],
                             [3, 3, 3, 3], [2, 1, 4, 1], [3, 3, 2, 4], [2, 2, 5, 3]], columns=["i1", "i2", "i3", "i4"])
# Two negatively loading items (i2, i4). R 4.2.2, psych 2.2.9:
#   x <- matrix(c(4,3,4,1,4, 1,5,1,3,2, 3,3,4,3,2, 3,2,4,2,4, 4,3,3,3,3, 5,3,4,4,3, 2,3,3,2,3, 3,2,5,2,3,
#                 5,2,5,2,5, 1,4,3,4,2, 3,3,2,3,3, 2,3,3,3,2), ncol = 5, byrow = TRUE)
#   psych::omega(x, nfactors = 1)$omega.tot                  # 0.878632708187597  (key 1 -1 1 -1 1)
#   psych::omega(x, nfactors = 1, flip = FALSE)$omega.tot    # 0.337644370583591
TWO_REVERSED = pd.DataFrame([[4, 3, 4, 1, 4], [1, 5, 1, 3, 2], [3, 3, 4, 3, 2], [3, 2, 4, 2, 4], [4, 3, 3, 3, 3],
                             [5, 3, 4, 4, 3], [2, 3, 3, 2, 3], [3, 2, 5, 2, 3], [5, 2, 5, 2, 5], [1, 4, 3, 4, 2],
                             [3, 3, 2, 3, 3], [2, 3, 3, 3, 2]], columns=["i1", "i2", "i3", "i4", "i5"])


def test_omega_total_flips_a_reverse_item_as_psych_does():
    assert reliability.omega_total(ONE_REVERSED) == pytest.approx(0.885148003124876, abs=1e-6)
    # reverse-keying the item by hand changes nothing: psych would flip it anyway
    assert reliability.omega_total(ONE_REVERSED.assign(i3=6 - ONE_REVERSED["i3"])) == pytest.approx(
        0.885148003124876, abs=1e-6)


def test_omega_total_flips_two_negative_items_as_psych_does():
    assert reliability.omega_total(TWO_REVERSED) == pytest.approx(0.878632708187597, abs=1e-6)


def test_omega_total_without_flip_is_psych_flip_false():
    """``flip=False`` keeps the items as given: psych's ``flip = FALSE`` values above (1e-6, the optimiser's
    tolerance); on items that all load positively it is the flipped value, to the last digit."""
    assert reliability.omega_total(ONE_REVERSED, flip=False) == pytest.approx(0.635372829957377, abs=1e-6)
    assert reliability.omega_total(TWO_REVERSED, flip=False) == pytest.approx(0.337644370583591, abs=1e-6)
    assert reliability.omega_total(DATA, flip=False) == reliability.omega_total(DATA)
    value, loadings = reliability.omega_fit(ONE_REVERSED, flip=False)
    assert value == reliability.omega_total(ONE_REVERSED, flip=False) and list(np.flatnonzero(loadings < 0)) == [2]


def test_omega_equals_alpha_for_parallel_items():
    # equal loadings and uniquenesses (a compound-symmetric correlation matrix): ω_t = standardised α
    rng = np.random.default_rng(0)
    f = rng.standard_normal(4000)
    items = pd.DataFrame({f"i{k}": f + rng.standard_normal(4000) for k in range(5)})
    R = items.corr().to_numpy()
    k, rbar = 5, R[~np.eye(5, dtype=bool)].mean()
    assert reliability.omega_total(items) == pytest.approx(k * rbar / (1 + (k - 1) * rbar), abs=2e-3)


def test_icc_matches_psych():
    table = reliability.icc(DATA).set_index("Type")["ICC"]
    ours = table.to_numpy()
    assert ours == pytest.approx(list(R_ICC.values()), abs=1e-9)
    assert reliability.icc2(DATA) == pytest.approx(R_ICC["ICC2"], abs=1e-9)


def test_undefined_is_nan_with_a_reason():
    one_item = DATA[["i1"]]
    assert np.isnan(reliability.cronbach_alpha(one_item))
    assert reliability.why_undefined(one_item) == "needs ≥ 2 items, has 1"
    constant = DATA.assign(i2=3)  # ω needs every item to vary; α does not (see the next test)
    assert np.isnan(reliability.omega_total(constant)) and reliability.why_undefined(constant) == "an item has no variance"
    flat = DATA.assign(i1=1, i2=2, i3=3, i4=4)
    assert np.isnan(reliability.cronbach_alpha(flat))
    assert reliability.why_alpha_undefined(flat) == "the total score has no variance"
    two_rows = DATA.head(2)
    assert np.isnan(reliability.omega_total(two_rows)) and "needs ≥ 3 units" in reliability.why_undefined(two_rows)
    assert np.isnan(reliability.icc2(two_rows))


def test_test_retest_and_spearman_brown():
    a = pd.Series([1.0, 2.0, 3.0, 4.0], index=list("abcd"))
    b = pd.Series([2.0, 4.0, 5.0, 9.0, 1.0], index=list("abcde"))  # e only on the second occasion
    assert reliability.test_retest(a, b) == pytest.approx(np.corrcoef([1, 2, 3, 4], [2, 4, 5, 9])[0, 1], abs=1e-12)
    assert np.isnan(reliability.test_retest(a.head(2), b))
    assert reliability.spearman_brown(0.5) == pytest.approx(2 / 3, abs=1e-12)
    assert np.isnan(reliability.spearman_brown(float("nan")))


def test_icc_of_identical_ratings_is_undefined():
    same = pd.DataFrame({"a": [4.0] * 5, "b": [4.0] * 5})
    assert reliability.icc(same).empty and np.isnan(reliability.icc2(same))


def test_alpha_is_pingouins_bit_for_bit():
    """``cronbach_alpha`` computes pingouin's two lines without importing it: the same number on random answers with
    missing ones (pairwise deletion) and a constant item."""
    import pingouin as pg

    rng = np.random.default_rng(0)
    for k in range(30):
        frame = pd.DataFrame(rng.integers(1, 7, size=(40, 2 + k % 5)).astype(float))
        frame = frame.mask(rng.random(frame.shape) < 0.1)
        if k % 7 == 0:
            frame[0] = 3.0
        assert reliability.cronbach_alpha(frame) == pg.cronbach_alpha(data=frame)[0]


def test_omega_with_missing_answers_uses_pairwise_correlations_as_psych():
    """psych::omega correlates raw data with ``cor(x, use = "pairwise")``; the numbers are R's, taken once (R 4.2.2,
    psych 2.2.9) on the missing-answer set of tests/methods/inventory/test_psychometrics.py:
    ``psych::omega(x, nfactors = 1)$omega.tot`` and with ``flip = FALSE`` both 0.780800547646228 (no item loads
    negatively)."""
    from tests.methods.inventory.test_psychometrics import MISSING

    assert reliability.omega_total(MISSING) == pytest.approx(0.780800547646228, abs=1e-6)
    assert reliability.omega_total(MISSING, flip=False) == reliability.omega_total(MISSING)
    R = reliability.pairwise_correlations(MISSING)
    assert R[0, 1] == pytest.approx(MISSING[[0, 1]].dropna().corr().iloc[0, 1], abs=1e-15)  # each pair its own rows
    # complete data: the rows' correlation matrix, bit for bit as before
    assert (reliability.pairwise_correlations(DATA) == np.corrcoef(DATA.to_numpy(float), rowvar=False)).all()
