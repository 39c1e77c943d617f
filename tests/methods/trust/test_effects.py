"""η² (hand-worked ANOVA, scipy f_oneway), belief η² from means/SDs, rank consistency with ties, weighted
statistics for the bootstrap, and the imposed-prior perturbation search."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import f_oneway, spearmanr

from analysis import stats
from analysis.methods.trust.effects import (
    behaviour_ranking, codes, eta_squared, eta_squared_from_summary, rank_consistency, ranking_scores, weighted_group_stats,
)
from analysis.methods.trust.perturb import perturb_ranking, prior_seed
from analysis.methods.trust.personas import ATTRIBUTES


def test_eta_squared_by_hand() -> None:
    """[1,2,3 | 4,5,6 | 7,8,9]: SSB = 3·(9+0+9) = 54, SST = 60 -> 0.9. [2,4 | 6,6,9]: SSB 19.2 / SST 27.2."""
    assert eta_squared([1, 2, 3, 4, 5, 6, 7, 8, 9], list("aaabbbccc")) == pytest.approx(0.9, abs=1e-12)
    assert eta_squared([2, 4, 6, 6, 9], ["x", "x", "y", "y", "y"]) == pytest.approx(19.2 / 27.2, abs=1e-12)
    assert math.isnan(eta_squared([3, 3, 3], ["a", "b", "c"]))  # no variance
    assert math.isnan(eta_squared([1], ["a"]))
    assert eta_squared([1, 2, 3, 4], ["a"] * 4) == 0.0  # one group explains nothing


def test_eta_squared_matches_f_oneway() -> None:
    """η² = F·df_b / (F·df_b + df_w) with scipy's F, on unequal random groups (1e-12)."""
    rng = np.random.default_rng(0)
    for trial in range(20):
        k = int(rng.integers(2, 7))
        sizes = rng.integers(2, 12, size=k)
        groups = [rng.integers(0, 11, size=n).astype(float) + j * rng.random() for j, n in enumerate(sizes)]
        f = f_oneway(*groups).statistic
        df_b, df_w = k - 1, int(sizes.sum()) - k
        x = np.concatenate(groups)
        labels = np.concatenate([[j] * n for j, n in enumerate(sizes)])
        assert eta_squared(x, labels) == pytest.approx(f * df_b / (f * df_b + df_w), abs=1e-12), trial


def test_eta_squared_from_summary() -> None:
    """Equal groups of n with given means and sample SDs: by hand, and equal to η² of data built to those moments."""
    assert eta_squared_from_summary([2, 4], [1, 1], n=10) == pytest.approx(20 / 38, abs=1e-12)
    assert eta_squared_from_summary([5, 5, 5], [1, 2, 3]) == 0.0
    assert math.isnan(eta_squared_from_summary([5, 5], [0, 0]))
    z = np.array([-1.5, -0.5, 0.5, 1.5]) / np.std([-1.5, -0.5, 0.5, 1.5], ddof=1)  # sample mean 0, sample SD 1
    means, sds = [3.0, 6.0, 4.5], [1.0, 2.5, 0.5]
    data = np.concatenate([m + s * z for m, s in zip(means, sds)])
    assert eta_squared_from_summary(means, sds, n=4) == pytest.approx(eta_squared(data, np.repeat([0, 1, 2], 4)), abs=1e-12)
    # n/(n−1) inflation: small groups give larger η², tending to Σ(m−m̄)² / (Σ(m−m̄)² + Σs²) = 0.5 from above
    assert eta_squared_from_summary([2, 4], [1, 1], n=3) == pytest.approx(0.6, abs=1e-12)
    assert 0.5 < eta_squared_from_summary([2, 4], [1, 1], n=100) < 0.503
    with pytest.raises(ValueError):
        eta_squared_from_summary([1, 2], [1, 1], n=1)


