"""Confirmatory factor analysis of value items: the "magnifying glass" strategy.

Four separate models, one per higher-order value, each with one latent per basic value and that
value's items as indicators (Stick to Your Role! leaderboard description; ARCHITECTURE.md):
Conservation (Security, Conformity, Tradition), Openness to change (Self-Direction, Stimulation,
Hedonism), Self-transcendence (Benevolence, Universalism), Self-enhancement (Achievement, Power).

Estimation: maximum likelihood (``cfa_batch``: damped Newton steps in numpy, many data sets at once; semopy's SLSQP
before, still the tests' cross-check in ``fit_cfa_semopy``), latent variances fixed to 1 and loadings free
(lavaan's ``std.lv=TRUE``), correlated latents, residual variances free but ≥ 0 (semopy's bound,
= lavaan's ``bounds="pos.var"``). For a proper solution this is exactly lavaan's default fit.
Without the bound, small samples often drift to improper solutions (one loading → ∞, its residual
variance → −∞) whose χ² depends on where the optimiser happens to stop; with it, such a case ends
with a residual variance at 0 (a Heywood case), reported in ``CFAResult.note`` and still scored.

Fit indices are computed here from the sample covariance S (divisor n) and the model-implied Σ̂,
following lavaan 0.6 (``fitMeasures``, ML, ``likelihood="normal"``), not semopy's ``calc_stats``:
semopy's χ² (n·F_ML with S of divisor n) equals lavaan's, but semopy has no SRMR, its RMSEA
divides by n − 1 where lavaan divides by n, and its GFI/AIC are not lavaan's (not exposed).

- F_ML = log|Σ̂| − log|S| + tr(S Σ̂⁻¹) − p;  χ² = n · F_ML;  df = p(p+1)/2 − #free parameters.
- Baseline (independence) model: χ²_b = n · (Σ_i log s_ii − log|S|), df_b = p(p−1)/2.
- CFI = 1 − max(χ²−df, 0) / max(χ²−df, χ²_b−df_b, 0)  (1 when both are 0) — lies in [0, 1].
- TLI = (χ²_b/df_b − χ²/df) / (χ²_b/df_b − 1)  (1 when df = 0; not capped, as lavaan).
- RMSEA = sqrt(max(0, (χ² − df) / (df · n)))  (0 when df = 0).
- SRMR (lavaan "srmr" = Bentler's): r_ij = s_ij/√(s_ii s_jj) − σ̂_ij/√(s_ii s_jj), root mean
  square over the p(p+1)/2 elements of the lower triangle with the diagonal. ML CFA reproduces
  the variances (σ̂_ii = s_ii), so this equals converting S and Σ̂ each to a correlation matrix
  (ARCHITECTURE.md); where they differ, lavaan's definition is used.

A failed fit — no convergence, a non-positive-definite sample or implied covariance, a latent
correlation with |r| ≥ 1, an unidentified latent (< 2 indicators), constant items, or any
estimation error — has no fit indices: they are NaN (undefined, never 0) with ``converged=False``
and the reason kept. Per context: the mean over the 4 models, undefined when one of them failed
(``context_cfa_summary``, ``failed_reason``). The reference's leaderboard scores a failed fit CFI 0,
TLI 0, RMSEA 1, SRMR 1 for its ranking; that scoring lives in its columns alone
(``analysis.methods.values.leaderboard.FAILURE_SCORES``).

Pure functions on DataFrames: no store, no LLM.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd

from analysis.errors import InputError

#: The magnifying-glass models: higher-order value -> its basic values (the latents).
MAGNIFYING_GLASS: dict[str, tuple[str, ...]] = {
    "Conservation": ("Security", "Conformity", "Tradition"),
    "Openness to change": ("Self-Direction", "Stimulation", "Hedonism"),
    "Self-transcendence": ("Benevolence", "Universalism"),
    "Self-enhancement": ("Achievement", "Power"),
}

#: The four fit indices of a model (NaN, i.e. undefined, for a failed fit).
INDICES = ("cfi", "tli", "rmsea", "srmr")

#: |latent correlation| at or above this counts as ≥ 1 (tolerance for the optimiser's precision).
CORRELATION_LIMIT = 1.0 - 1e-6

#: Smallest eigenvalue of a correlation matrix still counted as positive definite.
PD_TOLERANCE = 1e-10

FIT_COLUMNS = ["group", "n", "chi2", "df", "cfi", "tli", "rmsea", "srmr", "converged", "reason"]


@dataclass(frozen=True)
class FitIndices:
    """χ², df and the lavaan-compatible fit indices of one model."""

    chi2: float
    df: int
    chi2_baseline: float
    df_baseline: int
    cfi: float
    tli: float
    rmsea: float
    srmr: float


@dataclass
class CFAResult:
    """Outcome of one CFA; on failure ``chi2`` and the indices are NaN (undefined) and ``reason`` says why."""

    n: int
    chi2: float
    df: int
    cfi: float
    tli: float
    rmsea: float
    srmr: float
    converged: bool
    reason: str = ""
    #: Diagnostics of a fit that still counts (e.g. residual variances at their bound 0).
    note: str = ""
    chi2_baseline: float = math.nan
    df_baseline: int = 0
    #: Standardised loadings (columns latent, item, std_loading); filled whenever estimates exist.
    loadings: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["latent", "item", "std_loading"]))
    #: Latent correlation matrix (latents × latents); empty when not estimated.
    latent_correlations: pd.DataFrame = field(default_factory=pd.DataFrame)

    def scores(self) -> dict[str, float]:
        """The four fit indices: cfi, tli, rmsea, srmr (all NaN for a failed fit)."""
        return {"cfi": self.cfi, "tli": self.tli, "rmsea": self.rmsea, "srmr": self.srmr}


# ---------------------------------------------------------------------------------------------
# Fit indices (pure formulas)
# ---------------------------------------------------------------------------------------------

def ml_discrepancy(sample_cov: np.ndarray, implied_cov: np.ndarray) -> float:
    """F_ML = log|Σ̂| − log|S| + tr(S Σ̂⁻¹) − p (Jöreskog 1969; lavaan's 2·fmin)."""
    p = sample_cov.shape[0]
    _, logdet_implied = np.linalg.slogdet(implied_cov)
    _, logdet_sample = np.linalg.slogdet(sample_cov)
    trace = float(np.trace(np.linalg.solve(implied_cov, sample_cov)))
    return float(logdet_implied - logdet_sample + trace - p)


def baseline_chi2(sample_cov: np.ndarray, n: int) -> tuple[float, int]:
    """Independence model: χ²_b = n·(Σ log s_ii − log|S|), df_b = p(p−1)/2 (lavaan's baseline)."""
    p = sample_cov.shape[0]
    _, logdet = np.linalg.slogdet(sample_cov)
    return float(n * (np.sum(np.log(np.diag(sample_cov))) - logdet)), p * (p - 1) // 2


def cfi_index(chi2: float, df: int, chi2_base: float, df_base: int) -> float:
    """CFI = 1 − max(χ²−df, 0)/max(χ²−df, χ²_b−df_b, 0), 1 if both are 0 (lavaan); in [0, 1]."""
    t1 = max(chi2 - df, 0.0)
    t2 = max(chi2 - df, chi2_base - df_base, 0.0)
    if math.isclose(t1, 0.0, abs_tol=1e-12) and math.isclose(t2, 0.0, abs_tol=1e-12):
        return 1.0
    return float(min(1.0, max(0.0, 1.0 - t1 / t2)))


def tli_index(chi2: float, df: int, chi2_base: float, df_base: int) -> float:
    """TLI = (χ²_b/df_b − χ²/df)/(χ²_b/df_b − 1); 1 when df = 0 (lavaan; not capped)."""
    if df <= 0:
        return 1.0
    if df_base <= 0:
        return math.nan
    denominator = chi2_base / df_base - 1.0
    if math.isclose(denominator, 0.0, abs_tol=1e-12):
        return math.nan
    return float((chi2_base / df_base - chi2 / df) / denominator)


def rmsea_index(chi2: float, df: int, n: int) -> float:
    """RMSEA = sqrt(max(0, (χ² − df)/(df·n))); 0 when df = 0 (lavaan, ML with N)."""
    if df <= 0:
        return 0.0
    return float(math.sqrt(max(0.0, (chi2 - df) / (df * n))))


def srmr_index(sample_cov: np.ndarray, implied_cov: np.ndarray) -> float:
    """SRMR (Bentler; lavaan "srmr"): RMS over i ≥ j of (s_ij − σ̂_ij)/√(s_ii s_jj)."""
    sd = np.sqrt(np.diag(sample_cov))
    residual = (sample_cov - implied_cov) / np.outer(sd, sd)
    lower = residual[np.tril_indices_from(residual)]
    return float(np.sqrt(np.mean(lower ** 2)))


def fit_indices(sample_cov: np.ndarray, implied_cov: np.ndarray, n: int, n_free: int) -> FitIndices:
    """All indices of a model with ``n_free`` free parameters fitted to S (divisor n) on n rows."""
    p = sample_cov.shape[0]
    chi2 = n * ml_discrepancy(sample_cov, implied_cov)
    df = p * (p + 1) // 2 - n_free
    chi2_b, df_b = baseline_chi2(sample_cov, n)
    return FitIndices(
        chi2=chi2, df=df, chi2_baseline=chi2_b, df_baseline=df_b,
        cfi=cfi_index(chi2, df, chi2_b, df_b), tli=tli_index(chi2, df, chi2_b, df_b),
        rmsea=rmsea_index(chi2, df, n), srmr=srmr_index(sample_cov, implied_cov),
    )


# ---------------------------------------------------------------------------------------------
# Estimation
# ---------------------------------------------------------------------------------------------

def _failure(n: int, df: int, reason: str, **extra: object) -> CFAResult:
    undefined = dict.fromkeys(INDICES, math.nan)
    return CFAResult(n=n, chi2=math.nan, df=df, converged=False, reason=reason, **undefined, **extra)


def _n_free(model: Mapping[str, Sequence[str]], p: int) -> int:
    """Free parameters: one loading per (latent, indicator), p residual variances, k(k−1)/2 correlations."""
    k = len(model)
    return sum(len(items) for items in model.values()) + p + k * (k - 1) // 2


class _SemopyLogFilter(logging.Filter):
    """Drops semopy's root-logger chatter ("No fixed loadings", "Solver didn't converge")."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "semopy" not in record.pathname


@lru_cache(maxsize=1)
def _blas_controller() -> object:
    import semopy  # noqa: F401  (loads scipy's BLAS before the controller lists the libraries)
    from threadpoolctl import ThreadpoolController  # a dependency of scikit-learn

    return ThreadpoolController()


@contextmanager
def _quiet_single_threaded() -> Iterator[None]:
    """Silence semopy's logging and use one BLAS thread.

    The matrices are tiny; on a busy machine OpenBLAS threads made one small inverse take ~40 ms
    instead of ~20 µs.
    """
    root = logging.getLogger()
    flt = _SemopyLogFilter()
    root.addFilter(flt)
    try:
        with _blas_controller().limit(limits=1, user_api="blas"):  # type: ignore[attr-defined]
            yield
    finally:
        root.removeFilter(flt)


def _start_loadings(cov: np.ndarray) -> np.ndarray:
    """Starting loadings of one latent: first principal component of its items' covariance."""
    eigval, eigvec = np.linalg.eigh(cov)
    loadings = np.sqrt(max(eigval[-1], 1e-6)) * eigvec[:, -1]
    return loadings if loadings.sum() >= 0 else -loadings


def _estimate(x: np.ndarray, model: list[list[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, object]:
    """ML fit with semopy; returns (Λ, Φ, Θ diagonal, solver result) in the given variable order."""
    import semopy

    p, k = x.shape[1], len(model)
    lines = []
    for f, items in enumerate(model):
        lines.append(f"f{f} =~ " + " + ".join(f"l_{f}_{j}*v{j}" for j in items))
        lines.append(f"f{f} ~~ 1*f{f}")
    lines += [f"f{a} ~~ phi_{a}_{b}*f{b}" for a in range(k) for b in range(a + 1, k)]
    lines += [f"v{j} ~~ th_{j}*v{j}" for j in range(p)]
    sem = semopy.Model("\n".join(lines))
    cov = np.cov(x, rowvar=False, bias=True)
    for f, items in enumerate(model):
        for j, start in zip(items, _start_loadings(cov[np.ix_(items, items)])):
            sem.parameters[f"l_{f}_{j}"].start = float(start)
    for j in range(p):
        sem.parameters[f"th_{j}"].start = float(cov[j, j] / 2)  # semopy keeps its bound θ ≥ 0
    frame = pd.DataFrame(x, columns=[f"v{j}" for j in range(p)])
    result = sem.fit(frame, obj="MLW", solver="SLSQP")
    names = [name for name, prm in sem.parameters.items() if prm.active]
    est = dict(zip(names, np.asarray(sem.param_vals, dtype=float)))
    lam = np.zeros((p, k))
    for f, items in enumerate(model):
        for j in items:
            lam[j, f] = est[f"l_{f}_{j}"]
    phi = np.eye(k)
    for a in range(k):
        for b in range(a + 1, k):
            phi[a, b] = phi[b, a] = est[f"phi_{a}_{b}"]
    theta = np.array([est[f"th_{j}"] for j in range(p)])
    return lam, phi, theta, result


def _is_pd(matrix: np.ndarray) -> bool:
    if not np.all(np.isfinite(matrix)):
        return False
    d = np.sqrt(np.clip(np.diag(matrix), 0, None))
    if np.any(d <= 0):
        return False
    return bool(np.linalg.eigvalsh(matrix / np.outer(d, d))[0] > PD_TOLERANCE)


def fit_cfa(data: pd.DataFrame, model: Mapping[str, Sequence[str]]) -> CFAResult:
    """Fit a CFA (ML, latent variances 1, correlated latents) of ``model`` (latent -> indicator columns).

    Rows with a missing value in any indicator are dropped (listwise); ``n`` is the rows used.
    Data-driven problems return a failure result (see module docstring); a model naming columns
    that are absent from ``data`` raises InputError. Estimated by ``cfa_batch`` (numpy; lavaan's numbers to 1e-6 on
    every reference fit of the tests), the estimator the chance simulations fit thousands of data sets with.
    """
    from analysis.methods.values.cfa_batch import fit_cfa_fast

    return fit_cfa_fast(data, model)


def model_frame(data: pd.DataFrame, model: Mapping[str, Sequence[str]]) -> tuple[list, list, pd.DataFrame, list[list[int]]]:
    """(latents, indicator columns, their complete rows as numbers, item indices per latent) of ``model`` in ``data``
    (listwise deletion). A model without latents or naming an absent column is the caller's error (InputError)."""
    if not model:
        raise InputError("CFA model has no latents")
    latents = list(model)
    columns = list(dict.fromkeys(c for items in model.values() for c in items))
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise InputError(f"CFA indicators missing from the data: {', '.join(map(str, missing))}")
    frame = data[columns].apply(pd.to_numeric, errors="coerce").dropna(axis=0, how="any")
    index = {c: j for j, c in enumerate(columns)}
    return latents, columns, frame, [[index[c] for c in model[lat]] for lat in latents]


def fit_cfa_semopy(data: pd.DataFrame, model: Mapping[str, Sequence[str]]) -> CFAResult:
    """``fit_cfa`` estimated by semopy (SLSQP), the estimator before ``cfa_batch``: kept as the tests' independent
    cross-check. Same rules; an exception inside semopy becomes a failure with the exception in the reason."""
    latents, columns, frame, spec = model_frame(data, model)
    n, p = len(frame), len(columns)
    df = p * (p + 1) // 2 - _n_free(model, p)
    few = [str(lat) for lat in latents if len(model[lat]) < 2]
    if few:
        return _failure(n, df, f"fewer than 2 indicators (not identified): {', '.join(few)}")
    if df < 0:
        return _failure(n, df, f"model not identified (df = {df})")
    if n < 2:
        return _failure(n, df, f"too few complete rows (n = {n})")
    x = frame.to_numpy(dtype=float)
    variances = x.var(axis=0)
    constant = [str(c) for c, v in zip(columns, variances) if v <= 1e-12]
    if len(constant) == p:
        return _failure(n, df, "all items constant")
    if constant:
        return _failure(n, df, f"constant items (zero variance): {', '.join(constant)}")
    sample_cov = np.cov(x, rowvar=False, bias=True)
    if not _is_pd(sample_cov):
        return _failure(n, df, "sample covariance not positive definite (collinear items or n ≤ p)")
    index = {c: j for j, c in enumerate(columns)}
    try:
        with _quiet_single_threaded():
            lam, phi, theta, result = _estimate(x, spec)
    except Exception as exc:  # semopy raises bare Exceptions/LinAlgErrors on degenerate data
        return _failure(n, df, f"estimation error: {type(exc).__name__}: {exc}")
    implied = lam @ phi @ lam.T + np.diag(theta)
    # Orient every latent so that its loadings sum to ≥ 0 (the sign of a latent is arbitrary).
    sign = np.where(lam.sum(axis=0) < 0, -1.0, 1.0)
    lam, phi = lam * sign, phi * np.outer(sign, sign)
    sd = np.sqrt(np.clip(np.diag(implied), 1e-300, None))
    loadings = pd.DataFrame(
        [(lat, col, float(lam[index[col], f] / sd[index[col]])) for f, lat in enumerate(latents) for col in model[lat]],
        columns=["latent", "item", "std_loading"],
    )
    correlations = pd.DataFrame(phi, index=latents, columns=latents)
    extra = {"loadings": loadings, "latent_correlations": correlations}
    if not result.success:
        return _failure(n, df, f"no convergence: {result.message}", **extra)
    if not _is_pd(implied):
        return _failure(n, df, "implied covariance not positive definite", **extra)
    off = np.abs(phi[np.triu_indices(len(latents), 1)])
    if off.size and off.max() >= CORRELATION_LIMIT:
        a, b = np.argwhere(np.abs(phi) * (1 - np.eye(len(latents))) == off.max())[0]
        return _failure(n, df, f"latent correlation |r| ≥ 1: {latents[a]}–{latents[b]} r = {phi[a, b]:.4f}", **extra)
    at_bound = [str(c) for c, t, v in zip(columns, theta, variances) if t <= 1e-6 * v]
    note = f"residual variance at 0 (Heywood case): {', '.join(at_bound)}" if at_bound else ""
    ind = fit_indices(sample_cov, implied, n, _n_free(model, p))
    if not all(math.isfinite(v) for v in (ind.chi2, ind.cfi, ind.rmsea, ind.srmr)):
        return _failure(n, df, "non-finite fit statistics", **extra)
    return CFAResult(
        n=n, chi2=ind.chi2, df=ind.df, cfi=ind.cfi, tli=ind.tli, rmsea=ind.rmsea, srmr=ind.srmr,
        converged=True, note=note, chi2_baseline=ind.chi2_baseline, df_baseline=ind.df_baseline, **extra,
    )


# ---------------------------------------------------------------------------------------------
# Magnifying glass
# ---------------------------------------------------------------------------------------------

def magnifying_glass_models(columns: Sequence[str], item_values: Mapping[str, str | None]) -> dict[str, dict[str, list[str]]]:
    """Per group, value -> its item columns (in ``columns`` order); unkeyed items are ignored."""
    out: dict[str, dict[str, list[str]]] = {}
    for group, values in MAGNIFYING_GLASS.items():
        out[group] = {v: [c for c in columns if item_values.get(c) == v] for v in values}
    return out


def fit_magnifying_glass_results(matrix: pd.DataFrame, item_values: Mapping[str, str | None]) -> dict[str, CFAResult]:
    """Fit the four magnifying-glass models on an item matrix (rows personas, columns item_id).

    Listwise deletion is per group (only that group's items count). A value without items in
    the matrix gives a failure (the model cannot be built).
    """
    results: dict[str, CFAResult] = {}
    for group, model in magnifying_glass_models(list(matrix.columns), item_values).items():
        empty = [v for v, items in model.items() if not items]
        if empty:
            present = [c for items in model.values() for c in items]
            n = len(matrix[present].dropna(axis=0, how="any")) if present else len(matrix)
            results[group] = _failure(n, 0, f"no items for: {', '.join(empty)}")
            continue
        results[group] = fit_cfa(matrix, model)
    return results


def cfa_table(results: Mapping[str, CFAResult]) -> pd.DataFrame:
    """One row per group: group, n, chi2, df, cfi, tli, rmsea, srmr, converged, reason."""
    rows = [
        {"group": g, "n": r.n, "chi2": r.chi2, "df": r.df, "cfi": r.cfi, "tli": r.tli, "rmsea": r.rmsea,
         "srmr": r.srmr, "converged": r.converged, "reason": r.reason}
        for g, r in results.items()
    ]
    return pd.DataFrame(rows, columns=FIT_COLUMNS)


def cfa_loadings(results: Mapping[str, CFAResult]) -> pd.DataFrame:
    """Standardised loadings of every group: columns group, latent, item, std_loading."""
    frames = [r.loadings.assign(group=g) for g, r in results.items() if len(r.loadings)]
    if not frames:
        return pd.DataFrame(columns=["group", "latent", "item", "std_loading"])
    return pd.concat(frames, ignore_index=True)[["group", "latent", "item", "std_loading"]]


def failed_reason(table: pd.DataFrame) -> str:
    """Why the context's mean fit is undefined: each failed group with its reason ("" when every group fitted)."""
    if table.empty:
        return "no CFA model could be built"
    failed = table[~table["converged"].astype(bool)]
    return "; ".join(f"{g} did not fit: {r or 'failed'}" for g, r in zip(failed["group"], failed["reason"]))


def context_cfa_summary(table: pd.DataFrame) -> dict[str, float]:
    """Mean CFI, TLI, RMSEA, SRMR over the groups of ``cfa_table``; all NaN (undefined, ``failed_reason`` says why)
    when a group failed, for a failed fit has no index to average (the leaderboard scores it, in its columns only)."""
    if failed_reason(table):
        return dict.fromkeys(INDICES, math.nan)
    return {k: float(table[k].mean()) for k in INDICES}
