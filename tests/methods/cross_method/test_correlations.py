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
