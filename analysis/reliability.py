"""Reliability of a score: internal consistency (α, ω), agreement (ICC), test–retest and split-half.

Pure functions on DataFrames (rows = units such as personas or testings, columns = items / raters / occasions),
method-free. Each returns NaN when the number is undefined (too few units or items, no variance); callers show
that as "—" with the reason from ``why_undefined``.

- ``cronbach_alpha``: α = k/(k−1) · (1 − Σ s²_i / s²_total) (Cronbach 1951), computed as
  ``pingouin.cronbach_alpha`` computes it (pairwise deletion of missing answers, as the Stick to Your Role! reference
  code calls it; bit-identical, tested); equals R ``psych::alpha(x)$total$raw_alpha`` on complete data.
- ``omega_total``: McDonald's ω_t of a one-factor model as ``psych::omega(x, nfactors = 1)$omega.tot`` computes
  it: ω_t = 1 − Σ u²_i / Σ_ij k_i k_j R_ij, with R the item correlation matrix of pairwise-complete answers
  (``pairwise_correlations``: psych's ``cor(x, use = "pairwise")``), u² = 1 − λ² the uniquenesses of a
  minimum-residual (``fm = "minres"``) one-factor solution (Revelle & Zinbarg 2009) and k_i = sign(λ_i): items that
  load negatively are reverse-keyed, as psych's default ``flip = TRUE`` does; ``flip=False`` (psych ``flip = FALSE``)
  keeps k_i = 1, for items already keyed (the inventory's ω); ``omega_fit`` also returns the loadings, whose
  negative entries are the items a flip would reverse.
- ``icc``: intraclass correlations (Shrout & Fleiss 1979) by ``pingouin.intraclass_corr``; ICC2 (two-way random,
  absolute agreement, single rater) is the headline for judges and repeated runs.
- ``test_retest``: Pearson correlation of the same units' scores on two occasions.
- ``spearman_brown``: the full-length reliability 2r / (1 + r) of a split-half correlation r.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy.optimize import minimize

MIN_UNITS = 3


def why_undefined(frame: pd.DataFrame, *, min_items: int = 2) -> str | None:
    """Why a reliability of ``frame`` (units × items) cannot be computed, or None when it can."""
    complete = frame.dropna()
    if frame.shape[1] < min_items:
        return f"needs ≥ {min_items} items, has {frame.shape[1]}"
    if len(complete) < MIN_UNITS:
        return f"needs ≥ {MIN_UNITS} units with every item answered, has {len(complete)}"
    if (complete.std(ddof=1) == 0).any():
        return "an item has no variance"
    return None


def why_alpha_undefined(frame: pd.DataFrame) -> str | None:
    """Why Cronbach's α of ``frame`` cannot be computed, or None. An item without variance does not make it undefined
    (α = k/(k−1)·(1 − Σσ²ᵢ/σ²ₜₒₜₐₗ) holds, and pingouin, which the reference calls, computes it); a total score
    without variance does."""
    complete = frame.dropna()
    if frame.shape[1] < 2:
        return f"needs ≥ 2 items, has {frame.shape[1]}"
    if len(complete) < MIN_UNITS:
        return f"needs ≥ {MIN_UNITS} units with every item answered, has {len(complete)}"
    if complete.astype(float).sum(axis=1).std(ddof=1) == 0:
        return "the total score has no variance"
    return None


def pairwise_counts(frame: pd.DataFrame) -> np.ndarray:
    """n_jk: the units answering both items j and k (n_jj: those answering item j)."""
    answered = frame.notna().to_numpy(dtype=float)
    return (answered.T @ answered).astype(int)


def pairwise_correlations(frame: pd.DataFrame) -> np.ndarray:
    """The item correlation matrix as psych takes it from raw data, ``cor(x, use = "pairwise")``: r_jk the Pearson r
    over the units answering both j and k (each pair its own means and SDs; R's ``pairwise.complete.obs``, pandas'
    ``DataFrame.corr``). On complete data the correlation matrix of the rows (``np.corrcoef``, as before)."""
    if not frame.isna().to_numpy().any():
        return np.corrcoef(frame.to_numpy(dtype=float), rowvar=False)
    return frame.astype(float).corr(method="pearson", min_periods=1).to_numpy()


def pairwise_covariance_correlations(frame: pd.DataFrame) -> np.ndarray:
    """The correlations ``psych::alpha`` takes from raw data (its λ6, ``G6(smc)``): ``cov2cor(cov(x, use =
    "pairwise"))``, r_jk = C_jk / √(C_jj C_kk) with C_jk the covariance over the units answering both j and k and C_jj
    item j's variance over all units answering it (``DataFrame.cov``). On complete data the same as
    ``pairwise_correlations``; with missing answers not (each pair's SDs there are over the pair's own units)."""
    if not frame.isna().to_numpy().any():
        return np.corrcoef(frame.to_numpy(dtype=float), rowvar=False)
    C = frame.astype(float).cov().to_numpy()
    sd = np.sqrt(np.diag(C))
    with np.errstate(divide="ignore", invalid="ignore"):
        return C / np.outer(sd, sd)


#: The smallest eigenvalue below which a correlation matrix counts as not positive semi-definite (rounding aside).
PSD_TOLERANCE = -1e-10


def why_pairwise_undefined(frame: pd.DataFrame, *, min_items: int = 2,
                           correlate: Callable[[pd.DataFrame], np.ndarray] = pairwise_correlations) -> str | None:
    """Why a number of ``frame``'s pairwise-complete correlation matrix (``correlate``: ``pairwise_correlations`` for
    ω, ``pairwise_covariance_correlations`` for λ6) cannot be computed, or None.

    Every pair of items needs ≥ ``MIN_UNITS`` units answering both (a pair answered together by no unit has no
    correlation at all; by 2, r = ±1 whatever they answered), a correlation over them (each item varies there), and
    the matrix so assembled must be positive semi-definite: pairs taken from different subsets of units can combine
    into correlations no data set has (psych then warns and its factor fit goes astray; here it is refused)."""
    if frame.shape[1] < min_items:
        return f"needs ≥ {min_items} items, has {frame.shape[1]}"
    counts = pairwise_counts(frame)
    names = [str(c) for c in frame.columns]
    j, k = np.unravel_index(np.argmin(counts), counts.shape)
    if counts[j, k] < MIN_UNITS:
        pair = f"item {names[j]}" if j == k else f"items {names[j]} and {names[k]}"
        return f"needs ≥ {MIN_UNITS} units answering {pair}, has {counts[j, k]}"
    if (frame.std(ddof=1) == 0).any():
        return "an item has no variance"
    R = correlate(frame)
    if not np.isfinite(R).all():
        j, k = np.argwhere(~np.isfinite(R))[0]
        return f"items {names[j]} and {names[k]} have no correlation: one does not vary over the units answering both"
    smallest = float(np.linalg.eigvalsh(R)[0])
    if smallest < PSD_TOLERANCE:
        return (f"the pairwise correlation matrix is not positive semi-definite (smallest eigenvalue {smallest:.3g}): "
                "the pairs' different units give correlations no one set of answers has")
    return None


def cronbach_alpha(frame: pd.DataFrame) -> float:
    """Cronbach's α of ``frame`` (units × items; NaN = missing, pairwise deletion), as ``pingouin.cronbach_alpha``
    computes it (the reference calls it): α = k/(k−1)·(1 − tr C / Σ_ij C_ij), C the pairwise-complete covariance
    (``DataFrame.cov``, n − 1). Its two lines, not the call: importing pingouin loads matplotlib (~0.6 s, ~40 MiB) for
    nothing a report draws; the tests compare the two."""
    if why_alpha_undefined(frame) is not None:
        return float("nan")
    C = frame.astype(float).cov()
    k = frame.shape[1]
    return float((k / (k - 1)) * (1 - np.trace(C) / C.sum().sum()))


def _minres_loadings(R: np.ndarray) -> np.ndarray:
    """Loadings λ of the one-factor minres solution: minimise the off-diagonal residual sum of squares of R − λλᵀ
    over u² ∈ [0.005, 1], λ from the leading eigenpair of R − diag(u²) (psych's ``fa``, fm = "minres"). Oriented as
    ``fa`` orients a factor: Σλ ≥ 0."""
    p = R.shape[0]
    off = ~np.eye(p, dtype=bool)

    def loadings(u2: np.ndarray) -> np.ndarray:
        values, vectors = np.linalg.eigh(R - np.diag(u2))
        return vectors[:, -1] * np.sqrt(max(values[-1], 0.0))

    def residual(u2: np.ndarray) -> float:
        lam = loadings(u2)
        return float(((R - np.outer(lam, lam))[off] ** 2).sum())

    start = 1 - 1 / np.diag(np.linalg.pinv(R))  # squared multiple correlations (psych's starting values)
    result = minimize(residual, np.clip(1 - start, 0.005, 1), method="L-BFGS-B", bounds=[(0.005, 1.0)] * p,
                      options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10_000})
    lam = loadings(result.x)
    return -lam if lam.sum() < 0 else lam


def omega_fit(frame: pd.DataFrame, *, flip: bool = True) -> tuple[float, np.ndarray]:
    """McDonald's ω_t (one factor, minres) and the loadings λ of that factor (oriented Σλ ≥ 0, as ``fa`` orients it),
    as ``psych::omega(x, nfactors = 1, flip = flip)`` computes them: on the pairwise-complete correlation matrix
    (``pairwise_correlations``; psych's ``omegah`` takes ``cor(m, use = "pairwise")`` of raw data), so a unit with a
    missing answer still counts in the pairs it answered. NaN and no loadings when undefined
    (``why_pairwise_undefined``).

    ω_t = 1 − Σ u²_i / Σ_ij k_i k_j R_ij (``psych:::omegah``: ``omega.tot <- (Vt - sum(u2)) / Vt``, Vt the sum of the
    keyed correlation matrix), u² = 1 − λ² the uniquenesses. With ``flip`` (psych's default) k_i = sign(λ_i) (0 counts
    as +1): items that load negatively are reverse-keyed first (``key <- sign(gload)``; ``m <- diag(key) %*% m %*%
    diag(key)``). Without it k_i = 1: the items are taken as keyed, a negatively loading item lowers ω instead of being
    turned round. NaN when Vt ≤ 0 (the keyed items cancel out)."""
    if why_pairwise_undefined(frame, min_items=3) is not None:
        return float("nan"), np.empty(0)
    R = pairwise_correlations(frame)
    lam = _minres_loadings(R)
    key = np.where(lam < 0, -1.0, 1.0) if flip else np.ones(len(lam))
    total = float(key @ R @ key)
    if total <= 0:
        return float("nan"), lam
    return float(1 - (1 - lam ** 2).sum() / total), lam


def omega_total(frame: pd.DataFrame, *, flip: bool = True) -> float:
    """McDonald's ω_t, as ``psych::omega(x, nfactors = 1, flip = flip)$omega.tot`` (``omega_fit``).

    ``flip = True`` (psych's default) reverse-keys the items that load negatively; ``flip = False`` keeps every item
    as given, so a keyed item that still runs against the others (a model agreeing with both "Am quiet" and "Am
    talkative") lowers ω as it lowers α. Flipping leaves the uniquenesses u² = 1 − λ² unchanged and only turns the
    sign of the correlations between a reversed and a kept item."""
    return omega_fit(frame, flip=flip)[0]


def icc(frame: pd.DataFrame) -> pd.DataFrame:
    """All six ICCs of ``frame`` (units × raters, complete rows) as pingouin reports them (columns Type, ICC,
    CI95%, ...); empty when undefined."""
    import pingouin as pg

    complete = frame.dropna()
    if len(complete) < MIN_UNITS or complete.shape[1] < 2 or complete.to_numpy().std() == 0:
        return pd.DataFrame(columns=["Type", "ICC"])  # every rating equal: agreement is undefined, not perfect
    long = complete.reset_index(drop=True).rename_axis("unit").reset_index().melt(id_vars="unit", var_name="rater", value_name="score")
    long["rater"] = long["rater"].astype(str)
    return pg.intraclass_corr(data=long, targets="unit", raters="rater", ratings="score")


def icc2(frame: pd.DataFrame) -> float:
    """ICC(2,1): two-way random effects, absolute agreement, single rater (NaN when undefined)."""
    table = icc(frame)
    row = table[table["Type"].isin(["ICC2", "ICC(A,1)"])]  # pingouin < 0.6 and ≥ 0.6 labels
    return float(row["ICC"].iloc[0]) if len(row) else float("nan")


def test_retest(first: pd.Series, second: pd.Series) -> float:
    """Pearson r of the units present (and finite) on both occasions; NaN with < 3 or no variance."""
    both = pd.concat([first, second], axis=1, join="inner").dropna()
    if len(both) < MIN_UNITS or (both.std(ddof=1) == 0).any():
        return float("nan")
    return float(np.corrcoef(both.iloc[:, 0], both.iloc[:, 1])[0, 1])


def spearman_brown(r: float) -> float:
    """Full-length reliability of a split-half correlation r: 2r / (1 + r) (Spearman 1910; Brown 1910)."""
    return float("nan") if not np.isfinite(r) or r <= -1 else 2 * r / (1 + r)