def test_rank_consistency_with_ties() -> None:
    """Belief A>B>C>D vs means [5,5,3,1]: average ranks [1.5,1.5,3,4] give ρ = 4.5/√22.5 (= scipy's spearmanr)."""
    levels = ["A", "B", "C", "D"]
    scores = ranking_scores(["A", "B", "C", "D"], levels)
    assert scores.tolist() == [4, 3, 2, 1]
    means = np.array([5.0, 5.0, 3.0, 1.0])
    rho = float(rank_consistency(scores, means))
    assert rho == pytest.approx(4.5 / math.sqrt(22.5), abs=1e-12)
    assert rho == pytest.approx(spearmanr(scores, means).statistic, abs=1e-12)
    tied_belief = np.array([2.0, 2.0, 1.0, 1.0])  # Ctx+$ means may tie too
    assert float(rank_consistency(tied_belief, means)) == pytest.approx(spearmanr(tied_belief, means).statistic, abs=1e-12)
    assert float(rank_consistency(scores, np.array([5.0, np.nan, 3.0, 1.0]))) == pytest.approx(1.0)  # empty level dropped
    assert float(rank_consistency(ranking_scores(["D", "C", "B", "A"], levels), np.array([1.0, 2, 3, 4]))) == pytest.approx(1.0)
    assert math.isnan(float(rank_consistency(scores, np.array([2.0, 2, 2, 2]))))  # constant behaviour: undefined
    assert behaviour_ranking(means, levels) == ["A", "B", "C", "D"]
    assert behaviour_ranking(np.array([1.0, np.nan, 3.0, 3.0]), levels) == ["C", "D", "A"]


def test_weighted_stats_equal_plain_stats_of_the_resample() -> None:
    """Multiplicity-weighted level means and η² equal the plain ones on the expanded resample (1e-10)."""
    rng = np.random.default_rng(4)
    x = rng.integers(0, 11, size=30).astype(float)
    labels = rng.choice(["a", "b", "c", "d"], size=30)
    code = codes(labels, ["a", "b", "c", "d"])
    idx = stats.resample_indices(30, 50, seed=9)
    w = stats.counts_from_indices(idx, 30)
    means, eta2 = weighted_group_stats(x, code, 4, w)
    for b in range(50):
        xs, ls = x[idx[b]], labels[idx[b]]
        assert eta2[b] == pytest.approx(eta_squared(xs, ls), abs=1e-10)
        for j, lv in enumerate("abcd"):
            got = xs[ls == lv]
            assert (np.isnan(means[b, j]) and got.size == 0) or means[b, j] == pytest.approx(got.mean(), abs=1e-10)
    plain_means, plain_eta = weighted_group_stats(x, code, 4, np.ones((1, 30)))
    assert plain_eta[0] == pytest.approx(eta_squared(x, labels), abs=1e-12)
    assert codes(["a", "zz"], ["a"]).tolist() == [0, -1]


@pytest.mark.parametrize("target", [0.8, 0.2])
def test_perturbation_hits_its_target(target: float) -> None:
    """Every attribute with >= 4 levels, 5 seeds: |ρ(imposed, original) − target| <= 0.05, ρ checked with scipy;
    the imposed ranking is a permutation; the same seed repeats, and seeds vary the result."""
    for attr in ATTRIBUTES:
        if len(attr.levels) < 4:
            continue
        original = list(attr.levels)
        outcomes = set()
        for seed in range(5):
            imposed, rho = perturb_ranking(original, target, prior_seed(seed, "weak", attr.key))
            assert sorted(imposed) == sorted(original)
            assert abs(rho - target) <= 0.05, (attr.key, seed, rho)
            pos_o = [original.index(lv) for lv in original]
            pos_i = [imposed.index(lv) for lv in original]
            assert rho == pytest.approx(spearmanr(pos_o, pos_i).statistic, abs=1e-12)
            assert perturb_ranking(original, target, prior_seed(seed, "weak", attr.key)) == (imposed, rho)
            outcomes.add(tuple(imposed))
        if len(attr.levels) >= 6:
            assert len(outcomes) > 1, attr.key


def test_perturbation_sampled_path_and_small_rankings() -> None:
    """12 levels (sampled, not enumerated) still lands within ±0.05; with 2-3 levels the closest reachable ρ is used."""
    long = [f"L{i}" for i in range(12)]
    for target in (0.8, 0.2):
        _, rho = perturb_ranking(long, target, seed=3, max_candidates=5000)
        assert abs(rho - target) <= 0.05
    assert perturb_ranking(["a", "b"], 0.2, seed=0) == (["a", "b"], 1.0)  # ρ ∈ {1, −1}: 1 is closer to 0.2
    imposed, rho = perturb_ranking(["a", "b", "c"], 0.2, seed=0)  # ρ ∈ {±1, ±0.5}: 0.5 is closest
    assert rho == 0.5 and sorted(imposed) == ["a", "b", "c"]
    assert perturb_ranking(["a", "b", "c"], 0.8, seed=0) == (["a", "b", "c"], 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        one, rho1 = perturb_ranking(["a"], 0.8, seed=0)
    assert one == ["a"] and math.isnan(rho1)
