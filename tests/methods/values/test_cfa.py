"""Magnifying-glass CFA: lavaan reference fits, fit-index formulas, failure detection (a failed fit is undefined).

Reference values: R 4.2.2 with lavaan 0.6-14 (Debian ``r-base-core r-cran-lavaan``), run while
developing; each test quotes its R script and the printed output. Tolerance 0.002 (absolute) on
χ², CFI, TLI, RMSEA, SRMR and the standardised loadings; df exact.

Fixtures (tests/fixtures):
- ``holzinger_swineford_1939.csv``: x1..x9 of lavaan's HolzingerSwineford1939 (301 rows), public
  data shipped with lavaan, exported with
  ``write.csv(HolzingerSwineford1939[, paste0("x", 1:9)], "hs.csv", row.names = FALSE)``.
- ``values_cfa_4factor.csv``: synthetic 300 personas × 14 items (integers 1..6), generated with::

    rng = np.random.default_rng(20240603)
    n = 300
    phi = np.array([[1.0, 0.5, 0.3, -0.2], [0.5, 1.0, 0.4, 0.0], [0.3, 0.4, 1.0, 0.3], [-0.2, 0.0, 0.3, 1.0]])
    eta = rng.multivariate_normal(np.zeros(4), phi, size=n)
    nuisance = rng.standard_normal(n)  # shared by i12 and i13: a correlated residual the model omits
    factor_of = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    cols = {}
    for k, f in enumerate(factor_of, start=1):
        lam = rng.uniform(0.5, 0.85)
        latent = lam * eta[:, f]
        if k == 8:  # cross-loading on factor 3 that the model omits
            latent = latent + 0.45 * eta[:, 2]
        if k in (12, 13):
            latent = latent + 0.4 * nuisance
        latent = latent + np.sqrt(max(0.1, 1 - lam ** 2)) * rng.standard_normal(n)
        cols[f"i{k:02d}"] = np.clip(np.round(3.5 + 1.2 * latent), 1, 6).astype(int)
    pd.DataFrame(cols).to_csv("values_cfa_4factor.csv", index=False)
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.errors import InputError
from analysis.methods.values import cfa
from analysis.methods.values.cfa import (
    MAGNIFYING_GLASS,
    cfa_loadings,
    cfa_table,
    context_cfa_summary,
    failed_reason,
    fit_cfa,
    fit_magnifying_glass_results,
)
from analysis.methods.values.cfa_model import INDICES, CFAResult, _failure, cfi_index, rmsea_index, srmr_index, tli_index

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TOL = 0.002
HS_MODEL = {"visual": ["x1", "x2", "x3"], "textual": ["x4", "x5", "x6"], "speed": ["x7", "x8", "x9"]}
V4_MODEL = {
    "A": ["i01", "i02", "i03", "i04"], "B": ["i05", "i06", "i07", "i08"],
    "C": ["i09", "i10", "i11"], "D": ["i12", "i13", "i14"],
}


def assert_indices(result: CFAResult, expected: dict[str, float]) -> None:
    """Every index in ``expected`` within TOL (df exactly)."""
    assert result.converged, result.reason
    assert result.df == expected["df"]
    for key in ("chi2", "cfi", "tli", "rmsea", "srmr"):
        assert getattr(result, key) == pytest.approx(expected[key], abs=TOL), key


@pytest.fixture(scope="module")
def hs_data() -> pd.DataFrame:
    return pd.read_csv(FIXTURES / "holzinger_swineford_1939.csv")


@pytest.fixture(scope="module")
def v4_data() -> pd.DataFrame:
    return pd.read_csv(FIXTURES / "values_cfa_4factor.csv")


@pytest.fixture(scope="module")
def hs_result(hs_data: pd.DataFrame) -> CFAResult:
    return fit_cfa(hs_data, HS_MODEL)


# ---------------------------------------------------------------------------------------------
# lavaan references
# ---------------------------------------------------------------------------------------------

def test_holzinger_swineford_matches_lavaan(hs_result: CFAResult) -> None:
    """HS 3-factor model: χ², df, CFI, TLI, RMSEA, SRMR and std loadings equal lavaan's within 0.002.

    R script::

        library(lavaan)
        HS <- HolzingerSwineford1939[, paste0("x", 1:9)]
        model <- "visual =~ x1 + x2 + x3
        textual =~ x4 + x5 + x6
        speed =~ x7 + x8 + x9"
        fit <- cfa(model, data = HS, std.lv = TRUE, estimator = "ML")
        fm <- fitMeasures(fit, c("chisq", "df", "cfi", "tli", "rmsea", "srmr", "baseline.chisq", "baseline.df"))
        cat(sprintf("%s = %.6f\\n", names(fm), unclass(fm)), sep = "")
        ss <- standardizedSolution(fit)[1:9, ]
        cat(sprintf("%s =~ %s %.6f\\n", ss$lhs, ss$rhs, ss$est.std), sep = "")

    Output::

        chisq = 85.305522
        df = 24.000000
        cfi = 0.930560
        tli = 0.895839
        rmsea = 0.092121
        srmr = 0.065205
        baseline.chisq = 918.851589
        baseline.df = 36.000000
        visual =~ x1 0.771881
        visual =~ x2 0.423602
        visual =~ x3 0.581132
        textual =~ x4 0.851582
        textual =~ x5 0.855066
        textual =~ x6 0.838010
        speed =~ x7 0.569516
        speed =~ x8 0.723044
        speed =~ x9 0.665010

    (semopy's own calc_stats gives RMSEA 0.092275: it divides by n − 1, lavaan by n.)
    """
    assert hs_result.n == 301
    assert_indices(hs_result, {"chi2": 85.305522, "df": 24, "cfi": 0.930560, "tli": 0.895839,
                               "rmsea": 0.092121, "srmr": 0.065205})
    assert hs_result.chi2_baseline == pytest.approx(918.851589, abs=TOL)
    assert hs_result.df_baseline == 36
    expected = [0.771881, 0.423602, 0.581132, 0.851582, 0.855066, 0.838010, 0.569516, 0.723044, 0.665010]
    assert hs_result.loadings["item"].tolist() == [f"x{i}" for i in range(1, 10)]
    assert hs_result.loadings["latent"].tolist() == ["visual"] * 3 + ["textual"] * 3 + ["speed"] * 3
    np.testing.assert_allclose(hs_result.loadings["std_loading"], expected, atol=TOL)


def test_four_factor_values_like_model_matches_lavaan(v4_data: pd.DataFrame) -> None:
    """Synthetic 4-factor, 14-item, 1..6 model (misspecified on purpose) equals lavaan within 0.002.

    R script::

        library(lavaan)
        d <- read.csv("tests/fixtures/values_cfa_4factor.csv")
        model <- "A =~ i01 + i02 + i03 + i04
        B =~ i05 + i06 + i07 + i08
        C =~ i09 + i10 + i11
        D =~ i12 + i13 + i14"
        fit <- cfa(model, data = d, std.lv = TRUE, estimator = "ML")
        fm <- fitMeasures(fit, c("chisq", "df", "cfi", "tli", "rmsea", "srmr"))
        cat(sprintf("%s = %.6f\\n", names(fm), unclass(fm)), sep = "")
        ss <- standardizedSolution(fit)[1:14, ]
        cat(sprintf("%s =~ %s %.6f\\n", ss$lhs, ss$rhs, ss$est.std), sep = "")

    Output::

        chisq = 106.897949
        df = 71.000000
        cfi = 0.955641
        tli = 0.943146
        rmsea = 0.041053
        srmr = 0.049173
        A =~ i01 0.628712
        A =~ i02 0.647251
        A =~ i03 0.818918
        A =~ i04 0.451744
        B =~ i05 0.531170
        B =~ i06 0.580518
        B =~ i07 0.386800
        B =~ i08 0.797207
        C =~ i09 0.507026
        C =~ i10 0.669550
        C =~ i11 0.836820
        D =~ i12 0.581914
        D =~ i13 0.657424
        D =~ i14 0.517708
    """
    result = fit_cfa(v4_data, V4_MODEL)
    assert result.n == 300
    assert_indices(result, {"chi2": 106.897949, "df": 71, "cfi": 0.955641, "tli": 0.943146,
                            "rmsea": 0.041053, "srmr": 0.049173})
    expected = [0.628712, 0.647251, 0.818918, 0.451744, 0.531170, 0.580518, 0.386800, 0.797207,
                0.507026, 0.669550, 0.836820, 0.581914, 0.657424, 0.517708]
    np.testing.assert_allclose(result.loadings["std_loading"], expected, atol=TOL)


#: lavaan fits of the sub-models used as magnifying-glass groups below (script as in the test above
#: with these model strings; same cat(sprintf(...)) output of fitMeasures).
LAVAAN_SUBMODELS = {
    # "A =~ i01 + i02 + i03 + i04\nB =~ i05 + i06 + i07 + i08\nC =~ i09 + i10 + i11"
    "Conservation": {"chi2": 56.824538, "df": 41, "cfi": 0.976712, "tli": 0.968760, "rmsea": 0.035868, "srmr": 0.045416},
    # "B =~ i05 + i06 + i07 + i08\nC =~ i09 + i10 + i11\nD =~ i12 + i13 + i14"
    "Openness to change": {"chi2": 64.805938, "df": 32, "cfi": 0.937954, "tli": 0.912747, "rmsea": 0.058458, "srmr": 0.055493},
    # "A =~ i01 + i02 + i03 + i04\nB =~ i05 + i06 + i07 + i08"  (χ² < df: CFI capped at 1, TLI > 1)
    "Self-transcendence": {"chi2": 16.584175, "df": 19, "cfi": 1.000000, "tli": 1.007985, "rmsea": 0.000000, "srmr": 0.033524},
    # "C =~ i09 + i10 + i11\nD =~ i12 + i13 + i14"
    "Self-enhancement": {"chi2": 16.033205, "df": 8, "cfi": 0.972241, "tli": 0.947952, "rmsea": 0.057855, "srmr": 0.045563},
}

#: value -> fixture factor whose items play that value's items in the magnifying-glass test.
VALUE_FACTOR = {
    "Security": "A", "Conformity": "B", "Tradition": "C",
    "Self-Direction": "B", "Stimulation": "C", "Hedonism": "D",
    "Benevolence": "A", "Universalism": "B",
    "Achievement": "C", "Power": "D",
}


def values_item_matrix(v4_data: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str | None]]:
    """An item matrix whose columns are fixture items relabelled per value, plus an unkeyed item."""
    columns, item_values = {}, {}
    for value, factor in VALUE_FACTOR.items():
        for item in V4_MODEL[factor]:
            item_id = f"{value[:4]}_{item}"
            columns[item_id] = v4_data[item]
            item_values[item_id] = value
    columns["unkeyed"] = v4_data["i01"] * 0 + 3  # constant and unkeyed: must be ignored
    item_values["unkeyed"] = None
    matrix = pd.DataFrame(columns)
    matrix.index.name = "persona_id"
    return matrix, item_values


def test_magnifying_glass_groups_match_lavaan(v4_data: pd.DataFrame) -> None:
    """Each of the four groups is fitted on its values' items only and equals lavaan within 0.002."""
    matrix, item_values = values_item_matrix(v4_data)
    results = fit_magnifying_glass_results(matrix, item_values)
    table = cfa_table(results)
    assert table.columns.tolist() == ["group", "n", "chi2", "df", "cfi", "tli", "rmsea", "srmr", "converged", "reason"]
    assert table["group"].tolist() == list(MAGNIFYING_GLASS)
    assert table["n"].tolist() == [300] * 4
    assert table["converged"].all() and (table["reason"] == "").all()
    for group, expected in LAVAAN_SUBMODELS.items():
        assert_indices(results[group], expected)
        latents = results[group].loadings["latent"].unique().tolist()
        assert latents == list(MAGNIFYING_GLASS[group])
    loadings = cfa_loadings(results)
    assert loadings.columns.tolist() == ["group", "latent", "item", "std_loading"]
    assert len(loadings) == 11 + 10 + 8 + 6
    assert cfa_table(fit_magnifying_glass_results(matrix, item_values)).equals(table)

    summary = context_cfa_summary(table)
    for key in ("cfi", "tli", "rmsea", "srmr"):
        assert summary[key] == pytest.approx(np.mean([e[key] for e in LAVAAN_SUBMODELS.values()]), abs=TOL)


def heywood_data(seed: int, n: int = 50) -> pd.DataFrame:
    """Two items of a strong factor (a 2-indicator latent) and three of a weak one: Heywood-prone."""
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(n)
    h = 0.3 * g + np.sqrt(0.91) * rng.standard_normal(n)
    cols = {f"y{j}": 0.95 * g + 0.3 * rng.standard_normal(n) for j in range(2)}
    cols.update({f"z{j}": 0.6 * h + 0.8 * rng.standard_normal(n) for j in range(3)})
    return pd.DataFrame(cols)


def test_heywood_case_matches_lavaan_pos_var() -> None:
    """A residual variance at its bound 0 is reported in ``note``; the fit equals lavaan bounds="pos.var".

    R script (``heywood_data(12)`` written with ``to_csv("hw_12.csv", index=False)``)::

        library(lavaan)
        d <- read.csv("hw_12.csv")
        fit <- cfa("F1 =~ y0 + y1\\nF2 =~ z0 + z1 + z2", data = d, std.lv = TRUE, bounds = "pos.var")
        fm <- fitMeasures(fit, c("chisq", "df", "cfi", "tli", "rmsea", "srmr"))
        cat(sprintf("%s = %.6f\\n", names(fm), unclass(fm)), sep = "")

    Output::

        chisq = 3.286990
        df = 4.000000
        cfi = 1.000000
        tli = 1.022142
        rmsea = 0.000000
        srmr = 0.029596
        (parameterEstimates: y1 ~~ y1 0.000000)

    Unbounded (lavaan's default) the same data gives y1 ~~ y1 < 0 and χ² 1.968197.
    """
    result = fit_cfa(heywood_data(12), {"F1": ["y0", "y1"], "F2": ["z0", "z1", "z2"]})
    assert_indices(result, {"chi2": 3.286990, "df": 4, "cfi": 1.0, "tli": 1.022142, "rmsea": 0.0, "srmr": 0.029596})
    assert result.note == "residual variance at 0 (Heywood case): y1"
    y1 = result.loadings.set_index("item").loc["y1", "std_loading"]
    assert y1 == pytest.approx(1.0, abs=TOL)


# ---------------------------------------------------------------------------------------------
# Failures
# ---------------------------------------------------------------------------------------------

def assert_failed(result: CFAResult, reason_start: str) -> None:
    """A failed fit has no index: χ², CFI, TLI, RMSEA, SRMR all NaN (undefined, never the leaderboard's 0 / 1)."""
    assert not result.converged
    assert result.reason.startswith(reason_start), result.reason
    assert list(result.scores()) == list(INDICES) == ["cfi", "tli", "rmsea", "srmr"]
    assert all(math.isnan(v) for v in result.scores().values()), result.scores()
    assert math.isnan(result.chi2)


def test_latent_correlation_above_one_is_failure() -> None:
    """Two latents measuring one factor: ML gives r(F1, F2) = 1.049 (as lavaan) → a failed fit.

    R script (``heywood_data``-like: one factor g, y_j = 0.8 g + 0.6 e_j, seed 0, n = 60, saved as hey0.csv)::

        d <- read.csv("hey0.csv")
        fit <- cfa("F1 =~ y0 + y1 + y2\\nF2 =~ y3 + y4 + y5", data = d, std.lv = TRUE)
        lavInspect(fit, "cor.lv")   # F2-F1: 1.049 (warning: cov matrix of latent variables not PD)
        fitMeasures(fit, c("chisq", "df"))   # 13.828 8.000
    """
    rng = np.random.default_rng(0)
    g = rng.standard_normal(60)
    data = pd.DataFrame({f"y{j}": 0.8 * g + 0.6 * rng.standard_normal(60) for j in range(6)})
    result = fit_cfa(data, {"F1": ["y0", "y1", "y2"], "F2": ["y3", "y4", "y5"]})
    assert_failed(result, "latent correlation |r| ≥ 1: F1–F2")
    assert result.latent_correlations.loc["F1", "F2"] == pytest.approx(1.049, abs=TOL)
    assert result.df == 8 and result.n == 60


def test_collinear_items_fail(hs_data: pd.DataFrame) -> None:
    """A perfectly collinear item (x1b = 2·x1 + 1) makes S singular → failure with the reason kept."""
    data = hs_data.assign(x1b=2 * hs_data["x1"] + 1)
    result = fit_cfa(data, {**HS_MODEL, "visual": ["x1", "x1b", "x2", "x3"]})
    assert_failed(result, "sample covariance not positive definite")


def test_constant_groups_fail_in_magnifying_glass(v4_data: pd.DataFrame) -> None:
    """All-constant Openness items → failure 'all items constant'; one constant item → named; others fit."""
    matrix, item_values = values_item_matrix(v4_data)
    for item, value in item_values.items():
        if value in MAGNIFYING_GLASS["Openness to change"]:
            matrix[item] = 4
    first_power = next(i for i, v in item_values.items() if v == "Power")
    matrix[first_power] = 2
    table = cfa_table(fit_magnifying_glass_results(matrix, item_values)).set_index("group")
    assert table.loc["Openness to change", "reason"] == "all items constant"
    assert table.loc["Self-enhancement", "reason"] == f"constant items (zero variance): {first_power}"
    for group in ("Openness to change", "Self-enhancement"):
        assert not table.loc[group, "converged"]
        assert table.loc[group, ["cfi", "tli", "rmsea", "srmr"]].isna().all()
    assert table.loc["Conservation", "cfi"] == pytest.approx(LAVAAN_SUBMODELS["Conservation"]["cfi"], abs=TOL)
    # the context's mean fit is undefined, the failed groups named with their reasons (not averaged in as 0 / 1)
    summary = context_cfa_summary(table.reset_index())
    assert all(math.isnan(summary[k]) for k in INDICES), summary
    assert failed_reason(table.reset_index()) == ("Openness to change did not fit: all items constant; Self-enhancement "
                                                  f"did not fit: constant items (zero variance): {first_power}")


def test_value_without_items_fails(v4_data: pd.DataFrame) -> None:
    """A group whose value has no item in the matrix cannot be built: failure naming the value."""
    matrix, item_values = values_item_matrix(v4_data)
    item_values = {k: (None if v == "Hedonism" else v) for k, v in item_values.items()}
    table = cfa_table(fit_magnifying_glass_results(matrix, item_values)).set_index("group")
    assert table.loc["Openness to change", "reason"] == "no items for: Hedonism"
    assert not table.loc["Openness to change", "converged"]
    assert math.isnan(table.loc["Openness to change", "cfi"])


def test_single_indicator_latent_fails(hs_data: pd.DataFrame) -> None:
    """A latent with one indicator is not identified: failure without estimation."""
    result = fit_cfa(hs_data, {"visual": ["x1"], "textual": ["x4", "x5", "x6"]})
    assert_failed(result, "fewer than 2 indicators (not identified): visual")


def test_estimation_exception_is_failure(hs_data: pd.DataFrame, monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception inside semopy's estimation becomes a failure result with the exception in the reason."""
    def boom(*args: object, **kwargs: object) -> None:
        raise np.linalg.LinAlgError("Matrix is not positive definite")

    monkeypatch.setattr(cfa, "_estimate", boom)
    result = cfa.fit_cfa_semopy(hs_data, HS_MODEL)
    assert_failed(result, "estimation error: LinAlgError: Matrix is not positive definite")


def test_no_convergence_is_failure(hs_data: pd.DataFrame, monkeypatch: pytest.MonkeyPatch) -> None:
    """An optimiser that reports no success gives a failed fit, its message kept, loadings still shown."""
    real = cfa._estimate

    def not_converged(*args, **kwargs):  # type: ignore[no-untyped-def]
        lam, phi, theta, result = real(*args, **kwargs)
        result.success, result.message = False, "Iteration limit reached"
        return lam, phi, theta, result

    monkeypatch.setattr(cfa, "_estimate", not_converged)
    result = cfa.fit_cfa_semopy(hs_data, HS_MODEL)
    assert_failed(result, "no convergence: Iteration limit reached")
    assert len(result.loadings) == 9


def test_no_convergence_of_the_numpy_estimator_is_failure(hs_data: pd.DataFrame, monkeypatch: pytest.MonkeyPatch) -> None:
    """``fit_cfa``'s estimator stopped before its gradient vanished: a failed fit with the reason, loadings shown."""
    from analysis.methods.values import cfa_batch

    monkeypatch.setattr(cfa_batch.fit_cfa_batch, "__kwdefaults__", {**cfa_batch.fit_cfa_batch.__kwdefaults__, "max_iter": 2})
    result = fit_cfa(hs_data, HS_MODEL)
    assert_failed(result, "no convergence: iteration limit reached (2)")
    assert len(result.loadings) == 9


def test_missing_indicator_raises(hs_data: pd.DataFrame) -> None:
    """A model naming a column absent from the data is a caller error (InputError), not a failed fit."""
    with pytest.raises(InputError, match="x10"):
        fit_cfa(hs_data, {"visual": ["x1", "x2", "x10"]})


def test_listwise_deletion(hs_data: pd.DataFrame, hs_result: CFAResult) -> None:
    """Rows with a missing answer are dropped: n = 298, same fit as the complete-case frame."""
    data = hs_data.copy()
    data.loc[[0, 5, 17], ["x2", "x9", "x4"]] = np.nan
    result = fit_cfa(data, HS_MODEL)
    reference = fit_cfa(hs_data.drop(index=[0, 5, 17]), HS_MODEL)
    assert result.n == reference.n == 298
    assert result.chi2 == pytest.approx(reference.chi2, abs=1e-6)
    assert result.chi2 != pytest.approx(hs_result.chi2, abs=0.1)


# ---------------------------------------------------------------------------------------------
# Formulas
# ---------------------------------------------------------------------------------------------

def test_srmr_hand_worked_3x3() -> None:
    """SRMR = sqrt(Σ_{i≥j} ((s_ij − σ̂_ij)/√(s_ii s_jj))² / 6), worked by hand on 3×3 matrices."""
    s = np.array([[1.0, 0.5, 0.6], [0.5, 4.0, 1.2], [0.6, 1.2, 9.0]])
    implied = np.array([[1.0, 0.3, 0.6], [0.3, 4.0, 0.6], [0.6, 0.6, 9.0]])
    # residuals: (0.5−0.3)/√(1·4) = 0.1, (0.6−0.6)/√9 = 0, (1.2−0.6)/√(4·9) = 0.1, diagonal 0
    assert srmr_index(s, implied) == pytest.approx(math.sqrt((0.1 ** 2 + 0 + 0.1 ** 2) / 6), abs=1e-12)
    assert srmr_index(s, implied) == pytest.approx(0.0577350, abs=1e-6)
    # Σ̂_11 = 0.8 (variance not reproduced): lavaan's srmr scales by the SAMPLE sds, so the
    # diagonal residual (1 − 0.8)/1 = 0.2 counts: sqrt((0.2² + 0.1² + 0.1²)/6) = 0.1
    implied[0, 0] = 0.8
    assert srmr_index(s, implied) == pytest.approx(0.1, abs=1e-12)
    assert srmr_index(s, s) == 0.0


def test_cfi_is_capped_tli_is_not() -> None:
    """CFI stays in [0, 1] (χ² < df → 1; worse than baseline → 0); TLI follows lavaan uncapped; RMSEA ≥ 0."""
    # χ² = 10 < df = 20: naive 1 − (10 − 20)/(100 − 30) = 1.143 → 1
    assert cfi_index(10.0, 20, 100.0, 30) == 1.0
    # TLI = (100/30 − 10/20)/(100/30 − 1) = 1.2143 (not capped, as lavaan)
    assert tli_index(10.0, 20, 100.0, 30) == pytest.approx((100 / 30 - 0.5) / (100 / 30 - 1), abs=1e-12)
    assert tli_index(10.0, 20, 100.0, 30) == pytest.approx(1.2142857, abs=1e-6)
    # model worse than the baseline: naive 1 − 180/70 = −1.57 → 1 − 180/180 = 0
    assert cfi_index(200.0, 20, 100.0, 30) == 0.0
    # an ordinary case: 1 − (85.305522 − 24)/(918.851589 − 36) = 0.930560 (HS, lavaan)
    assert cfi_index(85.305522, 24, 918.851589, 36) == pytest.approx(0.930560, abs=1e-6)
    assert rmsea_index(10.0, 20, 300) == 0.0
    # RMSEA = sqrt((χ² − df)/(df·n)) with n (lavaan), not n − 1 (semopy)
    assert rmsea_index(85.305522, 24, 301) == pytest.approx(math.sqrt(61.305522 / (24 * 301)), abs=1e-12)
    assert rmsea_index(85.305522, 24, 301) == pytest.approx(0.092121, abs=1e-6)
    assert rmsea_index(5.0, 0, 100) == 0.0 and tli_index(5.0, 0, 100.0, 30) == 1.0


def test_context_summary_is_the_mean_and_undefined_when_a_group_failed() -> None:
    """Context summary = plain mean over the 4 rows when all fitted; one failed group makes it undefined (NaN) with
    the group and its reason, never a mean with the failed fit counted as CFI 0 / RMSEA 1 (2.7 / 4 = 0.675 here)."""
    ok = CFAResult(n=50, chi2=20.0, df=10, cfi=0.9, tli=0.8, rmsea=0.05, srmr=0.06, converged=True)
    groups = {"Conservation": ok, "Openness to change": ok, "Self-transcendence": ok}
    table = cfa_table(groups | {"Self-enhancement": ok})
    assert context_cfa_summary(table) == pytest.approx({"cfi": 0.9, "tli": 0.8, "rmsea": 0.05, "srmr": 0.06}, abs=1e-12)
    assert failed_reason(table) == ""
    bad = _failure(50, 10, "latent correlation |r| ≥ 1")
    table = cfa_table(groups | {"Self-enhancement": bad})
    assert table.loc[3, ["cfi", "tli", "rmsea", "srmr"]].isna().all() and table.loc[3, "reason"] == bad.reason
    summary = context_cfa_summary(table)
    assert list(summary) == list(INDICES) and all(math.isnan(v) for v in summary.values()), summary
    assert failed_reason(table) == "Self-enhancement did not fit: latent correlation |r| ≥ 1"


def test_a_group_on_fewer_than_the_minimum_personas_is_not_fitted(v4_data: pd.DataFrame) -> None:
    """On 20 personas (fewer than ``cfa.MIN_PERSONAS`` = 30, Wolf et al. 2013) no group is fitted: no indices, the
    reason names the minimum, the context's mean is undefined and says "not fitted" (not "did not fit"), and the
    leaderboard does not score it as a failed fit (CFI 0): the context gives no CFA column. At 30 they are fitted."""
    from analysis.methods.values.leaderboard import column_table

    matrix, item_values = values_item_matrix(v4_data)
    table = cfa_table(fit_magnifying_glass_results(matrix.iloc[:20], item_values))
    assert not table["converged"].any() and table[list(INDICES)].isna().all().all()
    assert (table["reason"] == "needs ≥ 30 personas answering every item of the model, has 20").all()
    assert failed_reason(table).startswith("Conservation not fitted: needs ≥ 30 personas")
    groups = {r["group"]: r for r in table.to_dict("records")}
    board = column_table({"m": {"contexts": {"c": {"stress": 0.2, "cfa": groups}}}})
    assert list(board.columns) == ["1-Stress:c"]  # no CFI 0 / RMSEA 1 scored for a fit never possible
    assert cfa_table(fit_magnifying_glass_results(matrix.iloc[:30], item_values))["converged"].all()


def test_a_fit_index_above_one_is_shown_as_over_fitted() -> None:
    """A TLI of 1.5 (χ² below its df, as on 15 personas) is kept in the data but shown "≥ 1 (over-fitted)", never
    1.500; the CFA table the Structure page draws goes through the same formatter."""
    from analysis.methods.values.reads import cfa_shown
    from analysis.methods.values.report_types import OVER_FITTED, fit_index_text

    assert OVER_FITTED == "≥ 1 (over-fitted)"
    assert fit_index_text(1.5) == OVER_FITTED and fit_index_text(1.0000001) == OVER_FITTED
    assert fit_index_text(1.0) == "1.000" and fit_index_text(0.9123) == "0.912"
    assert fit_index_text(None) == fit_index_text(float("nan")) == "—"
    shown = cfa_shown(pd.DataFrame({"group": ["g"], "cfi": [1.0], "tli": [1.5], "rmsea": [0.0]}))
    assert shown.loc[0, "tli"] == OVER_FITTED and shown.loc[0, "cfi"] == "1.000" and shown.loc[0, "rmsea"] == 0.0
