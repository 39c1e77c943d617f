"""The statistics of the cross-method report against scipy and hand-worked values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from analysis.methods.cross_method import correlations as cr


def test_weighted_r_is_pearson_with_unit_weights_and_with_repeats():
    """Weights 1 give scipy's Pearson r (1e-12); integer weights give Pearson r of the data with those repeats."""
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=25), rng.normal(size=25)
    assert cr.weighted_r(x, y, np.ones((1, 25)))[0] == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    w = rng.integers(0, 4, size=25).astype(float)
    w[:5] = 1  # at least 5 personas drawn
    expected = stats.pearsonr(np.repeat(x, w.astype(int)), np.repeat(y, w.astype(int))).statistic
    assert cr.weighted_r(x, y, w[None, :])[0] == pytest.approx(expected, abs=1e-12)


def test_weighted_r_leaves_out_personas_missing_either_score():
    x = np.array([1.0, 2.0, np.nan, 4.0, 5.0, 7.0, 3.0])
    y = np.array([2.0, 1.0, 3.0, np.nan, 6.0, 6.5, 4.0])
    m = np.isfinite(x) & np.isfinite(y)
    assert cr.weighted_r(x, y, np.ones((1, 7)))[0] == pytest.approx(stats.pearsonr(x[m], y[m]).statistic, abs=1e-12)


def test_r_undefined_below_five_personas_or_without_variance():
    x, y = np.array([1.0, 2.0, 4.0, 3.0, np.nan, np.nan]), np.array([3.0, 1.0, 2.0, 5.0, 4.0, 6.0])
    assert np.isnan(cr.weighted_r(x, y, np.ones((1, 6)))[0])  # 4 personas: three points line up too easily
    assert cr.r_reason(x, y, "X", "Y") == "4 persona(s) scored on both X and Y; r needs at least 5"
    flat = np.full(6, 2.0)
    assert np.isnan(cr.weighted_r(flat, y, np.ones((1, 6)))[0])
    assert cr.r_reason(flat, y, "X", "Y") == "X is the same for every persona scored on both (no variance)"
    assert cr.r_reason(np.arange(6.0), y, "X", "Y") is None
    # a resample that draws only four distinct personas is undefined
    assert np.isnan(cr.weighted_r(np.arange(6.0), y, np.array([[2.0, 1.0, 1.0, 2.0, 0.0, 0.0]]))[0])


def test_pattern_r_is_the_correlation_of_fisher_z_with_the_prediction():
    """Westen & Rosenthal's r_alerting-CV, worked by hand: corr(atanh(r), λ)."""
    r = np.array([0.5, 0.3, 0.05, -0.1, 0.4])
    lam = np.array([1.0, 1.0, 0.0, 0.0, 1.0])
    z = np.arctanh(r)
    zc, lc = z - z.mean(), lam - lam.mean()
    hand = (zc @ lc) / np.sqrt((zc @ zc) * (lc @ lc))
    assert cr.pattern_r(r, lam)[0] == pytest.approx(hand, abs=1e-12)
    assert np.isnan(cr.pattern_r(np.array([0.5, np.nan, 0.1]), np.array([1.0, 1.0, 0.0]))[0])  # 2 pairs left
    assert np.isnan(cr.pattern_r(r, np.ones(5))[0])  # a constant prediction says nothing


def test_negative_discriminant_r_lower_the_pattern():
    """Discriminant pairs predict "no link": an r of −0.9 there breaks it, and lowers the pattern r. Worked by hand:
    discriminant pairs enter as |r| (z = atanh|r|) against |λ|. Before, compared signed, a shuffled model (convergent
    r near 0) with every discriminant r at −0.9 had a pattern r of 0.985."""
    lam = np.array([1.0, 1.0, 1.0, 0.0, 0.0])
    disc = np.array([False, False, False, True, True])
    clean = cr.pattern_r(np.array([0.5, 0.3, 0.4, 0.0, 0.05]), lam, disc)[0]
    broken = np.array([0.5, 0.3, 0.4, -0.9, -0.9])
    z = np.arctanh(np.abs(broken))
    assert cr.pattern_r(broken, lam, disc)[0] == pytest.approx(np.corrcoef(z, lam)[0, 1], abs=1e-12)
    assert cr.pattern_r(broken, lam, disc)[0] < 0 < clean
    assert cr.pattern_r(broken, lam, disc)[0] == pytest.approx(cr.pattern_r(-broken * [-1, -1, -1, 1, 1], lam, disc)[0],
                                                              abs=1e-12)  # the sign of a discriminant r is irrelevant
    chance = np.array([0.02, -0.05, 0.03, -0.9, -0.9])  # a shuffled model, every discriminant r at −0.9
    assert cr.pattern_r(chance, lam)[0] > 0.95  # signed (no discriminant flag): chance rewarded
    assert cr.pattern_r(chance, lam, disc)[0] < -0.95
    # convergent pairs stay signed: a convergent pair predicted negative scores a negative r as agreement
    assert cr.pattern_r(np.array([0.5, -0.4, 0.45, 0.0, 0.02]), np.array([1.0, -1.0, 1.0, 0.0, 0.0]), disc)[0] > 0.95


