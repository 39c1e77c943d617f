"""The inventory's psychometrics, pure functions on arrays (Serapio-García et al. 2023, Sec. "Reliability",
"Construct validity", "Shaping"). Each returns NaN when undefined; ``why_*`` say why.

- α (Cronbach 1951) and ω_t (McDonald; one factor, minres) per domain over the answer sheets (units) as R ``psych``
  computes them: ``analysis.reliability.cronbach_alpha`` / ``omega_fit``. ω is taken with the inventory's key
  imposed (``psych::omega(..., flip = FALSE)``): an item still running against its scale lowers it; the items psych's
  default would flip are the keying diagnostic (``omega_keyed``, ``against_key``).
- λ6 (Guttman 1945) as ``psych::alpha``'s ``G6(smc)``: λ6 = 1 − Σ_j (1 − SMC_j) / Σ_jk R_jk, R the item correlation
  matrix and SMC_j the squared multiple correlation of item j on the others (1 − 1/(R⁻¹)_jj).
- R, for ω and λ6 alike, is the pairwise-complete correlation matrix (``correlations``), as psych takes it from raw
  data (``omega``: ``cor(m, use = "pairwise")``; ``alpha``: ``cov(x, use = "pairwise")`` turned into correlations): a
  sheet with a missing answer still counts in the pairs it answered. The two differ with missing answers: ω's r_jk
  has the SDs of the sheets answering both j and k, λ6's the SDs of all sheets answering each item
  (``analysis.reliability.pairwise_covariance_correlations``); on complete data both are the rows' correlations. Where that matrix does not exist (a pair of items
  no ≥ 3 sheets answered together) or is not positive semi-definite, both are undefined with that reason
  (``analysis.reliability.why_pairwise_undefined``). ``complete_sheets`` counts the sheets with every item answered.
- test–retest: Pearson r across personas of the domain score in ascending against descending option order.
- shaping (single trait): for the personas shaped on domain d, Spearman ρ(target level, d's score); off-target drift:
  the mean over the other domains e of |ρ(target level of d, e's score)| (0 = shaping d moves nothing else).
- shaping effect (Cohen's d): for the personas with a target level on domain d, (mean score of those shaped high,
  level > 5) − (mean of those shaped low, level < 5), over the pooled SD ((n₁−1)s₁² + (n₂−1)s₂²)/(n₁+n₂−2) (Cohen 1988;
  ``pingouin.compute_effsize(eftype="cohen")``), with its 95 % CI d ± t(n₁+n₂−2) · √((n₁+n₂)/(n₁n₂) + d²/(2(n₁+n₂)))
  (``pingouin.compute_esci``, R ``effsize::cohen.d(noncentral=FALSE)``); PersonaLLM's (Jiang et al. 2024) per-trait
  effect of its high and low persona types.
- MTMM (Campbell & Fiske 1959): Pearson r across personas between every (inventory, domain) score pair of two
  inventories; convergent validity = mean r of the same domain across inventories; discriminant Δ = convergent − mean
  |r| of different domains across inventories (the paper's summary: convergent r well above the others).
- position bias: the share of valid answers giving each number 1..k (k options: 1/k each if position did not matter)
  and the mean |ascending − descending| domain score of a persona.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from analysis.reliability import (
    MIN_UNITS,
    cronbach_alpha,
    omega_fit,
    pairwise_correlations,
    pairwise_covariance_correlations,
    why_alpha_undefined,
    why_pairwise_undefined,
)


def domain_items(X: np.ndarray, mask: np.ndarray) -> pd.DataFrame:
    """Units (sheets: persona × order) × the domain's items, keyed scores."""
    cols = X[:, :, mask]
    return pd.DataFrame(cols.reshape(-1, cols.shape[2]))


def alpha(frame: pd.DataFrame) -> tuple[float, str | None]:
    """Cronbach's α (``analysis.reliability.cronbach_alpha``) or why it is undefined; complete frames (no missing
    answer) take the same formula in numpy, the chance draws' hot path (many small frames per draw)."""
    X = frame.to_numpy(dtype=float)
    n, k = X.shape
    if k >= 2 and n >= MIN_UNITS and not np.isnan(X).any():
        if np.ptp(X.sum(axis=1)) == 0:
            return float("nan"), "the total score has no variance"
        C = np.cov(X, rowvar=False)
        return float(k / (k - 1) * (1 - np.trace(C) / C.sum())), None
    why = why_alpha_undefined(frame)
    return (float("nan"), why) if why else (cronbach_alpha(frame), None)


