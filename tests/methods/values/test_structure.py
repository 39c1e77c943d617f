"""Value structure: item correlations, leaderboard non-metric SMACOF / Stress-1, value order, separability.

Reference algorithm: scikit-learn 1.6.1 ``sklearn/manifold/_mds.py`` (``_smacof_single``) as called by
the Stick to Your Role! leaderboard (github flowersteam/value_stability, MIT,
``visualization_scripts/data_analysis.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from analysis.methods.values import VALUES
from analysis.methods.values.structure import (
    MAX_RANK_DISTANCE,
    THEORY_POINTS,
    circular_rank_distance,
    circumplex,
    dissimilarity,
    item_correlations,
    separability,
    smacof_nonmetric,
    value_order,
)

# PVQ-40-like keying: same number of items per value as PVQ-40, items grouped by value.
SIZES = (4, 3, 3, 4, 3, 5, 4, 4, 4, 6)
LABELS = [v for v, k in zip(VALUES, SIZES) for _ in range(k)]
ITEMS = [f"i{k:02d}" for k in range(len(LABELS))]
ITEM_VALUES = dict(zip(ITEMS, LABELS))
INIT = np.array([THEORY_POINTS[v] for v in LABELS])


def frame(answers: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(answers, columns=ITEMS[: answers.shape[1]], index=[f"p{k}" for k in range(answers.shape[0])])


def random_answers(seed: int, personas: int = 50) -> pd.DataFrame:
    return frame(np.random.default_rng(seed).integers(1, 7, size=(personas, len(ITEMS))).astype(float))


def circle_answers() -> np.ndarray:
    """50 personas whose answers follow the theoretical circle (item score ~ cos(persona angle − value angle))."""
    rng = np.random.default_rng(7)
    theta = np.arctan2(INIT[:, 1], INIT[:, 0])
    phi = rng.uniform(0, 2 * np.pi, size=50)
    noise = rng.normal(0, 0.8, size=(50, 40))
    return np.clip(np.rint(3.5 + 2.5 * np.cos(phi[:, None] - theta[None, :]) + noise), 1, 6)


# ----------------------------------------------------------------------------- item correlations


def test_item_correlations_equal_scipy_spearman() -> None:
    """Without NaNs or constant columns the matrix is scipy's Spearman matrix (ties included), to 1e-12."""
    m = random_answers(3, personas=30)
    got = item_correlations(m)
    assert list(got.index) == ITEMS and list(got.columns) == ITEMS
    np.testing.assert_allclose(got.to_numpy(), spearmanr(m.to_numpy()).correlation, atol=1e-12)


def test_item_correlations_constant_columns() -> None:
    """Both constant → 1, one constant → 0 (reference rule); others unaffected; diagonal 1."""
    m = pd.DataFrame({"a": [3, 3, 3, 3, 3], "b": [5, 5, 5, 5, 5], "c": [1, 2, 3, 4, 5], "d": [2, 1, 4, 3, 6]}, dtype=float)
    r = item_correlations(m)
    assert r.loc["a", "b"] == 1.0 and r.loc["b", "a"] == 1.0
    assert r.loc["a", "c"] == 0.0 and r.loc["d", "b"] == 0.0
    assert r.loc["c", "d"] == pytest.approx(0.8, abs=1e-12)  # ranks 1..5 vs 2,1,4,3,5: 1 − 6·4/(5·24)
    assert (np.diag(r.to_numpy()) == 1.0).all()
    m["e"] = [np.nan, 4, 4, 4, 4]  # constant on its answered rows: pairwise-complete path, same rules
    r = item_correlations(m)
    assert r.loc["e", "a"] == 1.0 and r.loc["e", "c"] == 0.0


