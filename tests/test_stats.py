"""Shared statistics: ranks, Spearman, Kendall's W, and the seeded percentile bootstrap."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata, spearmanr

from analysis import stats


def test_average_ranks_by_hand() -> None:
    """Ties share the average rank; descending puts the largest first; tol groups near-equal values."""
    assert stats.average_ranks(np.array([1.0, 2.0, 2.0, 4.0])).tolist() == [1.0, 2.5, 2.5, 4.0]
    assert stats.average_ranks(np.array([1.0, 2.0, 2.0, 4.0]), descending=True).tolist() == [4.0, 2.5, 2.5, 1.0]
    assert stats.average_ranks(np.array([1.0, 1.0 + 1e-9, 2.0]), descending=True, tol=1e-8).tolist() == [2.5, 2.5, 1.0]
    assert stats.average_ranks(np.array([1.0, 1.0 + 1e-9, 2.0]), descending=True).tolist() == [3.0, 2.0, 1.0]


def test_multiset_ranks_by_hand() -> None:
    """x = [10, 20, 30] with multiplicities [2, 0, 1]: the multiset {10, 10, 30} ranks 10 → 1.5, 30 → 3."""
    r = stats.multiset_ranks(stats.ties(np.array([10.0, 20.0, 30.0])), np.array([2.0, 0.0, 1.0]))
    assert r[0] == 1.5 and r[2] == 3.0


def test_spearman_by_hand_constant_and_pairwise_drop() -> None:
    """rho = 1 − 6Σd²/(n(n²−1)): [1,2,3,4] vs [1,3,2,4] → 1 − 12/60 = 0.8; constant → NaN; NaN pairs dropped."""
    assert stats.spearman(np.array([1.0, 2, 3, 4]), np.array([1.0, 3, 2, 4])) == pytest.approx(0.8, abs=1e-12)
    assert math.isnan(stats.spearman(np.array([1.0, 2, 3, 4]), np.array([2.0, 2, 2, 2])))
    # dropping the 4th pair leaves [1,2,3] vs [1,3,2]: 1 − 6·2/(3·8) = 0.5
    assert stats.spearman(np.array([1.0, 2, 3, 4]), np.array([1.0, 3, 2, np.nan])) == pytest.approx(0.5, abs=1e-12)
    assert math.isnan(stats.spearman(np.array([1.0, np.nan]), np.array([1.0, 2.0])))


def test_spearman_matches_scipy_with_ties_and_batches() -> None:
    """Vectorised Spearman equals scipy.stats.spearmanr row by row on tied integer data (1e-12)."""
    rng = np.random.default_rng(7)
    x = rng.integers(0, 4, size=(200, 9)).astype(float)
    y = rng.integers(0, 4, size=(200, 9)).astype(float)
    x[0] = 2.0  # a constant row
    got = stats.spearman(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = np.array([spearmanr(a, b).statistic for a, b in zip(x, y)])
    assert np.allclose(got, ref, atol=1e-12, equal_nan=True)
    assert np.isnan(ref[0]) and np.isnan(got[0])


def test_weighted_spearman_equals_spearman_of_expanded_resample() -> None:
    """Multiplicity-weighted rho equals scipy's rho on the resample with duplicated units (1e-12)."""
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=12), rng.normal(size=12)
    idx = stats.resample_indices(12, 20, seed=1)
    w = stats.counts_from_indices(idx, 12)
    got = stats.weighted_rank_correlation(stats.multiset_ranks(stats.ties(x), w), stats.multiset_ranks(stats.ties(y), w), w)
    ref = [spearmanr(x[i], y[i]).statistic for i in idx]
    assert np.allclose(got, ref, atol=1e-12)
    assert np.allclose(stats.average_ranks(x), rankdata(x))


def test_kendall_w_by_hand() -> None:
    """3 raters × 3 items [[1,2,3],[1,3,2],[2,1,3]]: R = (4,6,8), S = 8, W = 12·8/(3²·(27−3)) = 4/9."""
    assert stats.kendall_w(np.array([[1, 2, 3], [1, 3, 2], [2, 1, 3]])) == pytest.approx(4 / 9, abs=1e-12)
    assert stats.kendall_w(np.array([[1, 2, 3], [1, 2, 3]])) == pytest.approx(1.0, abs=1e-12)
    assert stats.kendall_w(np.array([[1, 2], [2, 1]])) == pytest.approx(0.0, abs=1e-12)


def test_kendall_w_tie_correction_by_hand() -> None:
    """[[1,2.5,2.5],[1,2,3]]: R = (2,4.5,5.5), S = 6.5, T = 2³−2 = 6, W = 12·6.5/(4·24 − 2·6) = 78/84."""
    assert stats.kendall_w(np.array([[1, 2.5, 2.5], [1, 2, 3]])) == pytest.approx(78 / 84, abs=1e-12)
    assert math.isnan(stats.kendall_w(np.array([[2.0, 2.0, 2.0]])))  # every item tied: undefined