SINGULAR = "the items' correlation matrix is singular (items answered in lockstep, e.g. by position)"


def correlations(frame: pd.DataFrame) -> np.ndarray:
    """The item correlation matrix of pairwise-complete sheets, psych's ``cor(x, use = "pairwise")``
    (``analysis.reliability.pairwise_correlations``; on complete data, that of the rows)."""
    return pairwise_correlations(frame)


def complete_sheets(frame: pd.DataFrame) -> int:
    """The sheets (rows) of ``frame`` with every item answered: what listwise deletion would keep of the rows ω and
    λ6 are computed on pairwise."""
    return int(frame.notna().all(axis=1).sum())


def singular(R: np.ndarray) -> bool:
    """Whether an item correlation matrix is rank-deficient (ω's factor fit and λ6's SMCs need its inverse; psych
    then only warns and prints numbers outside [0, 1])."""
    return bool(np.linalg.matrix_rank(R, tol=1e-10) < R.shape[0])


def omega(frame: pd.DataFrame) -> tuple[float, str | None]:
    """ω_t of keyed items with the key imposed (``omega_keyed``)."""
    value, why, _ = omega_keyed(frame)
    return value, why


def omega_keyed(frame: pd.DataFrame) -> tuple[float, str | None, np.ndarray]:
    """(ω_t, why undefined, the one-factor loadings λ) of ``frame`` (sheets × a domain's keyed items).

    ω_t as ``psych::omega(x, nfactors = 1, flip = FALSE)$omega.tot`` (``analysis.reliability.omega_fit``): the
    inventory's key is imposed and nothing is flipped, so an item that still correlates negatively with its scale
    after keying lowers ω, as it lowers α. psych's default ``flip = TRUE`` would reverse it and report a high ω on the
    same data. The items it would reverse are those with λ < 0 (factor oriented Σλ ≥ 0), the keying diagnostic
    (``against_key``): on well-keyed items there is none and the two ω are equal. λ is empty when no factor was fit."""
    why = why_pairwise_undefined(frame, min_items=3) or (SINGULAR if singular(correlations(frame)) else None)
    if why:
        return float("nan"), why, np.empty(0)
    value, lam = omega_fit(frame, flip=False)
    if not len(lam):
        return value, "the one-factor solution failed", lam
    if not np.isfinite(value):
        return value, "the keyed items cancel out (their correlations sum to ≤ 0): items run against the key", lam
    return value, None, lam


def against_key(loadings: np.ndarray) -> list[int]:
    """Positions of the items loading negatively on their keyed scale's factor (``omega_keyed``'s λ)."""
    return [k for k, v in enumerate(loadings) if v < 0]


def lambda6(frame: pd.DataFrame) -> tuple[float, str | None]:
    """Guttman's λ6 on the pairwise-complete correlations (module docstring), as ``psych::alpha(x)$total$"G6(smc)"``
    (``alpha``'s default ``use = "pairwise"``)."""
    why = why_pairwise_undefined(frame, min_items=2, correlate=pairwise_covariance_correlations)
    if why:
        return float("nan"), why
    R = pairwise_covariance_correlations(frame)
    if singular(R):
        return float("nan"), SINGULAR
    inv = np.linalg.inv(R)
    with np.errstate(divide="ignore", invalid="ignore"):
        smc = 1 - 1 / np.diag(inv)
        value = 1 - (1 - smc).sum() / R.sum()
    if not np.isfinite(value):
        return float("nan"), "the item correlation matrix is singular"
    return float(value), None


def pearson(x: np.ndarray, y: np.ndarray) -> tuple[float, str | None]:
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < MIN_UNITS:
        return float("nan"), f"needs ≥ {MIN_UNITS} personas scored in both, has {int(ok.sum())}"
    if np.std(x[ok]) == 0 or np.std(y[ok]) == 0:
        return float("nan"), "a score has no variance across personas"
    return float(np.corrcoef(x[ok], y[ok])[0, 1]), None


def spearman(x: np.ndarray, y: np.ndarray) -> tuple[float, str | None]:
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < MIN_UNITS:
        return float("nan"), f"needs ≥ {MIN_UNITS} shaped personas with a score, has {int(ok.sum())}"
    if len(set(x[ok])) < 2:
        return float("nan"), "needs ≥ 2 target levels"
    if np.std(y[ok]) == 0:
        return float("nan"), "the score has no variance across personas"
    return float(spearmanr(x[ok], y[ok]).statistic), None


