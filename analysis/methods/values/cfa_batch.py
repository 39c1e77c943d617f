"""Batched maximum-likelihood CFA in numpy: B data sets of one model fitted at once, as ``cfa.fit_cfa`` fits one.

The model and the fit indices are those of ``analysis.methods.values.cfa`` (see its docstring): Σ(ϑ) = ΛΦΛᵀ + Θ with
each item loading on the latents that list it (``spec``: item columns per latent), every latent variance fixed to 1
(lavaan ``std.lv=TRUE``), free latent correlations, and a diagonal Θ of residual variances bounded below by 0
(lavaan ``bounds="pos.var"``, semopy's bound). The parameter vector ϑ is ordered: loadings (latent by latent, in
``spec`` order), latent correlations φ_ab (a < b, row-major), residual variances θ_0 … θ_{p−1}.

Estimation minimises the ML discrepancy (Jöreskog 1969; lavaan's 2·fmin)

    F(ϑ) = log|Σ(ϑ)| + tr(S Σ(ϑ)⁻¹) − log|S| − p,     S = covariance of the complete rows, divisor n,

by Fisher scoring for covariance structures (Lee & Jennrich 1979): with W = Σ⁻¹ and Σ_k = ∂Σ/∂ϑ_k,

    gradient     g_k  = tr(W (Σ − S) W Σ_k),
    information  I_kl = tr(W Σ_k W Σ_l)      (the expected Hessian of F; the exact one at S = Σ),
    step         d    = −I⁻¹ g  on the free parameters,

vectorised over the batch (arrays shaped (B, …), ``np.linalg`` on stacks). Every Σ_k has the form
P_k Q_kᵀ + Q_k P_kᵀ (``_derivative_vectors``): a loading λ_jf gives P = e_j, Q = (ΛΦ)_{·f}; a correlation φ_ab
gives P = Λ_{·a}, Q = Λ_{·b}; a residual variance θ_j gives P = e_j, Q = e_j / 2. Hence with the blocks
A = PᵀWP, C = QᵀWQ, M = PᵀWQ, E = W(Σ − S)W:

    g_k = 2 P_kᵀ E Q_k,        I = 2 (A ∘ C + M ∘ Mᵀ)        (∘ elementwise; ``score_and_information``).

A backtracking (Armijo) line search makes F decrease at every accepted step. The bound θ_j ≥ 0 is kept by an
active set (a θ_j at 0 whose gradient is positive, i.e. pushes it below 0, stays fixed at 0 for the step) and by
projection (a step that would carry θ_j below 0 stops it at 0); the projected path is a descent direction, so
the backtracking always finds a decrease unless the point is already optimal to rounding. A data set has
converged when its largest projected gradient is below ``GRADIENT_TOL`` or an accepted step changed F by less
than ``F_TOL``·(1 + F); from then on it no longer changes while the others iterate (at most ``MAX_ITER``).
Starting values are semopy's in ``cfa._estimate``: loadings = first principal component of each latent's items'
covariance (``cfa._start_loadings``), θ_j = s_jj / 2, latent correlations 0.

The failure rules and their reason texts are those of ``cfa.fit_cfa``; the fit indices reuse its formulas
(``cfi_index``, ``tli_index``, ``rmsea_index`` per data set; χ², the baseline χ², SRMR and the positive-definite
test vectorised here with the same definitions as ``ml_discrepancy``, ``baseline_chi2``, ``srmr_index``, ``_is_pd``).
A failed fit has NaN χ² and indices (undefined, never 0); a Heywood case (θ_j ≤ 1e-6·s_jj) is a valid fit with a note.

Public functions: ``fit_covariances`` (stack of sample covariances), ``fit_cfa_batch`` (stack of raw data sets)
and ``fit_cfa_fast`` (a drop-in for ``cfa.fit_cfa`` on one DataFrame).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

try:  # the batched gufuncs behind np.linalg: a failed Cholesky gives NaN for that matrix instead of raising
    from numpy.linalg import _umath_linalg
except ImportError:  # pragma: no cover
    _umath_linalg = None

from analysis.errors import InputError
from analysis.methods.values.cfa import (
    CORRELATION_LIMIT,
    PD_TOLERANCE,
    CFAResult,
    _failure,
    _n_free,
    cfi_index,
    rmsea_index,
    tli_index,
)

#: Converged when max |projected gradient of F| is below this.
GRADIENT_TOL = 1e-8
#: Iterations at most (a data set still moving after them has not converged).
MAX_ITER = 200
#: A step is taken when F falls by at least this fraction of the decrease the quadratic model predicts.
ARMIJO = 1e-4
#: Damping μ at the start (short gradient steps first), its floor when raised, and its ceiling (no step found).
MU_START = 10.0
MU_MIN = 1e-6
MU_SHRINK = 1.0 / 3.0
MU_MAX = 1e12
#: A data set where no step lowers F has converged (to rounding) if its projected gradient is below this.
STALL_GRADIENT_TOL = 1e-6
#: A latent correlation beyond this is running off to infinity (loadings → 0, |φ| → ∞; no minimum): stop there.
DIVERGED_CORRELATION = 3.0
#: Variance at or below which an item counts as constant (as ``cfa.fit_cfa``).
CONSTANT_VARIANCE = 1e-12
#: A residual variance at or below this fraction of the item's variance is a Heywood case (as ``cfa.fit_cfa``).
HEYWOOD_FRACTION = 1e-6
TRUNCATE = True


# ---------------------------------------------------------------------------------------------
# Model layout
# ---------------------------------------------------------------------------------------------

#: Kinds of the vectors P_k, Q_k in ∂Σ/∂ϑ_k = P_k Q_kᵀ + Q_k P_kᵀ: a unit vector e_j, a column of ΛΦ, a column of Λ.
_UNIT, _LAMPHI, _LAM = 0, 1, 2


@dataclass(frozen=True, eq=False)
class Layout:
    """Where each free parameter of a model lives (``model_layout``), and where the bilinear forms of its
    derivative vectors sit in a data set's ``_pool`` (see ``derivatives``)."""

    p: int
    k: int
    #: Per loading: its item (row of Λ) and latent (column of Λ).
    load_item: np.ndarray
    load_latent: np.ndarray
    #: Per latent correlation φ_ab (a < b): a and b.
    pair_a: np.ndarray
    pair_b: np.ndarray
    #: (q, q) positions in the pool of P_kᵀXP_l, P_kᵀXQ_l, Q_kᵀXQ_l and their factors (1, ½ or ¼).
    pp: np.ndarray
    pq: np.ndarray
    qq: np.ndarray
    pp_coef: np.ndarray | None
    pq_coef: np.ndarray | None
    qq_coef: np.ndarray | None
    #: (n_load, n_load) positions of X_jj' for the loading pairs; (n_load, n_pair) positions of (XΛ)_jc with
    #: c the other latent of the pair when the loading's latent is one of the pair (mask ``cross_mask``).
    load_load: np.ndarray
    cross: np.ndarray
    cross_mask: np.ndarray
    #: Length of a data set's pool (``_pool_offsets``).
    pool_size: int

    @property
    def pq_diag(self) -> np.ndarray:
        """Pool positions of P_kᵀXQ_k (the gradient's bilinear forms)."""
        return np.diagonal(self.pq).copy()

    @property
    def pq_coef_diag(self) -> np.ndarray:
        return np.ones(self.q) if self.pq_coef is None else np.diagonal(self.pq_coef).copy()

    @property
    def n_load(self) -> int:
        return len(self.load_item)

    @property
    def n_pair(self) -> int:
        return len(self.pair_a)

    @property
    def q(self) -> int:
        """Number of free parameters (loadings + correlations + residual variances)."""
        return self.n_load + self.n_pair + self.p

    @property
    def theta(self) -> slice:
        """Positions of the residual variances in the parameter vector."""
        return slice(self.n_load + self.n_pair, self.q)

    @property
    def correlations(self) -> slice:
        """Positions of the latent correlations in the parameter vector."""
        return slice(self.n_load, self.n_load + self.n_pair)


