"""The array-level paths the chance simulations take (thousands of data sets) give exactly what the public metric
functions give: ``isotonic_fit`` = scikit-learn's ``IsotonicRegression``, ``cv_accuracy`` = ``cross_val_predict`` of
``SVC(kernel="linear")``, ``circumplex_numbers`` = ``circumplex``'s Stress and order distance."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.svm import SVC

from analysis.methods.values import structure
from tests.methods.values.test_structure import ITEM_VALUES, LABELS, SIZES, circle_answers, frame, random_answers


@pytest.mark.parametrize("ties", ["none", "rounded", "near"])
def test_isotonic_fit_is_scikit_learns_bit_for_bit(ties: str) -> None:
    """Bit-identical on 780 distances (40 items), with exact ties in x (averaged) and x closer than 1e-15 (merged)."""
    rng = np.random.default_rng(1)
    for _ in range(40):
        x, y = rng.random(780), rng.random(780)
        if ties == "rounded":
            x = np.round(x, 2)
        elif ties == "near":
            x[::7] = x[1]
            x[5] = x[6] + 1e-16
        expected = IsotonicRegression(out_of_bounds="clip").fit_transform(x, y)
        assert np.array_equal(structure.isotonic_fit(x, y), expected)


def test_cv_accuracy_is_cross_val_predict_of_linear_svc() -> None:
    """The same out-of-fold predictions as ``cross_val_predict(SVC(kernel="linear"))`` on 200 data sets, random and
    structured, with a value of 3 items (fewer than the 5 folds)."""
    labels = np.array(LABELS)
    folds = structure.cv_folds(labels, 5, 0)
    rng = np.random.default_rng(3)
    for k in range(200):
        x = rng.integers(1, 7, size=(50, len(labels))).astype(float)
        if k % 2:
            x += 2 * np.repeat(rng.normal(size=(50, len(SIZES))), SIZES, axis=1)  # items grouped by value
        R = structure.correlation_array(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = np.mean(cross_val_predict(SVC(kernel="linear"), R, labels,
                                                 cv=StratifiedKFold(5, shuffle=True, random_state=0)) == labels)
        assert structure.cv_accuracy(R, labels, folds) == expected


def test_cv_accuracy_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    """libsvm's own verbosity (on unless SVC turned it off) must not reach the terminal."""
    labels = np.array(LABELS)
    structure.cv_accuracy(structure.correlation_array(random_answers(0).to_numpy()), labels, structure.cv_folds(labels, 5, 0))
    assert capfd.readouterr().out == ""


@pytest.mark.parametrize("data", ["random", "circle", "missing"])
def test_circumplex_numbers_are_circumplexs(data: str) -> None:
    m = frame(circle_answers()) if data == "circle" else random_answers(5)
    if data == "missing":
        m = m.mask(np.random.default_rng(2).random(m.shape) < 0.05)
    full = structure.circumplex(m, ITEM_VALUES)
    assert structure.circumplex_numbers(m.to_numpy(), LABELS) == (full.stress, full.rank_distance)


def test_circumplex_numbers_refuse_what_circumplex_refuses() -> None:
    with pytest.raises(ValueError, match="at least 5 personas"):
        structure.circumplex_numbers(random_answers(0, personas=4).to_numpy(), LABELS)
    with pytest.raises(ValueError, match="at least 9 keyed items"):
        structure.circumplex_numbers(random_answers(0).to_numpy()[:, :8], LABELS[:8])
    with pytest.raises(ValueError, match="unknown values"):
        structure.circumplex_numbers(random_answers(0).to_numpy(), ["Kindness"] + LABELS[1:])


def test_correlation_stack_is_item_correlations_of_each_data_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pairwise-complete Spearman of a stack sharing its missing cells is exactly ``item_correlations`` of each data
    set (in one piece and in chunks), with constant items and few shared personas."""
    import pandas as pd

    rng = np.random.default_rng(0)
    for trial in range(30):
        n, k = int(rng.integers(3, 40)), int(rng.integers(2, 30))
        x = rng.integers(1, 4 + trial % 4, size=(6, n, k)).astype(float)
        missing = rng.random((n, k)) < rng.random() * 0.4
        x[:, missing] = np.nan
        if trial % 3 == 0:
            x[2, :, 0] = np.where(missing[:, 0], np.nan, 2.0)
        expected = np.stack([structure.item_correlations(pd.DataFrame(v)).to_numpy() for v in x])
        assert np.array_equal(structure.correlation_stack(x), expected, equal_nan=True)
        if trial == 0:
            monkeypatch.setattr(structure, "STACK_ELEMENTS", 1)  # one data set per chunk from now on
    with pytest.raises(ValueError, match="same cells"):
        structure.correlation_stack(np.stack([x[0], np.where(np.isnan(x[1]), 1.0, np.nan)]))