def test_item_correlations_pairwise_complete() -> None:
    """A NaN drops that persona from the pairs involving its item only; < 3 common personas → NaN."""
    m = random_answers(5, personas=12).iloc[:, :4].copy()
    m.iloc[2, 1] = np.nan
    m.iloc[0:10, 3] = np.nan  # only 2 personas left for item 3
    r = item_correlations(m)
    keep = m.iloc[:, 1].notna()
    expected = spearmanr(m.iloc[:, 0][keep], m.iloc[:, 1][keep]).statistic
    assert r.iloc[0, 1] == pytest.approx(expected, abs=1e-12)
    assert r.iloc[0, 2] == pytest.approx(spearmanr(m.iloc[:, 0], m.iloc[:, 2]).statistic, abs=1e-12)
    assert np.isnan(r.iloc[0, 3]) and np.isnan(r.iloc[3, 1])


def test_too_few_personas_and_undefined_correlations_raise_value_error() -> None:
    """< 3 personas for a correlation, < 5 personas or < 9 keyed items for the MDS, unknown values and undefined
    correlations are clear ValueErrors."""
    with pytest.raises(ValueError, match="at least 3 personas"):
        item_correlations(random_answers(0, personas=2))
    with pytest.raises(ValueError, match="at least 5 personas"):
        circumplex(random_answers(0, personas=2), ITEM_VALUES)
    with pytest.raises(ValueError, match="at least 9 keyed items"):
        circumplex(random_answers(0), {"i00": "Power", "i01": "Power", "i02": None})
    with pytest.raises(ValueError, match="unknown values"):
        circumplex(random_answers(0), {**ITEM_VALUES, "i00": "Kindness"})
    m = random_answers(0)
    m.iloc[2:, 5] = np.nan
    with pytest.raises(ValueError, match=r"items \['i05', 'i00'"):
        circumplex(m, ITEM_VALUES)
    with pytest.raises(ValueError, match=r"items \['i05', 'i00'"):
        separability(m, ITEM_VALUES)


def test_dissimilarity_is_euclidean_between_rows() -> None:
    """D_ij = ‖R_i − R_j‖ (hand values for a 3×3 matrix); NaN input is rejected."""
    R = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, -0.5], [0.0, -0.5, 1.0]])
    D = dissimilarity(R)
    np.testing.assert_allclose(D[0, 1], math.sqrt(0.25 + 0.25 + 0.25), atol=1e-12)
    np.testing.assert_allclose(D[0, 2], math.sqrt(1.0 + 1.0 + 1.0), atol=1e-12)
    np.testing.assert_allclose(D[1, 2], math.sqrt(0.25 + 2.25 + 2.25), atol=1e-12)
    np.testing.assert_allclose(D, D.T, atol=1e-15)
    assert (np.diag(D) == 0).all()
    with pytest.raises(ValueError):
        dissimilarity(np.array([[1.0, np.nan], [np.nan, 1.0]]))


# ----------------------------------------------------------------------------- SMACOF, hand-traced

HAND_D = np.array(
    [
        [0, 3, 4, 5, 2],
        [3, 0, 6, 1, 7],
        [4, 6, 0, 8, 9],
        [5, 1, 8, 0, 10],
        [2, 7, 9, 10, 0],
    ],
    dtype=float,
)
HAND_X0 = np.array([[0.0, 0.0], [1.0, 0.2], [0.3, 1.1], [1.2, 1.0], [-0.5, 0.7]])