def _pool_offsets(p: int, k: int) -> dict[str, int]:
    """Start of each block in ``_pool``: X (p×p), XΛΦ (p×k), XΛ (p×k), (ΛΦ)ᵀXΛΦ, (ΛΦ)ᵀXΛ, ΛᵀXΛ (k×k)."""
    sizes = {"x": p * p, "xa": p * k, "xl": p * k, "axa": k * k, "axl": k * k, "lxl": k * k}
    offsets, pos = {}, 0
    for name, size in sizes.items():
        offsets[name] = pos
        pos += size
    return offsets


def _bilinear_position(u: tuple[int, int], v: tuple[int, int], p: int, k: int, off: dict[str, int]) -> int:
    """Position in the pool of uᵀXv for derivative vectors u, v given as (kind, index)."""
    (ku, iu), (kv, iv) = u, v
    if ku == _UNIT and kv == _UNIT:
        return off["x"] + iu * p + iv
    if ku == _UNIT or kv == _UNIT:  # e_jᵀ X c = (Xc)_j
        j, (kind, c) = (iu, (kv, iv)) if ku == _UNIT else (iv, (ku, iu))
        return off["xa" if kind == _LAMPHI else "xl"] + j * k + c
    if ku == _LAMPHI and kv == _LAMPHI:
        return off["axa"] + iu * k + iv
    if ku == _LAM and kv == _LAM:
        return off["lxl"] + iu * k + iv
    f, a = (iu, iv) if ku == _LAMPHI else (iv, iu)
    return off["axl"] + f * k + a