def shaping(levels: np.ndarray, scores: dict[str, np.ndarray], domain: str) -> dict[str, tuple[float, str | None]]:
    """ρ(target level of ``domain``, its score) and the off-target drift, over the personas shaped on ``domain``
    (``levels`` NaN elsewhere)."""
    rho = spearman(levels, scores[domain])
    others = [spearman(levels, scores[e]) for e in scores if e != domain]
    defined = [abs(r) for r, _ in others if np.isfinite(r)]
    drift = (float(np.mean(defined)), None) if defined else (
        float("nan"), others[0][1] if others else "no other domain is scored")
    return {"rho": rho, "drift": drift}


#: A target level above this is the domain's high pole, below it the low pole (the nine-level scale's middle).
MIDDLE_LEVEL = 5


def shaping_groups(levels: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The scores of the personas shaped high and low on a domain (a score and a level both defined)."""
    ok = np.isfinite(levels) & np.isfinite(score)
    return score[ok & (levels > MIDDLE_LEVEL)], score[ok & (levels < MIDDLE_LEVEL)]


def shaping_d(levels: np.ndarray, score: np.ndarray) -> tuple[float, str | None]:
    """Cohen's d of the score, shaped high against shaped low (module docstring)."""
    from pingouin import compute_effsize

    high, low = shaping_groups(levels, score)
    if len(high) < 2 or len(low) < 2:
        return float("nan"), f"needs ≥ 2 personas shaped high and ≥ 2 shaped low, has {len(high)} and {len(low)}"
    if np.var(np.concatenate([high - high.mean(), low - low.mean()])) == 0:
        return float("nan"), "no variance within the high and low groups"
    return float(compute_effsize(high, low, paired=False, eftype="cohen")), None


def shaping_d_ci(d: float, n_high: int, n_low: int, confidence: float = 0.95) -> tuple[float, float]:
    """The CI of an unpaired Cohen's d (module docstring)."""
    from pingouin import compute_esci

    lo, hi = compute_esci(stat=d, nx=n_high, ny=n_low, paired=False, eftype="cohen", confidence=confidence, decimals=15)
    return float(lo), float(hi)


def mtmm(scores: dict[str, dict[str, np.ndarray]]) -> tuple[pd.DataFrame, float, float, str | None]:
    """The correlation matrix of (inventory · domain) persona scores (personas aligned across inventories), the
    convergent mean r and the discriminant Δ (module docstring)."""
    names = list(scores)
    columns = {f"{inv} · {d}": v for inv in names for d, v in scores[inv].items()}
    frame = pd.DataFrame(columns)
    R = frame.corr()
    if len(names) < 2:
        return R, float("nan"), float("nan"), "needs two inventories given to the same personas"
    if frame.dropna().shape[0] < MIN_UNITS:
        return R, float("nan"), float("nan"), f"needs ≥ {MIN_UNITS} personas scored on both inventories"
    a, b = names[:2]
    conv = list(convergent_domains(R, scores, a, b).values())
    disc = [abs(R.loc[f"{a} · {d}", f"{b} · {e}"]) for d in scores[a] for e in scores[b] if d != e]
    conv = [c for c in conv if np.isfinite(c)]
    disc = [c for c in disc if np.isfinite(c)]
    if not conv:
        return R, float("nan"), float("nan"), "no domain shared by both inventories has variance"
    c = float(np.mean(conv))
    return R, c, (c - float(np.mean(disc))) if disc else float("nan"), None


def convergent_domains(R: pd.DataFrame, scores: dict[str, dict[str, np.ndarray]], a: str, b: str) -> dict[str, float]:
    """Per domain both inventories ``a`` and ``b`` score, the r of its two scores (an entry of the MTMM matrix ``R``:
    the domain's convergent validity)."""
    return {d: float(R.loc[f"{a} · {d}", f"{b} · {d}"]) for d in scores[a] if d in scores[b]}


def position_shares(number: np.ndarray, k: int) -> dict[int, float]:
    """Share of the valid answers giving each number 1..k."""
    given = number[np.isfinite(number)]
    return {n: float((given == n).mean()) if len(given) else float("nan") for n in range(1, k + 1)}