def test_the_pattern_s_ci_and_null_use_the_same_definition():
    """The report's pattern (``_pattern``): its bootstrap and its shuffled-persona draws go through the same |r| rule,
    so a null whose discriminant r are all −0.9 sits at a negative pattern, never near 1."""
    from analysis.methods.cross_method.pairs import Pair
    from analysis.methods.cross_method.report import _pattern

    kinds = ["convergent"] * 3 + ["discriminant"] * 2
    pairs = [Pair(a=f"m:a{k}", b=f"n:b{k}", kind=kind, expected=1.0 if kind == "convergent" else 0.0, source="s")
             for k, kind in enumerate(kinds)]
    r = [0.5, 0.3, 0.4, -0.9, -0.9]
    docs = [{"r": v} for v in r]
    cells = [(p.a, p.b) for p in pairs]
    rng = np.random.default_rng(0)
    draws = {c: np.clip(rng.normal(0, 0.1, 200) + (-0.9 if k >= 3 else 0.0), -0.99, 0.99) for k, c in enumerate(cells)}
    boot = {c: np.full(50, v) for c, v in zip(cells, r)}
    out = _pattern(pairs, docs, boot, draws, 50, 200)
    disc = np.array(kinds) == "discriminant"
    assert out["value"] == pytest.approx(cr.pattern_r(np.array(r), np.array([1.0, 1, 1, 0, 0]), disc)[0], abs=1e-12)
    assert out["value"] < 0 and out["lo"] == pytest.approx(out["value"]) and out["hi"] == pytest.approx(out["value"])
    assert out["chance"]["hi"] < -0.5  # the null's draws, on |r|: every discriminant pair at |r| ≈ 0.9


def test_band_is_the_central_95_percent_with_a_two_sided_p():
    draws = np.linspace(-0.5, 0.5, 101)
    band = cr.band(0.45, draws)
    assert band["lo"] == pytest.approx(np.percentile(draws, 2.5)) and band["hi"] == pytest.approx(np.percentile(draws, 97.5))
    # |draws| >= 0.45: 0.45..0.5 and -0.5..-0.45, 6 each
    assert band["p"] == pytest.approx((1 + 12) / 102) and band["verdict"] == "chance-like"
    assert cr.band(-0.7, draws)["p"] == pytest.approx(1 / 102) and cr.band(-0.7, draws)["verdict"] == "beyond chance"
    assert cr.band(0.7, draws[:50])["verdict"] == "not enough draws"
    assert cr.band(None, draws)["p"] is None


def test_a_shuffle_moves_a_method_s_columns_together():
    X = np.arange(20.0).reshape(5, 4)
    out = cr.shuffled(X, {"a": [0, 1], "b": [2, 3]}, np.random.default_rng(1))
    assert sorted(map(tuple, out[:, :2])) == sorted(map(tuple, X[:, :2]))  # rows of a method stay whole
    assert sorted(map(tuple, out[:, 2:])) == sorted(map(tuple, X[:, 2:]))
    assert not np.array_equal(out, X)


def test_holm_is_the_hand_worked_step_down_and_statsmodels():
    """p = 0.01, 0.04, 0.03, 0.005 and one undefined (m = 4): sorted 0.005, 0.01, 0.03, 0.04 adjust to 4·0.005 = 0.02,
    3·0.01 = 0.03, 2·0.03 = 0.06, max(0.06, 1·0.04) = 0.06 (Holm 1979), to 1e-12; on random p-values the same as
    ``statsmodels.stats.multitest.multipletests(method="holm")``, to 1e-12."""
    from statsmodels.stats.multitest import multipletests

    assert cr.holm([0.01, 0.04, 0.03, 0.005, None]) == pytest.approx([0.03, 0.06, 0.06, 0.02, None], abs=1e-12)
    p = np.random.default_rng(3).uniform(0, 0.2, 15)
    assert cr.holm(list(p)) == pytest.approx(list(multipletests(p, method="holm")[1]), abs=1e-12)
    assert cr.holm([None, float("nan")]) == [None, None]


def test_a_family_verdict_needs_enough_draws_for_its_size():
    """With n draws no permutation p falls below 1/(n+1), so Holm over m pairs cannot fall below m/(n+1)."""
    assert cr.family_verdict(0.01, 15, 100) == "not enough draws"  # 15/101 ≥ 0.05
    assert cr.family_verdict(0.049, 15, 300) == "beyond chance" and cr.family_verdict(0.06, 15, 300) == "chance-like"
    assert cr.family_verdict(None, 15, 300) is None


def test_the_family_wise_band_is_the_max_abs_r_null():
    """Per draw the largest |r| over the cells (undefined cells left out); a cell is beyond chance only beyond it."""
    sims = np.array([[0.1, -0.5], [0.3, 0.2], [np.nan, np.nan]])
    assert np.allclose(cr.family_maxima(sims), [0.5, 0.3, np.nan], equal_nan=True)
    maxima = np.linspace(0.2, 0.6, 201)
    fw = cr.family_band(-0.55, maxima, 40)
    assert fw["family_hi"] == pytest.approx(np.percentile(maxima, 95)) and fw["family_size"] == 40
    assert fw["p_family"] == pytest.approx((1 + np.sum(maxima >= 0.55 - 1e-12)) / 202)
    assert fw["family_verdict"] == "chance-like"  # 26 of 201 maxima reach 0.55
    assert cr.family_band(0.7, maxima, 40)["family_verdict"] == "beyond chance"
    # a cell its own band calls beyond chance (p = 1/102) is not beyond the family's
    assert cr.band(0.45, np.linspace(-0.3, 0.3, 101))["verdict"] == "beyond chance"
    assert cr.family_band(0.45, maxima, 40)["family_verdict"] == "chance-like"