def _mean_counts(x: np.ndarray):
    return lambda w: (w @ x) / w.sum(axis=1)


def test_bootstrap_is_deterministic_and_contains_estimate() -> None:
    """Same seed → identical CI, another seed → different bounds; lo ≤ estimate ≤ hi."""
    x = np.random.default_rng(0).normal(size=60)
    a = stats.bootstrap_counts(_mean_counts(x), 60, n_boot=500, seed=11)
    b = stats.bootstrap_counts(_mean_counts(x), 60, n_boot=500, seed=11)
    c = stats.bootstrap_counts(_mean_counts(x), 60, n_boot=500, seed=12)
    assert a == b and a != c
    assert a.estimate == pytest.approx(float(x.mean()), abs=1e-12)
    assert a.lo <= a.estimate <= a.hi


def test_bootstrap_known_answer_normal_mean() -> None:
    """Mean of n = 400 normal draws (σ = 2): 95% CI width ≈ 2·1.96·σ̂/√n within 15%."""
    x = np.random.default_rng(42).normal(loc=1.0, scale=2.0, size=400)
    ci = stats.bootstrap_counts(_mean_counts(x), 400, n_boot=2000, seed=0)
    expected = 2 * 1.96 * x.std(ddof=1) / math.sqrt(400)
    assert ci.hi - ci.lo == pytest.approx(expected, rel=0.15)
    assert ci.lo < 1.0 < ci.hi


def test_frame_bootstrap_draws_the_same_resamples_as_counts() -> None:
    """bootstrap(frame, f) and bootstrap_counts give the same CI for the same seed (units = sorted ids)."""
    rng = np.random.default_rng(5)
    ids = np.array([7, 3, 9, 1, 4, 8])
    frame = pd.DataFrame({"persona_id": np.repeat(ids, 2), "x": rng.normal(size=12)})
    per_unit = frame.groupby("persona_id")["x"].sum().sort_index().to_numpy()  # unit order = sorted ids
    slow = stats.bootstrap(frame, lambda f: float(f["x"].sum() / f["persona_id"].nunique()), n_boot=40, seed=9)
    fast = stats.bootstrap_counts(lambda w: (w @ per_unit) / w.sum(axis=1), 6, n_boot=40, seed=9)
    assert np.allclose(slow, fast, atol=1e-12)


def test_frame_bootstrap_relabels_duplicated_units() -> None:
    """A unit drawn twice counts as two units in the resampled frame."""
    frame = pd.DataFrame({"persona_id": [1, 2, 3], "x": [1.0, 2.0, 3.0]})
    seen: list[int] = []
    stats.bootstrap(frame, lambda f: seen.append(f["persona_id"].nunique()) or 0.0, n_boot=5, seed=0)
    assert seen[:5] == [3] * 5 and seen[-1] == 3  # 5 resamples of 3 units + the estimate


def test_paired_bootstrap_removes_shared_variance_and_uses_shared_units() -> None:
    """b = a − 1 on the shared personas: the paired difference of means is exactly 1 in every resample."""
    rng = np.random.default_rng(1)
    a = pd.DataFrame({"persona_id": [1, 2, 3, 4, 5], "x": rng.normal(size=5) * 10})
    b = pd.DataFrame({"persona_id": [3, 4, 5, 6, 7], "x": np.r_[a["x"].to_numpy()[2:] - 1.0, 100.0, -100.0]})
    ci = stats.paired_bootstrap_diff(a, b, lambda f: float(f["x"].mean()), n_boot=50, seed=0)
    assert ci.estimate == pytest.approx(1.0, abs=1e-9)
    assert ci.lo == pytest.approx(1.0, abs=1e-9) and ci.hi == pytest.approx(1.0, abs=1e-9)
    with pytest.raises(ValueError, match="share no"):
        stats.paired_bootstrap_diff(a, b.assign(persona_id=[10, 11, 12, 13, 14]), lambda f: 0.0)


def test_percentile_ci_ignores_nan_replicates() -> None:
    """NaN replicates are dropped; all-NaN gives NaN bounds but keeps the estimate."""
    ci = stats.percentile_ci(0.5, np.array([np.nan, 0.0, 1.0, np.nan]), level=0.5)
    assert (ci.lo, ci.hi) == (0.25, 0.75)
    empty = stats.percentile_ci(0.5, np.array([np.nan]))
    assert empty.estimate == 0.5 and math.isnan(empty.lo) and math.isnan(empty.hi)