def model_layout(spec: Sequence[Sequence[int]], p: int) -> Layout:
    """The parameter layout of ``spec`` (item column indices per latent) on ``p`` items."""
    k = len(spec)
    items = [int(j) for latent in spec for j in latent]
    if any(j < 0 or j >= p for j in items):
        raise InputError(f"CFA spec names an item outside 0..{p - 1}")
    latents = [f for f, latent in enumerate(spec) for _ in latent]
    pair_a, pair_b = np.triu_indices(k, 1)
    # derivative vectors (kind, index, factor) of every parameter: P then Q
    vec_p = [(_UNIT, j, 1.0) for j in items] + [(_LAM, int(a), 1.0) for a in pair_a] + [(_UNIT, j, 1.0) for j in range(p)]
    vec_q = ([(_LAMPHI, f, 1.0) for f in latents] + [(_LAM, int(b), 1.0) for b in pair_b]
             + [(_UNIT, j, 0.5) for j in range(p)])
    off = _pool_offsets(p, k)

    def table(us: list, vs: list) -> tuple[np.ndarray, np.ndarray]:
        pos = np.array([[_bilinear_position(u[:2], v[:2], p, k, off) for v in vs] for u in us], dtype=np.intp)
        coef = np.array([[u[2] * v[2] for v in vs] for u in us])
        return pos, (None if np.all(coef == 1.0) else coef)

    pp, pp_coef = table(vec_p, vec_p)
    pq, pq_coef = table(vec_p, vec_q)
    qq, qq_coef = table(vec_q, vec_q)
    item_arr, latent_arr = np.array(items, dtype=np.intp), np.array(latents, dtype=np.intp)
    load_load = off["x"] + item_arr[:, None] * p + item_arr[None, :]
    other = np.where(latent_arr[:, None] == pair_b[None, :], pair_a[None, :], pair_b[None, :])
    cross = off["xl"] + item_arr[:, None] * k + other
    cross_mask = (latent_arr[:, None] == pair_a[None, :]) | (latent_arr[:, None] == pair_b[None, :])
    return Layout(p=p, k=k, load_item=item_arr, load_latent=latent_arr, pair_a=pair_a, pair_b=pair_b,
                  pp=pp, pq=pq, qq=qq, pp_coef=pp_coef, pq_coef=pq_coef, qq_coef=qq_coef,
                  load_load=load_load, cross=cross, cross_mask=cross_mask, pool_size=p * p + 2 * p * k + 3 * k * k)


def n_free(spec: Sequence[Sequence[int]], p: int) -> int:
    """Free parameters of ``spec`` (``cfa._n_free``: loadings + p residual variances + k(k−1)/2 correlations)."""
    return _n_free({f: list(items) for f, items in enumerate(spec)}, p)