def _pava(y: list[float]) -> list[float]:
    """Pool-adjacent-violators, increasing, equal weights (the data has no tied dissimilarities)."""
    blocks: list[list[float]] = []  # [mean, size]
    for v in y:
        blocks.append([v, 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, s2 = blocks.pop()
            m1, s1 = blocks.pop()
            blocks.append([(m1 * s1 + m2 * s2) / (s1 + s2), s1 + s2])
    return [m for m, s in blocks for _ in range(int(s))]


def _hand_iteration(X: np.ndarray) -> tuple[float, np.ndarray]:
    """One scikit-learn-1.6 non-metric SMACOF iteration written out with explicit loops."""
    n = len(X)
    d = [[math.dist(X[i], X[j]) for j in range(n)] for i in range(n)]
    pairs = sorted(((i, j) for i in range(n) for j in range(i + 1, n)), key=lambda p: HAND_D[p])
    fitted = _pava([d[i][j] for i, j in pairs])
    dh = [row[:] for row in d]  # lower triangle and diagonal keep the distances, as in sklearn
    for (i, j), f in zip(pairs, fitted):
        dh[i][j] = f
    scale = math.sqrt((n * (n - 1) / 2) / sum(v * v for row in dh for v in row))
    dh = [[v * scale for v in row] for row in dh]
    num = sum((d[i][j] - dh[i][j]) ** 2 for i in range(n) for j in range(n))
    den = sum(dh[i][j] ** 2 for i in range(n) for j in range(n))
    stress = math.sqrt(num / den)
    B = [[-dh[i][j] / d[i][j] if i != j else 0.0 for j in range(n)] for i in range(n)]
    for i in range(n):
        B[i][i] = sum(dh[i][j] / d[i][j] for j in range(n) if j != i)
    new = np.array([[sum(B[i][k] * X[k][c] for k in range(n)) / n for c in range(2)] for i in range(n)])
    return stress, new


def test_smacof_matches_hand_traced_iterations() -> None:
    """Coordinates and Stress-1 after 1 and 2 iterations equal the explicit hand trace to 1e-10."""
    stress0, x1 = _hand_iteration(HAND_X0)
    stress1, x2 = _hand_iteration(x1)
    one = smacof_nonmetric(HAND_D, HAND_X0, max_iter=1)
    two = smacof_nonmetric(HAND_D, HAND_X0, max_iter=2)
    assert one.n_iter == 1 and two.n_iter == 2
    assert one.stress == pytest.approx(stress0, abs=1e-10)  # stress of the configuration BEFORE the update
    np.testing.assert_allclose(one.coords, x1, atol=1e-10)
    assert two.stress == pytest.approx(stress1, abs=1e-10)
    np.testing.assert_allclose(two.coords, x2, atol=1e-10)
    # The trace itself agrees with scikit-learn 1.6.1: smacof(HAND_D, metric=False, init=HAND_X0, n_init=1,
    # normalized_stress=True, max_iter=1 | 2) -> stress 0.7275598914052873 | 0.11412826632064542.
    assert (stress0, stress1) == (pytest.approx(0.7275598914052873, abs=1e-12), pytest.approx(0.11412826632064542, abs=1e-12))
    np.testing.assert_allclose(x1[0], [-0.20464103536724348, -0.32782919694787155], atol=1e-12)
    np.testing.assert_allclose(x2[4], [-0.5411624692439095, 0.0493181682103082], atol=1e-12)


def test_smacof_stopping_rule() -> None:
    """Stop at iteration k ≥ 2 when stress_{k−1}/Σ‖x_{k−1}‖ − stress_k/Σ‖x_k‖ < eps (sklearn ≤ 1.6 rule)."""
    stress0, x1 = _hand_iteration(HAND_X0)
    stress1, x2 = _hand_iteration(x1)
    drop = stress0 / np.linalg.norm(x1, axis=1).sum() - stress1 / np.linalg.norm(x2, axis=1).sum()
    assert smacof_nonmetric(HAND_D, HAND_X0, eps=drop + 1e-9).n_iter == 2
    assert smacof_nonmetric(HAND_D, HAND_X0, eps=drop - 1e-9).n_iter > 2
    assert smacof_nonmetric(HAND_D, HAND_X0, max_iter=7, eps=-np.inf).n_iter == 7


def test_smacof_rejects_bad_input() -> None:
    """Asymmetric or non-finite dissimilarities, a wrong init shape and all-zero D are ValueErrors."""
    bad = HAND_D.copy()
    bad[0, 1] += 0.5
    with pytest.raises(ValueError, match="symmetric"):
        smacof_nonmetric(bad, HAND_X0)
    with pytest.raises(ValueError, match="init"):
        smacof_nonmetric(HAND_D, HAND_X0[:4])
    with pytest.raises(ValueError, match="zero"):
        smacof_nonmetric(np.zeros((5, 5)), HAND_X0)


# ----------------------------------------------------------------------------- scikit-learn 1.6.1 reference

SK16_SCRIPT = """
Produced with scikit-learn 1.6.1 in a throwaway venv (python3 -m venv /tmp/sk16 &&
/tmp/sk16/bin/pip install scikit-learn==1.6.1; numpy 2.4.6, scipy 1.17.1):

    import numpy as np
    from scipy.stats import spearmanr
    from scipy.spatial.distance import pdist, squareform
    from sklearn.manifold import MDS, smacof
    POINTS = [(-0.34, 0.94), (-0.87, 0.50), (-0.98, -0.17), (-0.64, -0.77), (0.00, -1.00),
              (0.65, -0.77), (0.49, -0.09), (0.98, -0.17), (0.87, 0.50), (0.34, 0.94)]
    SIZES = [4, 3, 3, 4, 3, 5, 4, 4, 4, 6]
    init = np.array([p for p, k in zip(POINTS, SIZES) for _ in range(k)])
    answers = np.random.default_rng(20240601).integers(1, 7, size=(30, 40)).astype(float)
    R = spearmanr(answers).correlation
    D = squareform(pdist(R))
    X, stress, n_iter = smacof(D, metric=False, n_components=2, init=init, n_init=1, max_iter=300,
                               eps=1e-3, normalized_stress=True, random_state=0, return_n_iter=True)
    mds = MDS(n_components=2, metric=False, normalized_stress=True).fit(R, init=init)  # the leaderboard call
    print(answers.sum(), float(stress), n_iter, X[[0, 17, 39]].tolist())
    print(float(mds.stress_), mds.n_iter_, mds.embedding_[[0, 17, 39]].tolist())
    # -> 4210.0 0.3003334933296274 3 [[-0.1853300842018324, 0.3581830426221587],
    #    [0.25972164319799884, -0.3745534705044691], [0.0779392418692304, 0.6034896000771905]]
    # -> identical numbers from MDS(...).fit(R, init=init)

    # circle population (circle_answers() in this file):
    rng = np.random.default_rng(7)
    theta = np.arctan2(init[:, 1], init[:, 0]); phi = rng.uniform(0, 2 * np.pi, size=50)
    answers = np.clip(np.rint(3.5 + 2.5 * np.cos(phi[:, None] - theta[None, :])
                              + rng.normal(0, 0.8, size=(50, 40))), 1, 6)
    mds = MDS(n_components=2, metric=False, normalized_stress=True).fit(spearmanr(answers).correlation, init=init)
    # -> 6925.0 0.05890162599357581 3 [[-0.24017251382085347, 0.4388224073067024],
    #    [0.2677759778361383, -0.39879085139341847], [0.10799760569449775, 0.4693750762403217]]
"""

SK16_RANDOM = (0.3003334933296274, 3, [[-0.1853300842018324, 0.3581830426221587],
                                       [0.25972164319799884, -0.3745534705044691],
                                       [0.0779392418692304, 0.6034896000771905]])
SK16_CIRCLE = (0.05890162599357581, 3, [[-0.24017251382085347, 0.4388224073067024],
                                        [0.2677759778361383, -0.39879085139341847],
                                        [0.10799760569449775, 0.4693750762403217]])


#: The reference numbers were computed on an Intel machine. The Guttman step divides by distances of items that start
#: at one point (see ``_distances``), so the BLAS kernel's rounding (FMA or not) carries into Stress: on an AMD EPYC
#: the random population differs by 2.8e-8 in Stress and 4.3e-8 in coordinates, the circle by 1.1e-10. Either is the
#: reference's own spread across CPUs, so the bound is 1e-7; n_iter must match exactly.
CROSS_CPU_TOL = 1e-7


def test_smacof_matches_scikit_learn_16() -> None:
    """smacof_nonmetric on a seeded 40-item dissimilarity matrix = sklearn 1.6.1 smacof (stress, n_iter, coords) to
    ``CROSS_CPU_TOL``."""
    answers = np.random.default_rng(20240601).integers(1, 7, size=(30, 40)).astype(float)
    assert answers.sum() == 4210.0, "numpy's random stream changed: regenerate the reference with SK16_SCRIPT"
    D = dissimilarity(item_correlations(frame(answers)))
    result = smacof_nonmetric(D, INIT)
    stress, n_iter, coords = SK16_RANDOM
    assert result.stress == pytest.approx(stress, abs=CROSS_CPU_TOL)
    assert result.n_iter == n_iter
    np.testing.assert_allclose(result.coords[[0, 17, 39]], coords, atol=CROSS_CPU_TOL)


@pytest.mark.parametrize(
    ("make", "reference"),
    [(lambda: np.random.default_rng(20240601).integers(1, 7, size=(30, 40)).astype(float), SK16_RANDOM),
     (circle_answers, SK16_CIRCLE)],
    ids=["random", "circle"],
)
def test_circumplex_stress_matches_leaderboard_call(make, reference) -> None:
    """circumplex() reproduces the leaderboard's MDS(metric=False, normalized_stress=True).fit(R, init) on sklearn 1.6.1."""
    result = circumplex(frame(make()), ITEM_VALUES)
    stress, n_iter, coords = reference
    assert result.stress == pytest.approx(stress, abs=CROSS_CPU_TOL)
    assert result.n_iter == n_iter
    np.testing.assert_allclose(result.layout.loc[[0, 17, 39], ["x", "y"]].to_numpy(), coords, atol=CROSS_CPU_TOL)


def test_random_population_stress_near_029() -> None:
    """Uniform 1..6 answers (50 personas × 40 PVQ-like items, seed 0) give Stress-1 in [0.28, 0.32] (got 0.2991)."""
    result = circumplex(random_answers(0), ITEM_VALUES)
    print(f"random-population Stress-1: {result.stress:.4f}")
    assert 0.28 <= result.stress <= 0.32
    assert circumplex(random_answers(0), ITEM_VALUES).stress == result.stress  # deterministic


# ----------------------------------------------------------------------------- layout and value order


def test_circumplex_layout_and_theoretical_order() -> None:
    """Circle data: layout columns, centroids = item means, order = theory ccw, raw distance 0.1 (Conf/Trad tie)."""
    result = circumplex(frame(circle_answers()), ITEM_VALUES)
    assert list(result.layout.columns) == ["item_id", "value", "x", "y", "angle_deg"]
    assert list(result.layout["item_id"]) == ITEMS and list(result.layout["value"]) == LABELS
    assert ((result.layout["angle_deg"] >= 0) & (result.layout["angle_deg"] < 360)).all()
    power = result.layout[result.layout["value"] == "Power"][["x", "y"]].mean()
    row = result.centroids.set_index("value").loc["Power"]
    assert (row["x"], row["y"]) == pytest.approx((power["x"], power["y"]), abs=1e-12)
    assert result.theoretical_order == VALUES
    assert set(result.observed_order[6:8]) == {"Conformity", "Tradition"}
    assert [v for v in result.observed_order if v not in ("Conformity", "Tradition")] == [
        v for v in VALUES if v not in ("Conformity", "Tradition")
    ]
    assert result.direction == "ccw"
    assert result.rank_distance == pytest.approx(0.1, abs=1e-12)
    assert result.rank_distance_normalized == pytest.approx(0.1 / MAX_RANK_DISTANCE, abs=1e-12)
    assert result.stress < 0.1


def _theory_centroids(swap: tuple[str, str] | None = None, mirror: bool = False) -> pd.DataFrame:
    points = dict(THEORY_POINTS)
    if swap:
        a, b = swap
        points[a], points[b] = points[b], points[a]
    sign = -1.0 if mirror else 1.0
    return pd.DataFrame([{"value": v, "x": sign * x, "y": y} for v, (x, y) in points.items()])


def test_value_order_hand_examples() -> None:
    """Theory points: 0.1 ccw; mirrored: 0.1 cw; Stimulation↔Hedonism swapped: (1+1+0.5+0.5)/10 = 0.3."""
    direction, distance, ranked = value_order(_theory_centroids())
    assert (direction, distance) == ("ccw", pytest.approx(0.1))
    assert list(ranked["observed_rank"]) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]  # Conformity (−10.4°) before Tradition (−9.8°)
    direction, distance, _ = value_order(_theory_centroids(mirror=True))
    assert (direction, distance) == ("cw", pytest.approx(0.1))
    direction, distance, _ = value_order(_theory_centroids(swap=("Stimulation", "Hedonism")))
    assert (direction, distance) == ("ccw", pytest.approx(0.3))


def test_circular_rank_distance_wraps_around() -> None:
    """Ranks compare modulo n: a one-step rotation costs 1 per value except the wrapped one (n−1 → 1)."""
    assert circular_rank_distance(np.array([2, 3, 4, 1]), np.array([1, 2, 3, 4])) == pytest.approx(1.0)
    assert circular_rank_distance(np.array([0.1, 0.2, 0.3]), np.array([1, 2, 3])) == 0.0


# ----------------------------------------------------------------------------- separability


def test_separability_random_answers_train_high_cv_chance() -> None:
    """Random answers: reference-style training accuracy ≥ 0.95 (the reference reports ~1.0), CV accuracy ≤ 0.3 (chance 0.1)."""
    result = separability(random_answers(0), ITEM_VALUES, cv=5, seed=0)
    assert result["train_accuracy"] >= 0.95
    assert result["cv_accuracy"] <= 0.3
    assert (result["n_items"], result["n_classes"], result["n_splits"]) == (40, 10, 5)
    assert separability(random_answers(0), ITEM_VALUES, cv=5, seed=0) == result  # seeded


def test_separability_structured_answers_cv_perfect() -> None:
    """Items that are noisy copies of their value's latent score are separated perfectly out of fold."""
    rng = np.random.default_rng(1)
    latent = rng.normal(size=(50, len(VALUES)))
    cols = [VALUES.index(v) for v in LABELS]
    result = separability(frame(latent[:, cols] + 0.3 * rng.normal(size=(50, 40))), ITEM_VALUES)
    assert result["cv_accuracy"] == 1.0
    assert result["train_accuracy"] == 1.0 and result["train_accuracy_cv_model"] == 1.0


def test_the_mds_needs_5_personas_and_9_keyed_items() -> None:
    """``MDS_MIN_PERSONAS`` (a Spearman ρ over 4 personas cannot reach p < .05: its smallest two-sided exact p is
    2/4! = 1/12) and ``MDS_MIN_ITEMS`` (Kruskal & Wish 1978: more than 4 objects per dimension, 2 dimensions): below
    either the circumplex is refused with the minimum in the reason; at them it is drawn."""
    from itertools import permutations

    from analysis.methods.values import structure

    assert (structure.MDS_MIN_PERSONAS, structure.MDS_MIN_ITEMS) == (5, 9)
    for n in (4, 5):  # the exact permutation distribution of ρ: the share of orders as extreme as perfect agreement
        rhos = [1 - 6 * sum((a - b) ** 2 for a, b in zip(p, range(n))) / (n * (n * n - 1)) for p in permutations(range(n))]
        smallest_p = sum(abs(r) >= 1 - 1e-12 for r in rhos) / len(rhos)
        assert (smallest_p < 0.05) == (n == 5)
    with pytest.raises(ValueError, match="needs at least 5 personas, got 4"):
        circumplex(random_answers(0, personas=4), ITEM_VALUES)
    assert np.isfinite(circumplex(random_answers(0, personas=5), ITEM_VALUES).stress)
    nine = dict(list(ITEM_VALUES.items())[:9])
    with pytest.raises(ValueError, match="at least 9 keyed items .*got 8"):
        circumplex(random_answers(0), dict(list(nine.items())[:8]))
    assert np.isfinite(circumplex(random_answers(0), nine).stress)
