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

Fit indices: lavaan 0.6's, from the sample and the model-implied covariance (``cfa_model``, with the formulas; the
result, the failure result and the model's layout shared by both estimators live there too).

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
from functools import lru_cache

import numpy as np
import pandas as pd

from analysis.methods.values.cfa_batch import fit_cfa_fast
from analysis.methods.values.report_types import CFA_MIN_PERSONAS as MIN_PERSONAS
from analysis.methods.values.cfa_model import (
    CORRELATION_LIMIT,
    INDICES,
    PD_TOLERANCE,
    CFAResult,
    _failure,
    _n_free,
    fit_indices,
    model_frame,
)

#: The magnifying-glass models: higher-order value -> its basic values (the latents).
MAGNIFYING_GLASS: dict[str, tuple[str, ...]] = {
    "Conservation": ("Security", "Conformity", "Tradition"),
    "Openness to change": ("Self-Direction", "Stimulation", "Hedonism"),
    "Self-transcendence": ("Benevolence", "Universalism"),
    "Self-enhancement": ("Achievement", "Power"),
}

FIT_COLUMNS = ["group", "n", "chi2", "df", "cfi", "tli", "rmsea", "srmr", "converged", "reason"]



def too_few_personas(n: int) -> str:
    """The reason a model fitted on ``n`` personas is not reported ("" when n ≥ ``MIN_PERSONAS``)."""
    return f"needs ≥ {MIN_PERSONAS} personas answering every item of the model, has {n}" if n < MIN_PERSONAS else ""


# ---------------------------------------------------------------------------------------------
# Estimation
# ---------------------------------------------------------------------------------------------

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
    return fit_cfa_fast(data, model)


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
    the matrix gives a failure (the model cannot be built); a group with fewer than ``MIN_PERSONAS`` complete
    personas is not fitted (no indices, ``too_few_personas`` the reason).
    """
    results: dict[str, CFAResult] = {}
    for group, model in magnifying_glass_models(list(matrix.columns), item_values).items():
        empty = [v for v, items in model.items() if not items]
        present = [c for items in model.values() for c in items]
        n = len(matrix[present].dropna(axis=0, how="any")) if present else len(matrix)
        if empty:
            results[group] = _failure(n, 0, f"no items for: {', '.join(empty)}")
            continue
        if too_few_personas(n):
            p = len(dict.fromkeys(present))
            results[group] = _failure(n, p * (p + 1) // 2 - _n_free(model, p), too_few_personas(n))
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
    """Why the context's mean fit is undefined: each failed group with its reason, a group with too few personas as
    not fitted ("" when every group fitted)."""
    if table.empty:
        return "no CFA model could be built"
    failed = table[~table["converged"].astype(bool)]
    return "; ".join(f"{g} {'not fitted' if too_few_personas(int(n)) else 'did not fit'}: {r or 'failed'}"
                     for g, n, r in zip(failed["group"], failed["n"], failed["reason"]))


def not_fitted(groups: Mapping[str, Mapping[str, object]]) -> bool:
    """Whether a context's CFA groups (the report's ``contexts[ctx]["cfa"]``) include one not fitted for too few
    personas: its fit was never possible, so it has not *failed* (the leaderboard's failure score does not apply)."""
    return any(not g.get("converged") and too_few_personas(int(g.get("n") or 0)) for g in groups.values())


def context_cfa_summary(table: pd.DataFrame) -> dict[str, float]:
    """Mean CFI, TLI, RMSEA, SRMR over the groups of ``cfa_table``; all NaN (undefined, ``failed_reason`` says why)
    when a group failed, for a failed fit has no index to average (the leaderboard scores it, in its columns only)."""
    if failed_reason(table):
        return dict.fromkeys(INDICES, math.nan)
    return {k: float(table[k].mean()) for k in INDICES}