def unpack(params: np.ndarray, layout: Layout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Λ (B, p, k), Φ (B, k, k) with unit diagonal, θ (B, p) from parameter vectors (B, q)."""
    b = params.shape[0]
    lam = np.zeros((b, layout.p, layout.k))
    lam[:, layout.load_item, layout.load_latent] = params[:, :layout.n_load]
    phi = np.broadcast_to(np.eye(layout.k), (b, layout.k, layout.k)).copy()
    corr = params[:, layout.n_load:layout.n_load + layout.n_pair]
    phi[:, layout.pair_a, layout.pair_b] = corr
    phi[:, layout.pair_b, layout.pair_a] = corr
    return lam, phi, params[:, layout.theta]


def implied_covariance(lam: np.ndarray, phi: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Σ = Λ Φ Λᵀ + diag(θ), stacked (B, p, p)."""
    sigma = lam @ phi @ np.swapaxes(lam, 1, 2)
    idx = np.arange(theta.shape[1])
    sigma[:, idx, idx] += theta
    return sigma


# ---------------------------------------------------------------------------------------------
# Formulas, vectorised over the batch (same definitions as cfa.py)
# ---------------------------------------------------------------------------------------------

def sample_covariances(x: np.ndarray) -> np.ndarray:
    """Covariances (B, p, p) of data sets x (B, n, p) with divisor n (``np.cov(..., bias=True)`` of each)."""
    centred = x - x.mean(axis=1, keepdims=True)
    return np.swapaxes(centred, 1, 2) @ centred / x.shape[1]


def is_pd(matrices: np.ndarray) -> np.ndarray:
    """``cfa._is_pd`` of each matrix (B, p, p): finite, positive diagonal, correlation eigenvalues > PD_TOLERANCE."""
    out = np.zeros(matrices.shape[0], dtype=bool)
    finite = np.isfinite(matrices).all(axis=(1, 2))
    diag = np.diagonal(matrices, axis1=1, axis2=2)
    ok = finite & (np.sqrt(np.clip(np.where(finite[:, None], diag, 0.0), 0, None)) > 0).all(axis=1)
    if ok.any():
        m = matrices[ok]
        d = np.sqrt(np.diagonal(m, axis1=1, axis2=2))
        out[ok] = np.linalg.eigvalsh(m / (d[:, :, None] * d[:, None, :]))[:, 0] > PD_TOLERANCE
    return out


def _logdet_and_inverse(sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log|Σ|, Σ⁻¹ and a positive-definite mask of a stack; a non-PD Σ gets log|Σ| = NaN (its F is +∞)."""
    b, p, _ = sigma.shape
    pd_mask = np.ones(b, dtype=bool)
    try:
        chol = np.linalg.cholesky(sigma)
    except np.linalg.LinAlgError:
        with np.errstate(invalid="ignore"):
            pd_mask = np.isfinite(sigma).all(axis=(1, 2))
            pd_mask[pd_mask] = np.linalg.eigvalsh(sigma[pd_mask])[:, 0] > 0
        chol = np.broadcast_to(np.eye(p), sigma.shape).copy()
        if pd_mask.any():
            try:
                chol[pd_mask] = np.linalg.cholesky(sigma[pd_mask])
            except np.linalg.LinAlgError:  # eigenvalue > 0 yet Cholesky fails: slice by slice
                for i in np.flatnonzero(pd_mask):
                    try:
                        chol[i] = np.linalg.cholesky(sigma[i])
                    except np.linalg.LinAlgError:
                        pd_mask[i] = False
    logdet = 2.0 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
    eye = np.broadcast_to(np.eye(p), sigma.shape)
    linv = np.linalg.solve(chol, eye)
    inverse = np.swapaxes(linv, 1, 2) @ linv
    logdet[~pd_mask] = np.nan
    return logdet, inverse, pd_mask


def log_determinant(s: np.ndarray) -> np.ndarray:
    """log|S| of each matrix of a stack (``np.linalg.slogdet``, as ``cfa.ml_discrepancy``)."""
    return np.linalg.slogdet(s)[1]


def discrepancy(s: np.ndarray, logdet_s: np.ndarray, logdet_sigma: np.ndarray, inverse: np.ndarray) -> np.ndarray:
    """F_ML = log|Σ| + tr(S Σ⁻¹) − log|S| − p per data set (``cfa.ml_discrepancy``); +∞ where Σ is not PD."""
    f = logdet_sigma + np.einsum("bij,bji->b", s, inverse) - logdet_s - s.shape[1]
    return np.where(np.isnan(logdet_sigma), np.inf, f)


def baseline_chi2s(s: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """``cfa.baseline_chi2`` per data set: χ²_b = n·(Σ log s_ii − log|S|), df_b = p(p−1)/2."""
    p = s.shape[1]
    diag = np.diagonal(s, axis1=1, axis2=2)
    return n * (np.log(diag).sum(axis=1) - log_determinant(s)), p * (p - 1) // 2


def srmr_indices(s: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """``cfa.srmr_index`` per data set: RMS over i ≥ j of (s_ij − σ̂_ij)/√(s_ii s_jj)."""
    sd = np.sqrt(np.diagonal(s, axis1=1, axis2=2))
    residual = (s - sigma) / (sd[:, :, None] * sd[:, None, :])
    rows, cols = np.tril_indices(s.shape[1])
    return np.sqrt(np.mean(residual[:, rows, cols] ** 2, axis=1))


# ---------------------------------------------------------------------------------------------
# Derivatives
# ---------------------------------------------------------------------------------------------

def start_values(s: np.ndarray, layout: Layout, spec: Sequence[Sequence[int]]) -> np.ndarray:
    """semopy's starts of ``cfa._estimate`` (B, q): per latent ``cfa._start_loadings`` of its items' covariance
    (first principal component √λ₁·v₁, oriented to a sum ≥ 0), correlations 0, θ_j = s_jj / 2."""
    params = np.zeros((s.shape[0], layout.q))
    pos = 0
    for items in spec:
        idx = np.asarray(items, dtype=int)
        eigval, eigvec = np.linalg.eigh(s[:, idx[:, None], idx[None, :]])
        loadings = np.sqrt(np.maximum(eigval[:, -1], 1e-6))[:, None] * eigvec[:, :, -1]
        loadings = np.where(loadings.sum(axis=1, keepdims=True) >= 0, loadings, -loadings)
        params[:, pos:pos + len(idx)] = loadings
        pos += len(idx)
    params[:, layout.theta] = np.diagonal(s, axis1=1, axis2=2) / 2
    return params


class _Arena:
    """Work arrays reused from one iteration to the next, by name.

    A fresh numpy array of a few hundred kB can cost one page fault per 4 kB every time it is allocated (glibc hands
    freed memory back to the system); on the machine this was written on that was half the time of a fit. The
    buffers of an arena are allocated once and returned as views of the first ``shape[0]`` rows.
    """

    def __init__(self) -> None:
        self._buffers: dict[str, np.ndarray] = {}

    def __call__(self, name: str, shape: tuple[int, ...], dtype: type = np.float64) -> np.ndarray:
        buf = self._buffers.get(name)
        if buf is None or buf.shape[1:] != shape[1:] or buf.shape[0] < shape[0] or buf.dtype != dtype:
            buf = self._buffers[name] = np.empty(shape, dtype)
        return buf[:shape[0]]


def _pool(x: np.ndarray, lam: np.ndarray, lam_phi: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Every bilinear form uᵀXv of derivative vectors, flattened (B, p² + 2pk + 3k²): X, XΛΦ, XΛ,
    (ΛΦ)ᵀXΛΦ, (ΛΦ)ᵀXΛ, ΛᵀXΛ (``_pool_offsets``)."""
    b = x.shape[0]
    xa, xl = x @ lam_phi, x @ lam
    at = np.swapaxes(lam_phi, 1, 2)
    blocks = [x, xa, xl, at @ xa, at @ xl, np.swapaxes(lam, 1, 2) @ xl]
    return np.concatenate([m.reshape(b, -1) for m in blocks], axis=1, out=out)


def _gather(pool: np.ndarray, index: np.ndarray, coef: np.ndarray | None, out: np.ndarray | None = None) -> np.ndarray:
    """pool[:, index] · coef (coef None: all 1)."""
    out = np.take(pool, index, axis=1, out=out)
    if coef is not None:
        out *= coef
    return out


def derivatives(s: np.ndarray, inverse: np.ndarray, lam: np.ndarray, phi: np.ndarray, layout: Layout,
                arena: _Arena | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Gradient g (B, q) and exact Hessian H (B, q, q) of F_ML (in ``arena``'s buffers when one is given).

    Every ∂Σ/∂ϑ_k = Σ_k has the form P_k Q_kᵀ + Q_k P_kᵀ: a loading λ_jf has P = e_j, Q = (ΛΦ)_{·f}; a
    correlation φ_ab has P = Λ_{·a}, Q = Λ_{·b}; a residual variance θ_j has P = e_j, Q = e_j / 2. With W = Σ⁻¹,
    V = WSW, Z = W − V, and for a symmetric X the blocks X_PP = PᵀXP, X_PQ = PᵀXQ, X_QQ = QᵀXQ (q × q, gathered
    from the small matrices of ``_pool``):

    - g_k = tr(Z Σ_k) = 2 (Z_PQ)_kk  (= tr(W(Σ − S)W Σ_k), Lee & Jennrich 1979);
    - tr(X Σ_k Y Σ_l) = (Y_PQᵀ∘X_PQ + Y_QQ∘X_PP + Y_PP∘X_QQ + Y_PQ∘X_PQᵀ)_kl  (∘ elementwise);
    - the Fisher information I_kl = tr(W Σ_k W Σ_l) = 2 (W_PP∘W_QQ + W_PQ∘W_PQᵀ)_kl;
    - H_kl = 2 tr(W Σ_k V Σ_l) − I_kl + tr(Z ∂²Σ/∂ϑ_k∂ϑ_l)
           = 2 (Y + Yᵀ + V_QQ∘W_PP − Z_PP∘W_QQ)_kl + tr(Z ∂²Σ/∂ϑ_k∂ϑ_l),  Y = (V − W/2)_PQ ∘ W_PQᵀ,
      the only second derivatives being ∂²Σ/∂λ_jf∂λ_j'f' = φ_ff'(e_j e_j'ᵀ + e_j' e_jᵀ) and
      ∂²Σ/∂λ_jf∂φ_ab = e_j cᵀ + c e_jᵀ with c = δ_bf Λ_{·a} + δ_af Λ_{·b}. At S = Σ (Z = 0) H equals I.
    """
    arena = arena if arena is not None else _Arena()
    b, p, q, nl, npair = s.shape[0], layout.p, layout.q, layout.n_load, layout.n_pair
    v = np.matmul(np.matmul(inverse, s, out=arena("ws", (b, p, p))), inverse, out=arena("v", (b, p, p)))
    lam_phi = lam @ phi
    pool_w = _pool(inverse, lam, lam_phi, out=arena("pool_w", (b, layout.pool_size)))
    pool_v = _pool(v, lam, lam_phi, out=arena("pool_v", (b, layout.pool_size)))
    pool_z = np.subtract(pool_w, pool_v, out=arena("pool_z", (b, layout.pool_size)))
    pool_y = np.subtract(pool_v, 0.5 * pool_w, out=arena("pool_y", (b, layout.pool_size)))
    shape = (b, q, q)
    w_pq = _gather(pool_w, layout.pq, layout.pq_coef, arena("w_pq", shape))
    grad = 2.0 * np.take(pool_z, layout.pq_diag, axis=1) * layout.pq_coef_diag
    hess = np.multiply(_gather(pool_y, layout.pq, layout.pq_coef, arena("y_pq", shape)), np.swapaxes(w_pq, 1, 2),
                       out=arena("y", shape))
    hess = np.add(hess, np.swapaxes(hess, 1, 2), out=arena("hess", shape))
    term = arena("term", shape)
    hess += np.multiply(_gather(pool_v, layout.qq, layout.qq_coef, arena("v_qq", shape)),
                        _gather(pool_w, layout.pp, layout.pp_coef, arena("w_pp", shape)), out=term)
    hess -= np.multiply(_gather(pool_z, layout.pp, layout.pp_coef, arena("z_pp", shape)),
                        _gather(pool_w, layout.qq, layout.qq_coef, arena("w_qq", shape)), out=term)
    hess *= 2.0
    f = layout.load_latent
    hess[:, :nl, :nl] += 2.0 * phi[:, f[:, None], f[None, :]] * np.take(pool_z, layout.load_load, axis=1)
    if npair:
        second = 2.0 * np.take(pool_z, layout.cross, axis=1) * layout.cross_mask
        hess[:, :nl, nl:nl + npair] += second
        hess[:, nl:nl + npair, :nl] += np.swapaxes(second, 1, 2)
    return grad, hess


def fisher_information(inverse: np.ndarray, lam: np.ndarray, phi: np.ndarray, layout: Layout) -> np.ndarray:
    """Expected information I_kl = tr(W Σ_k W Σ_l) = 2 (W_PP∘W_QQ + W_PQ∘W_PQᵀ)_kl (B, q, q) (Lee & Jennrich 1979);
    the Hessian of F at S = Σ. Not used by ``minimise`` (see its docstring); kept for checks and standard errors."""
    pool = _pool(inverse, lam, lam @ phi)
    w_pq = _gather(pool, layout.pq, layout.pq_coef)
    return 2.0 * (_gather(pool, layout.pp, layout.pp_coef) * _gather(pool, layout.qq, layout.qq_coef)
                  + w_pq * np.swapaxes(w_pq, 1, 2))


# ---------------------------------------------------------------------------------------------
# Minimisation
# ---------------------------------------------------------------------------------------------

def _cholesky(a: np.ndarray, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Lower Cholesky factors of a stack of symmetric matrices and which are positive definite (the factors of the
    others are NaN). numpy's public ``cholesky`` raises for the whole stack when one matrix is not PD."""
    if _umath_linalg is not None:
        with np.errstate(invalid="ignore"):
            chol = _umath_linalg.cholesky_lo(a, signature="d->d", out=out)
    else:  # pragma: no cover - a numpy without the gufunc module: one matrix at a time
        chol = np.full_like(a, np.nan) if out is None else out
        for i in range(len(a)):
            try:
                chol[i] = np.linalg.cholesky(a[i])
            except np.linalg.LinAlgError:
                chol[i] = np.nan
    return chol, ~np.isnan(chol[:, :, 0]).any(axis=1) & ~np.isnan(np.diagonal(chol, axis1=1, axis2=2)).any(axis=1)


@dataclass
class _State:
    """Current point of each data set being fitted: parameters, F_ML, Σ⁻¹."""

    params: np.ndarray   # (B, q)
    f: np.ndarray        # (B,)
    inverse: np.ndarray  # (B, p, p)

    def take(self, rows: np.ndarray) -> _State:
        return _State(self.params[rows], self.f[rows], self.inverse[rows])

    def put(self, rows: np.ndarray, new: _State, which: np.ndarray) -> None:
        """Rows ``rows`` of this state become rows ``which`` of ``new``."""
        self.params[rows], self.f[rows], self.inverse[rows] = new.params[which], new.f[which], new.inverse[which]


def _evaluate(params: np.ndarray, s: np.ndarray, logdet_s: np.ndarray, layout: Layout,
              arena: _Arena | None = None) -> _State:
    """Σ⁻¹ and F_ML = log|Σ| + tr(SΣ⁻¹) − log|S| − p at each parameter vector; F = +∞ where Σ is not PD."""
    arena = arena if arena is not None else _Arena()
    b, p = s.shape[0], layout.p
    sigma = implied_covariance(*unpack(params, layout))
    chol, ok = _cholesky(sigma, out=arena("chol_sigma", (b, p, p)))
    if not ok.all():
        sigma[~ok] = np.eye(p)
    inverse = np.linalg.inv(sigma)
    logdet = 2.0 * np.log(np.abs(np.diagonal(chol, axis1=1, axis2=2))).sum(axis=1)
    f = logdet + np.einsum("bij,bij->b", s, inverse) - logdet_s - p
    f[~ok] = np.inf
    return _State(params, f, inverse)


def _projected(params: np.ndarray, layout: Layout) -> np.ndarray:
    """Parameters with every residual variance below 0 set to 0 (projection on the bound θ ≥ 0), in place."""
    np.maximum(params[:, layout.theta], 0.0, out=params[:, layout.theta])
    return params


def _active_set(grad: np.ndarray, params: np.ndarray, layout: Layout) -> np.ndarray:
    """Residual variances held at the bound: θ_j = 0 with ∂F/∂θ_j > 0 (F would fall only below 0)."""
    active = np.zeros(grad.shape, dtype=bool)
    th = layout.theta
    active[:, th] = (params[:, th] <= 0.0) & (grad[:, th] > 0.0)
    return active


def _damped_system(hess: np.ndarray, active: np.ndarray, mu: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """H + μ·1 on the free parameters, the identity on the active ones (their step is 0)."""
    m = np.copyto(out, hess) or out if out is not None else hess.copy()
    if active.any():
        rows = np.flatnonzero(active.any(axis=1))
        sub = m[rows]
        act = active[rows]
        sub[act] = 0.0  # rows of active parameters
        sub.transpose(0, 2, 1)[act] = 0.0  # and their columns
        m[rows] = sub
    diag = np.arange(hess.shape[1])
    m[:, diag, diag] = np.where(active, 1.0, m[:, diag, diag] + mu[:, None])
    return m


def _damped_step(grad: np.ndarray, hess: np.ndarray, active: np.ndarray, mu: np.ndarray,
                 arena: _Arena | None = None) -> np.ndarray:
    """Levenberg–Marquardt step d = −(H_ff + μ·1)⁻¹ g_f (0 on the active set); μ (modified in place) is raised
    ×4 where H_ff + μ·1 is not positive definite, until it is."""
    arena = arena if arena is not None else _Arena()
    shape = hess.shape
    m = _damped_system(hess, active, mu, out=arena("damped", shape))
    _, ok = _cholesky(m, out=arena("chol_damped", shape))
    for _ in range(60):
        if ok.all():
            break
        bad = np.flatnonzero(~ok)
        mu[bad] = np.maximum(4.0 * mu[bad], MU_MIN)
        m[bad] = _damped_system(hess[bad], active[bad], mu[bad])
        ok[bad] = _cholesky(m[bad])[1]
    rhs = np.where(active, 0.0, grad)
    return -np.linalg.solve(m, rhs[:, :, None])[:, :, 0]


@dataclass
class Optimum:
    """Outcome of ``minimise`` per data set."""

    params: np.ndarray      # (B, q)
    f: np.ndarray           # (B,) F_ML at the estimate
    converged: np.ndarray   # (B,) bool
    diverged: np.ndarray    # (B,) bool: stopped because a latent correlation ran past DIVERGED_CORRELATION
    iterations: np.ndarray  # (B,) int
    message: list[str]      # why a data set did not converge ("" when it did)


def minimise(s: np.ndarray, layout: Layout, start: np.ndarray, *, max_iter: int = MAX_ITER) -> Optimum:
    """Minimise F_ML under θ ≥ 0 for each covariance matrix of the stack s (B, p, p), all PD, from ``start`` (B, q).

    Levenberg–Marquardt-damped Newton (trust-region) steps with the exact Hessian: d = −(H + μ·1)⁻¹ g on the
    free parameters, projected on θ ≥ 0. A step is taken only when it lowers F by at least ARMIJO times the
    decrease the quadratic model predicts (ρ = actual / predicted); otherwise μ grows (×ν, ν doubling) and a
    shorter step is tried from the same point (same g and H). After a step μ shrinks by
    max(MU_SHRINK, 1 − (2ρ − 1)³) (Nielsen 1999). μ starts at MU_START, so the first steps are short steps down
    the gradient, as semopy's SLSQP starts (identity Hessian), and the last are Newton steps (quadratic convergence).
    One iteration = one evaluation of g and H.
    """
    b = s.shape[0]
    arena = _Arena()
    logdet_s = log_determinant(s)
    state = _evaluate(start.astype(float, copy=True), s, logdet_s, layout)
    converged = np.zeros(b, dtype=bool)
    diverged = np.zeros(b, dtype=bool)
    iterations = np.zeros(b, dtype=int)
    message = [""] * b
    mu = np.full(b, MU_START)
    nu = np.full(b, 2.0)
    for i in np.flatnonzero(~np.isfinite(state.f)):
        message[i] = "implied covariance at the start values not positive definite"
    running = np.flatnonzero(np.isfinite(state.f))
    for _ in range(max_iter):
        if not len(running):
            break
        cur = state.take(running)
        lam, phi, _ = unpack(cur.params, layout)
        grad, hess = derivatives(s[running], cur.inverse, lam, phi, layout, arena)
        active = _active_set(grad, cur.params, layout)
        pgrad = np.abs(np.where(active, 0.0, grad)).max(axis=1)
        done = pgrad < GRADIENT_TOL
        converged[running[done]] = True
        iterations[running[~done]] += 1
        stalled = np.zeros(len(running), dtype=bool)
        pending = np.flatnonzero(~done)
        while len(pending):
            rows = running[pending]
            mu_rows = mu[rows]
            x0 = cur.params[pending]
            h = hess[pending]
            trial = _projected(x0 + _damped_step(grad[pending], h, active[pending], mu_rows, arena), layout)
            mu[rows] = mu_rows
            cand = _evaluate(trial, s[rows], logdet_s[rows], layout, arena)
            step = trial - x0
            g_step = np.einsum("bk,bk->b", grad[pending], step)
            predicted = -(g_step + 0.5 * np.einsum("bk,bk->b", (h @ step[:, :, None])[:, :, 0], step))
            actual = cur.f[pending] - cand.f
            with np.errstate(invalid="ignore", divide="ignore"):
                rho = actual / predicted
            ok = np.isfinite(cand.f) & (actual > 0) & (predicted > 0) & (rho >= ARMIJO)
            state.put(rows[ok], cand, ok)
            mu[rows[ok]] *= np.maximum(MU_SHRINK, 1.0 - (2.0 * rho[ok] - 1.0) ** 3)
            nu[rows[ok]] = 2.0
            retry = rows[~ok]
            mu[retry] = np.maximum(mu[retry], MU_MIN) * nu[retry]
            nu[retry] *= 2.0
            give_up = ~ok & (mu[rows] > MU_MAX)
            stalled[pending[give_up]] = True
            pending = pending[~ok & ~give_up]
        floor = stalled & (pgrad < STALL_GRADIENT_TOL)
        converged[running[floor]] = True
        for i in np.flatnonzero(stalled & ~floor):
            message[running[i]] = f"no step lowers F any more (largest projected gradient {pgrad[i]:.2g})"
        runaway = np.abs(state.params[running, layout.correlations]).max(axis=1, initial=0.0) > DIVERGED_CORRELATION
        diverged[running[runaway & ~stalled & ~done]] = True
        running = running[~(done | stalled | runaway)]
    for i in running:
        message[i] = f"iteration limit reached ({max_iter})"
    return Optimum(state.params, state.f, converged, diverged, iterations, message)
