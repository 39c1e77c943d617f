"""The CFA model both estimators fit (``cfa.fit_cfa_semopy`` and ``cfa_batch``, behind ``cfa.fit_cfa``): its layout in
the data (``model_frame``), its free parameters, the result of a fit (``CFAResult``, ``_failure``) and the fit indices.

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

Pure functions: no store, no LLM.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analysis.errors import InputError

#: The four fit indices of a model (NaN, i.e. undefined, for a failed fit).
INDICES = ("cfi", "tli", "rmsea", "srmr")

#: |latent correlation| at or above this counts as ≥ 1 (tolerance for the optimiser's precision).
CORRELATION_LIMIT = 1.0 - 1e-6

#: Smallest eigenvalue of a correlation matrix still counted as positive definite.
PD_TOLERANCE = 1e-10


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


#: What a fit index above 1 is shown as (the TLI is not capped: on few personas it reaches 1.5).
def _failure(n: int, df: int, reason: str, **extra: object) -> CFAResult:
    undefined = dict.fromkeys(INDICES, math.nan)
    return CFAResult(n=n, chi2=math.nan, df=df, converged=False, reason=reason, **undefined, **extra)


def _n_free(model: Mapping[str, Sequence[str]], p: int) -> int:
    """Free parameters: one loading per (latent, indicator), p residual variances, k(k−1)/2 correlations."""
    k = len(model)
    return sum(len(items) for items in model.values()) + p + k * (k - 1) // 2


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
