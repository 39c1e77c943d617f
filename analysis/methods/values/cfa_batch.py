"""Batched maximum-likelihood CFA in numpy: B data sets of one model fitted at once, as ``cfa.fit_cfa`` fits one.

Model and fit indices are those of ``analysis.methods.values.cfa_model`` (lavaan 0.6 conventions; see its docstring):
Σ(ϑ) = ΛΦΛᵀ + Θ, each item loading on the latents that list it (``spec``: item column indices per latent), every
latent variance fixed to 1 (lavaan ``std.lv=TRUE``), latent correlations free, Θ diagonal with θ_j ≥ 0 (lavaan
``bounds="pos.var"``, semopy's bound). ϑ is ordered: loadings (latent by latent, in ``spec`` order), correlations
φ_ab (a < b, row-major), residual variances θ_0 … θ_{p−1}. The estimate minimises the ML discrepancy
(Jöreskog 1969; lavaan's 2·fmin)

    F(ϑ) = log|Σ(ϑ)| + tr(S Σ(ϑ)⁻¹) − log|S| − p,     S = covariance of the complete rows, divisor n.

Derivatives (``derivatives``; Lee & Jennrich 1979 for covariance structures): with W = Σ⁻¹ and Σ_k = ∂Σ/∂ϑ_k the
gradient is g_k = tr(W(Σ − S)W Σ_k), the Fisher information I_kl = tr(W Σ_k W Σ_l), and the exact Hessian
H_kl = 2 tr(W Σ_k WSW Σ_l) − I_kl + tr((W − WSW) ∂²Σ/∂ϑ_k∂ϑ_l). Every Σ_k is c_k(P_k Q_kᵀ + Q_k P_kᵀ) with
P_k, Q_k a unit vector or a column of Λ or ΛΦ, so all of them come from a few p × p, p × k and k × k products per
data set, gathered into (B, q, q) arrays: no Python loop over the data sets.

Minimisation (``minimise``): Levenberg–Marquardt-damped Newton steps d = −(H + μ·1)⁻¹ g (a trust-region method;
Nielsen's update of μ), projected on θ ≥ 0 with an active set (a θ_j at 0 whose gradient pushes it below 0 stays
at 0), each step accepted only when F decreases (ρ = actual / predicted decrease ≥ 1e-4; else μ grows and a
shorter step is tried), until the largest projected gradient is < 1e-8 (at most 200 iterations); converged data
sets stop changing while the others go on. Starting values are semopy's (``cfa._estimate``): loadings = first
principal component of each latent's items' covariance (``cfa._start_loadings``), θ_j = s_jj / 2, correlations 0.

Why not plain Fisher scoring (d = −I⁻¹g with a line search), the textbook method for this model: on data
without factor structure (the chance draws) the likelihood has several local minima, and full Fisher steps from
semopy's start jumped to other minima than semopy's SLSQP in ~25% of random data sets; it also converges only
linearly there (~55 iterations). Starting with strongly damped steps (μ = 10: short steps down the gradient, as
SLSQP starts with an identity Hessian) keeps to semopy's minimum far more often, and the exact Hessian converges
quadratically at the end. Where the likelihood has no minimum — a latent's loadings → 0 while a correlation
|φ| → ∞, which semopy reports as a fit with |r| ≫ 1 — the iterations stop once |φ| > 2 (a failed fit: latent
correlation |r| ≥ 1, noted as diverging); along the paths to valid fits |φ| stayed < 1.2.

The failure rules and reason texts are those of ``cfa.fit_cfa``, applied per data set; the fit indices use the
formulas of ``cfa_model`` (``cfi_index``, ``tli_index``, ``rmsea_index`` per data set; χ², baseline χ², SRMR and the
positive-definite test vectorised with the definitions of ``ml_discrepancy``, ``baseline_chi2``, ``srmr_index`` and
``cfa._is_pd``). A failed fit has NaN χ² and indices (undefined, never 0); a Heywood case (θ_j ≤ 1e-6·var_j) is a valid
fit with a note.

Public functions: ``fit_covariances`` (a stack of sample covariances), ``fit_cfa_batch`` (a stack of raw data
sets) and ``fit_cfa_fast`` (a drop-in for ``cfa.fit_cfa`` on one DataFrame); each returns a ``BatchFit`` (or a
``CFAResult``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
import pandas as pd

try:  # the batched gufuncs behind np.linalg: a failed Cholesky gives NaN for that matrix instead of raising
    from numpy.linalg import _umath_linalg
except ImportError:  # pragma: no cover
    _umath_linalg = None

from analysis.errors import InputError
from analysis.methods.values.cfa_model import (
    CORRELATION_LIMIT,
    PD_TOLERANCE,
    CFAResult,
    _failure,
    _n_free,
    cfi_index,
    model_frame,
    rmsea_index,
    tli_index,
)

#: Converged when max |projected gradient of F| is below this.
GRADIENT_TOL = 1e-8
#: Iterations at most (a data set still moving after them has not converged).
MAX_ITER = 200
#: A step is taken when F falls by at least this fraction of the decrease the quadratic model predicts.
ARMIJO = 1e-4
#: Damping μ (Levenberg 1944; Marquardt 1963) at the start (short gradient steps first), its floor when raised,
#: its smallest factor after a step (Nielsen 1999, IMM-REP-1999-05), and its ceiling (no step lowers F).
MU_START = 10.0
MU_MIN = 1e-6
MU_SHRINK = 1.0 / 3.0
MU_MAX = 1e12
#: A data set where no step lowers F has converged (to rounding) if its projected gradient is below this.
STALL_GRADIENT_TOL = 1e-6
#: A latent correlation beyond this is running off to infinity (loadings → 0, |φ| → ∞; no minimum): stop there.
DIVERGED_CORRELATION = 2.0
#: Variance at or below which an item counts as constant (as ``cfa.fit_cfa``).
CONSTANT_VARIANCE = 1e-12
#: A residual variance at or below this fraction of the item's variance is a Heywood case (as ``cfa.fit_cfa``).
HEYWOOD_FRACTION = 1e-6
#: Data sets minimised together at most (bounds the work arrays: ~10 arrays of CHUNK × q × q floats).
CHUNK = 128


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
    #: (q, q) positions in the pool of P_kᵀXP_l, P_kᵀXQ_l (and its transpose), Q_kᵀXQ_l.
    pp: np.ndarray
    pq: np.ndarray
    pq_t: np.ndarray
    qq: np.ndarray
    #: Σ_k = scale_k (P_k Q_kᵀ + Q_k P_kᵀ) with P, Q taken as unit or plain columns: ½ for a residual variance.
    scale: np.ndarray
    #: (n_load, n_load) positions of X_jj' for the loading pairs; (n_load, n_pair) positions of (XΛ)_jc with
    #: c the other latent of the pair when the loading's latent is one of the pair (mask ``cross_mask``).
    load_load: np.ndarray
    cross: np.ndarray
    cross_mask: np.ndarray
    #: Length of a data set's pool (``_pool_offsets``).
    pool_size: int

    @cached_property
    def hess_scale(self) -> np.ndarray:
        """2 c_k c_l (see ``derivatives``)."""
        return 2.0 * np.outer(self.scale, self.scale)

    @cached_property
    def pq_diag(self) -> np.ndarray:
        """Pool positions of P_kᵀXQ_k (the gradient's bilinear forms)."""
        return np.diagonal(self.pq).copy()

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
    """The parameter layout of ``spec`` (item column indices per latent) on ``p`` items (cached per model)."""
    key = tuple(tuple(int(j) for j in latent) for latent in spec)
    if any(j < 0 or j >= p for latent in key for j in latent):
        raise InputError(f"CFA spec names an item outside 0..{p - 1}")
    return _layout(key, p)


@lru_cache(maxsize=64)
def _layout(spec: tuple[tuple[int, ...], ...], p: int) -> Layout:
    k = len(spec)
    items = [j for latent in spec for j in latent]
    latents = [f for f, latent in enumerate(spec) for _ in latent]
    pair_a, pair_b = np.triu_indices(k, 1)
    # derivative vectors (kind, index) of every parameter: P then Q (a residual variance: e_j, e_j and scale ½)
    vec_p = [(_UNIT, j) for j in items] + [(_LAM, int(a)) for a in pair_a] + [(_UNIT, j) for j in range(p)]
    vec_q = [(_LAMPHI, f) for f in latents] + [(_LAM, int(b)) for b in pair_b] + [(_UNIT, j) for j in range(p)]
    off = _pool_offsets(p, k)

    def table(us: list, vs: list) -> np.ndarray:
        return np.array([[_bilinear_position(u, v, p, k, off) for v in vs] for u in us], dtype=np.intp)

    pq = table(vec_p, vec_q)
    scale = np.r_[np.ones(len(items) + len(pair_a)), np.full(p, 0.5)]
    item_arr, latent_arr = np.array(items, dtype=np.intp), np.array(latents, dtype=np.intp)
    load_load = off["x"] + item_arr[:, None] * p + item_arr[None, :]
    other = np.where(latent_arr[:, None] == pair_b[None, :], pair_a[None, :], pair_b[None, :])
    cross = off["xl"] + item_arr[:, None] * k + other
    cross_mask = (latent_arr[:, None] == pair_a[None, :]) | (latent_arr[:, None] == pair_b[None, :])
    return Layout(p=p, k=k, load_item=item_arr, load_latent=latent_arr, pair_a=pair_a, pair_b=pair_b,
                  pp=table(vec_p, vec_p), pq=pq, pq_t=np.ascontiguousarray(pq.T), qq=table(vec_q, vec_q), scale=scale,
                  load_load=load_load, cross=cross, cross_mask=cross_mask, pool_size=p * p + 2 * p * k + 3 * k * k)


def n_free(spec: Sequence[Sequence[int]], p: int) -> int:
    """Free parameters of ``spec`` (``cfa_model._n_free``: loadings + p residual variances + k(k−1)/2 correlations)."""
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
# Formulas, vectorised over the batch (same definitions as cfa_model.py)
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


def log_determinant(s: np.ndarray) -> np.ndarray:
    """log|S| of each matrix of a stack (``np.linalg.slogdet``, as ``cfa_model.ml_discrepancy``)."""
    return np.linalg.slogdet(s)[1]


def ml_discrepancies(s: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """``cfa_model.ml_discrepancy`` per data set: F_ML = log|Σ̂| − log|S| + tr(S Σ̂⁻¹) − p (slogdet and solve, as there)."""
    trace = np.trace(np.linalg.solve(sigma, s), axis1=1, axis2=2)
    return np.linalg.slogdet(sigma)[1] - log_determinant(s) + trace - s.shape[1]


def baseline_chi2s(s: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """``cfa_model.baseline_chi2`` per data set: χ²_b = n·(Σ log s_ii − log|S|), df_b = p(p−1)/2."""
    p = s.shape[1]
    diag = np.diagonal(s, axis1=1, axis2=2)
    return n * (np.log(diag).sum(axis=1) - log_determinant(s)), p * (p - 1) // 2


def srmr_indices(s: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """``cfa_model.srmr_index`` per data set: RMS over i ≥ j of (s_ij − σ̂_ij)/√(s_ii s_jj)."""
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


def derivatives(s: np.ndarray, inverse: np.ndarray, lam: np.ndarray, phi: np.ndarray, layout: Layout,
                arena: _Arena | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Gradient g (B, q) and exact Hessian H (B, q, q) of F_ML (in ``arena``'s buffers when one is given).

    Every ∂Σ/∂ϑ_k = Σ_k has the form c_k (P_k Q_kᵀ + Q_k P_kᵀ): a loading λ_jf has P = e_j, Q = (ΛΦ)_{·f}, a
    correlation φ_ab has P = Λ_{·a}, Q = Λ_{·b} (c = 1); a residual variance θ_j has P = Q = e_j, c = ½. With
    W = Σ⁻¹, V = WSW, Z = W − V, and for a symmetric X the blocks X_PP = PᵀXP, X_PQ = PᵀXQ, X_QQ = QᵀXQ (q × q,
    gathered from the small matrices of ``_pool``):

    - g_k = tr(Z Σ_k) = 2 c_k (Z_PQ)_kk  (= tr(W(Σ − S)W Σ_k), Lee & Jennrich 1979);
    - tr(X Σ_k Y Σ_l) = c_k c_l (Y_PQᵀ∘X_PQ + Y_QQ∘X_PP + Y_PP∘X_QQ + Y_PQ∘X_PQᵀ)_kl  (∘ elementwise);
    - the Fisher information I_kl = tr(W Σ_k W Σ_l) = 2 c_k c_l (W_PP∘W_QQ + W_PQ∘W_PQᵀ)_kl;
    - H_kl = 2 tr(W Σ_k V Σ_l) − I_kl + tr(Z ∂²Σ/∂ϑ_k∂ϑ_l)
           = 2 c_k c_l (Y + Yᵀ + V_QQ∘W_PP − Z_PP∘W_QQ)_kl + tr(Z ∂²Σ/∂ϑ_k∂ϑ_l),  Y = (V − W/2)_PQ ∘ W_PQᵀ,
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

    def gather(pool: np.ndarray, index: np.ndarray, name: str) -> np.ndarray:
        return np.take(pool, index, axis=1, out=arena(name, shape))

    grad = 2.0 * layout.scale * np.take(pool_z, layout.pq_diag, axis=1)
    hess = np.multiply(gather(pool_y, layout.pq, "y_pq"), gather(pool_w, layout.pq_t, "w_qp"),
                       out=arena("y", shape))
    hess = np.add(hess, np.swapaxes(hess, 1, 2), out=arena("hess", shape))
    term = arena("term", shape)
    hess += np.multiply(gather(pool_v, layout.qq, "v_qq"), gather(pool_w, layout.pp, "w_pp"), out=term)
    hess -= np.multiply(gather(pool_z, layout.pp, "z_pp"), gather(pool_w, layout.qq, "w_qq"), out=term)
    hess *= layout.hess_scale
    f = layout.load_latent
    hess[:, :nl, :nl] += 2.0 * phi[:, f[:, None], f[None, :]] * np.take(pool_z, layout.load_load, axis=1)
    if npair:
        second = 2.0 * np.take(pool_z, layout.cross, axis=1) * layout.cross_mask
        hess[:, :nl, nl:nl + npair] += second
        hess[:, nl:nl + npair, :nl] += np.swapaxes(second, 1, 2)
    return grad, hess


def fisher_information(inverse: np.ndarray, lam: np.ndarray, phi: np.ndarray, layout: Layout) -> np.ndarray:
    """Expected information I_kl = tr(W Σ_k W Σ_l) = 2 c_k c_l (W_PP∘W_QQ + W_PQ∘W_PQᵀ)_kl (B, q, q)
    (Lee & Jennrich 1979), the Hessian of F at S = Σ (see ``derivatives``). Not used by ``minimise``."""
    pool = _pool(inverse, lam, lam @ phi)
    w_pq = np.take(pool, layout.pq, axis=1)
    return layout.hess_scale * (np.take(pool, layout.pp, axis=1) * np.take(pool, layout.qq, axis=1)
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
    try:
        inverse = np.linalg.inv(sigma)
    except np.linalg.LinAlgError:  # a factor with a zero pivot (Σ singular to rounding): that Σ is not PD either
        inverse = np.empty_like(sigma)
        for i in range(b):
            try:
                inverse[i] = np.linalg.inv(sigma[i])
            except np.linalg.LinAlgError:
                ok[i], inverse[i] = False, np.eye(p)
    logdet = 2.0 * np.log(np.abs(np.diagonal(chol, axis1=1, axis2=2))).sum(axis=1)
    f = logdet + np.einsum("bij,bij->b", s, inverse) - logdet_s - p
    # F_ML ≥ 0 for every PD Σ (it is a divergence): a negative F is a Σ singular to rounding whose factor passed (a
    # residual variance just projected to 0), never a better fit. Such a step is refused like a non-PD one.
    f[~ok | (f < -1e-9)] = np.inf
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
    if out is None:
        m = hess.copy()
    else:
        m = out
        np.copyto(m, hess)
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
    if _umath_linalg is None:  # pragma: no cover
        return -np.linalg.solve(m, rhs[:, :, None])[:, :, 0]
    with np.errstate(invalid="ignore"):  # a singular system (rare) gives NaN, rejected as a step
        return -_umath_linalg.solve1(m, rhs, signature="dd->d")


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
    ``iterations`` counts the evaluations of g and H (a data set's retries reuse them; each pass of the loop
    takes one step, new or retried, for every data set still running).
    """
    b, q = s.shape[0], layout.q
    arena = _Arena()
    logdet_s = log_determinant(s)
    state = _evaluate(start.astype(float, copy=True), s, logdet_s, layout)
    converged = np.zeros(b, dtype=bool)
    diverged = np.zeros(b, dtype=bool)
    iterations = np.zeros(b, dtype=int)
    message = [""] * b
    mu = np.full(b, float(MU_START))
    nu = np.full(b, 2.0)
    grad, hess = np.zeros((b, q)), np.zeros((b, q, q))
    active, pgrad = np.zeros((b, q), dtype=bool), np.zeros(b)
    fresh = np.ones(b, dtype=bool)  # g and H are to be evaluated at the current point
    for i in np.flatnonzero(~np.isfinite(state.f)):
        message[i] = "implied covariance at the start values not positive definite"
    running = np.flatnonzero(np.isfinite(state.f))
    while len(running):
        new = running[fresh[running]]
        if len(new):
            cur = state.take(new)
            lam, phi, _ = unpack(cur.params, layout)
            grad[new], hess[new] = derivatives(s[new], cur.inverse, lam, phi, layout, arena)
            active[new] = _active_set(grad[new], cur.params, layout)
            pgrad[new] = np.abs(np.where(active[new], 0.0, grad[new])).max(axis=1)
            fresh[new] = False
            done = new[pgrad[new] < GRADIENT_TOL]
            converged[done] = True
            limit = new[(pgrad[new] >= GRADIENT_TOL) & (iterations[new] >= max_iter)]
            for i in limit:
                message[i] = f"iteration limit reached ({max_iter})"
            iterations[new] += 1
            running = running[~np.isin(running, np.concatenate([done, limit]))]
            if not len(running):
                break
        x0, h, mu_run = state.params[running], hess[running], mu[running]
        trial = _projected(x0 + _damped_step(grad[running], h, active[running], mu_run, arena), layout)
        mu[running] = mu_run
        cand = _evaluate(trial, s[running], logdet_s[running], layout, arena)
        step = trial - x0
        predicted = -(np.einsum("bk,bk->b", grad[running], step)
                      + 0.5 * np.einsum("bk,bk->b", (h @ step[:, :, None])[:, :, 0], step))
        actual = state.f[running] - cand.f
        with np.errstate(invalid="ignore", divide="ignore"):
            rho = actual / predicted
        ok = np.isfinite(cand.f) & (actual > 0) & (predicted > 0) & (rho >= ARMIJO)
        moved, retry = running[ok], running[~ok]
        state.put(moved, cand, ok)
        fresh[moved] = True
        mu[moved] *= np.maximum(MU_SHRINK, 1.0 - (2.0 * rho[ok] - 1.0) ** 3)
        nu[moved] = 2.0
        mu[retry] = np.maximum(mu[retry], MU_MIN) * nu[retry]
        nu[retry] *= 2.0
        stalled = retry[mu[retry] > MU_MAX]
        floor = stalled[pgrad[stalled] < STALL_GRADIENT_TOL]
        converged[floor] = True
        for i in np.setdiff1d(stalled, floor):
            message[i] = f"no step lowers F any more (largest projected gradient {pgrad[i]:.2g})"
        runaway = moved[np.abs(state.params[moved, layout.correlations]).max(axis=1, initial=0.0) > DIVERGED_CORRELATION]
        diverged[runaway] = True
        running = running[~np.isin(running, np.concatenate([stalled, runaway]))]
    return Optimum(state.params, state.f, converged, diverged, iterations, message)


# ---------------------------------------------------------------------------------------------
# Fits
# ---------------------------------------------------------------------------------------------

@dataclass
class BatchFit:
    """CFA of B data sets of one model: per data set χ², the fit indices (NaN when the fit failed), whether it
    fitted and why not, and the estimates (NaN where the rules of ``cfa.fit_cfa`` stop before estimation).

    ``loadings`` Λ (B, p, k), ``latent_correlations`` Φ (B, k, k) and ``residual_variances`` θ (B, p) are oriented
    as ``cfa.fit_cfa`` orients them: every latent's loadings sum to ≥ 0.
    """

    n: int
    df: int
    df_baseline: int
    items: list[str]
    latents: list[str]
    spec: list[list[int]]
    chi2: np.ndarray
    chi2_baseline: np.ndarray
    cfi: np.ndarray
    tli: np.ndarray
    rmsea: np.ndarray
    srmr: np.ndarray
    converged: np.ndarray
    reason: list[str]
    note: list[str]
    fmin: np.ndarray
    loadings: np.ndarray
    latent_correlations: np.ndarray
    residual_variances: np.ndarray
    estimated: np.ndarray
    iterations: np.ndarray

    def __len__(self) -> int:
        return len(self.chi2)

    def implied_covariances(self) -> np.ndarray:
        """Σ̂ = ΛΦΛᵀ + diag(θ) (B, p, p); NaN where nothing was estimated."""
        return implied_covariance(self.loadings, self.latent_correlations, self.residual_variances)

    def result(self, i: int) -> CFAResult:
        """Data set ``i`` as the ``CFAResult`` that ``cfa.fit_cfa`` returns (standardised loadings, latent
        correlations as DataFrames when estimated)."""
        extra: dict[str, object] = {}
        if self.estimated[i]:
            lam = self.loadings[i]
            sigma = implied_covariance(self.loadings[i:i + 1], self.latent_correlations[i:i + 1],
                                       self.residual_variances[i:i + 1])[0]
            sd = np.sqrt(np.clip(np.diagonal(sigma), 1e-300, None))
            rows = [(self.latents[f], self.items[j], float(lam[j, f] / sd[j]))
                    for f, items in enumerate(self.spec) for j in items]
            extra = {"loadings": pd.DataFrame(rows, columns=["latent", "item", "std_loading"]),
                     "latent_correlations": pd.DataFrame(self.latent_correlations[i], index=self.latents,
                                                         columns=self.latents)}
        if not self.converged[i]:
            return _failure(self.n, self.df, self.reason[i], **extra)
        return CFAResult(n=self.n, chi2=float(self.chi2[i]), df=self.df, cfi=float(self.cfi[i]),
                         tli=float(self.tli[i]), rmsea=float(self.rmsea[i]), srmr=float(self.srmr[i]),
                         converged=True, note=self.note[i], chi2_baseline=float(self.chi2_baseline[i]),
                         df_baseline=self.df_baseline, **extra)


def _names(given: Sequence[str] | None, count: int, prefix: str) -> list[str]:
    if given is None:
        return [f"{prefix}{j}" for j in range(count)]
    if len(given) != count:
        raise InputError(f"{len(given)} names for {count} {'items' if prefix == 'v' else 'latents'}")
    return [str(g) for g in given]


def _orient(lam: np.ndarray, phi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flip latents whose loadings sum to < 0 (the sign of a latent is arbitrary), as ``cfa.fit_cfa``."""
    sign = np.where(lam.sum(axis=1) < 0, -1.0, 1.0)
    return lam * sign[:, None, :], phi * sign[:, :, None] * sign[:, None, :]


def _model_reason(spec: list[list[int]], latents: list[str], df: int, n: int) -> str:
    """``fit_cfa``'s failures of the model itself, in its order (the same for every data set): "" if none."""
    few = [latents[f] for f, items in enumerate(spec) if len(items) < 2]
    if few:
        return f"fewer than 2 indicators (not identified): {', '.join(few)}"
    if df < 0:
        return f"model not identified (df = {df})"
    if n < 2:
        return f"too few complete rows (n = {n})"
    return ""


def _data_reasons(s: np.ndarray, variances: np.ndarray, items: list[str]) -> list[str]:
    """``fit_cfa``'s failures of each data set before estimation: constant items, a singular S ("" if none)."""
    reasons = [""] * len(s)
    constant = variances <= CONSTANT_VARIANCE
    for i in np.flatnonzero(constant.any(axis=1)):
        names = [items[j] for j in np.flatnonzero(constant[i])]
        reasons[i] = "all items constant" if len(names) == len(items) else f"constant items (zero variance): {', '.join(names)}"
    rest = np.flatnonzero(~constant.any(axis=1))
    for i in rest[~is_pd(s[rest])]:
        reasons[i] = "sample covariance not positive definite (collinear items or n ≤ p)"
    return reasons


def _correlation_reason(phi: np.ndarray, latents: list[str]) -> str:
    """``fit_cfa``'s text for the largest |latent correlation| (the first in row-major order on ties)."""
    a, b = np.triu_indices(len(latents), 1)
    m = int(np.argmax(np.abs(phi[a, b])))
    return f"latent correlation |r| ≥ 1: {latents[a[m]]}–{latents[b[m]]} r = {phi[a[m], b[m]]:.4f}"


@dataclass
class _Estimates:
    """Oriented estimates of every data set (NaN where not estimated), F_ML, iterations, estimation failures."""

    lam: np.ndarray
    phi: np.ndarray
    theta: np.ndarray
    fmin: np.ndarray
    iterations: np.ndarray
    reason: list[str]


def _estimate(s: np.ndarray, rows: np.ndarray, spec: list[list[int]], latents: list[str], max_iter: int) -> _Estimates:
    """Minimise F_ML for the data sets ``rows`` of s, CHUNK at a time; the others stay NaN."""
    b, p, k = s.shape[0], s.shape[1], len(spec)
    layout = model_layout(spec, p)
    out = _Estimates(np.full((b, p, k), np.nan), np.full((b, k, k), np.nan), np.full((b, p), np.nan),
                     np.full(b, np.nan), np.zeros(b, dtype=int), [""] * b)
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start:start + CHUNK]
        opt = minimise(s[chunk], layout, start_values(s[chunk], layout, spec), max_iter=max_iter)
        lam, phi, theta = unpack(opt.params, layout)
        lam, phi = _orient(lam, phi)
        out.lam[chunk], out.phi[chunk], out.theta[chunk] = lam, phi, theta
        out.fmin[chunk], out.iterations[chunk] = opt.f, opt.iterations
        for j, i in enumerate(chunk):
            if opt.diverged[j]:
                out.reason[i] = (f"{_correlation_reason(phi[j], latents)} "
                                 f"(diverging: stopped past |r| = {DIVERGED_CORRELATION:g})")
            elif not opt.converged[j]:
                out.reason[i] = f"no convergence: {opt.message[j]}"
    return out


def _fit(s: np.ndarray, n: int, spec: list[list[int]], variances: np.ndarray, items: list[str],
         latents: list[str], max_iter: int) -> BatchFit:
    """The rules of ``cfa.fit_cfa`` in its order, per data set, on sample covariances s (B, p, p) of n rows."""
    b, p, k = s.shape[0], s.shape[1], len(spec)
    df = p * (p + 1) // 2 - n_free(spec, p)
    common = _model_reason(spec, latents, df, n)
    reason = [common] * b if common else _data_reasons(s, variances, items)
    est = _estimate(s, np.flatnonzero([not r for r in reason]), spec, latents, max_iter)
    reason = [r or e for r, e in zip(reason, est.reason)]
    estimated = np.isfinite(est.theta).all(axis=1)
    sigma = implied_covariance(est.lam, est.phi, np.nan_to_num(est.theta))
    ok = estimated & np.array([not r for r in reason], dtype=bool)
    for i in np.flatnonzero(ok)[~is_pd(sigma[ok])]:
        reason[i], ok[i] = "implied covariance not positive definite", False
    if k > 1:
        upper_a, upper_b = np.triu_indices(k, 1)
        off_diagonal = np.abs(est.phi[:, upper_a, upper_b]).max(axis=1)
        for i in np.flatnonzero(ok & (np.nan_to_num(off_diagonal) >= CORRELATION_LIMIT)):
            reason[i], ok[i] = _correlation_reason(est.phi[i], latents), False
    chi2, chi2_base, srmr = np.full(b, np.nan), np.full(b, np.nan), np.full(b, np.nan)
    df_base = p * (p - 1) // 2
    if ok.any():
        chi2_base[ok] = baseline_chi2s(s[ok], n)[0]
        chi2[ok] = n * ml_discrepancies(s[ok], sigma[ok])
        srmr[ok] = srmr_indices(s[ok], sigma[ok])
    cfi, tli, rmsea = np.full(b, np.nan), np.full(b, np.nan), np.full(b, np.nan)
    note = [""] * b
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for i in np.flatnonzero(ok):
            cfi[i] = cfi_index(chi2[i], df, chi2_base[i], df_base)
            tli[i] = tli_index(chi2[i], df, chi2_base[i], df_base)
            rmsea[i] = rmsea_index(chi2[i], df, n)
            if not all(math.isfinite(v) for v in (chi2[i], cfi[i], rmsea[i], srmr[i])):
                reason[i], ok[i] = "non-finite fit statistics", False
                continue
            heywood = [items[j] for j in np.flatnonzero(est.theta[i] <= HEYWOOD_FRACTION * variances[i])]
            if heywood:
                note[i] = f"residual variance at 0 (Heywood case): {', '.join(heywood)}"
    for values in (chi2, chi2_base, cfi, tli, rmsea, srmr):
        values[~ok] = np.nan
    return BatchFit(n=n, df=df, df_baseline=df_base, items=items, latents=latents, spec=spec, chi2=chi2,
                    chi2_baseline=chi2_base, cfi=cfi, tli=tli, rmsea=rmsea, srmr=srmr, converged=ok, reason=reason,
                    note=note, fmin=est.fmin, loadings=est.lam, latent_correlations=est.phi,
                    residual_variances=est.theta, estimated=estimated, iterations=est.iterations)


def _check_spec(spec: Sequence[Sequence[int]], p: int) -> list[list[int]]:
    if not spec:
        raise InputError("CFA model has no latents")
    out = [[int(j) for j in latent] for latent in spec]
    if any(j < 0 or j >= p for latent in out for j in latent):
        raise InputError(f"CFA spec names an item outside 0..{p - 1}")
    return out


def fit_covariances(s: np.ndarray, n: int, spec: Sequence[Sequence[int]], *, items: Sequence[str] | None = None,
                    latents: Sequence[str] | None = None, max_iter: int = MAX_ITER) -> BatchFit:
    """Fit the CFA ``spec`` (item column indices per latent) to each sample covariance matrix of s (B, p, p)
    (divisor n, as ``np.cov(..., bias=True)``) of n rows, with every rule of ``cfa.fit_cfa`` per data set.

    ``items`` and ``latents`` name the columns and latents in the reasons (default v0…, f0…). An item counts as
    constant when s_jj ≤ 1e-12 (``fit_cfa`` uses the variance of its column; see ``fit_cfa_batch``).
    """
    s = np.asarray(s, dtype=float)
    if s.ndim != 3 or s.shape[1] != s.shape[2]:
        raise InputError(f"sample covariances must be shaped (B, p, p), not {s.shape}")
    spec_list = _check_spec(spec, s.shape[1])
    variances = np.diagonal(s, axis1=1, axis2=2)
    with _single_threaded():
        return _fit(s, int(n), spec_list, variances, _names(items, s.shape[1], "v"), _names(latents, len(spec_list), "f"),
                    max_iter)


def fit_cfa_batch(x: np.ndarray, spec: Sequence[Sequence[int]], *, items: Sequence[str] | None = None,
                  latents: Sequence[str] | None = None, max_iter: int = MAX_ITER) -> BatchFit:
    """Fit the CFA ``spec`` to each raw data set of x (B, n, p) with every rule of ``cfa.fit_cfa``.

    Rows with a missing (non-finite) value are dropped (listwise), which needs the same complete rows in every
    data set (else InputError); ``n`` is the rows kept. S has divisor n; the constant-item and Heywood rules use
    each column's variance, as ``fit_cfa``.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 3:
        raise InputError(f"data sets must be shaped (B, n, p), not {x.shape}")
    spec_list = _check_spec(spec, x.shape[2])
    complete = np.isfinite(x).all(axis=2)
    if len(x) and not (complete == complete[0]).all():
        raise InputError("the data sets do not have the same complete rows (listwise deletion would differ)")
    if len(x) and not complete[0].all():
        x = x[:, complete[0], :]
    n = x.shape[1]
    variances = x.var(axis=1) if n else np.zeros((x.shape[0], x.shape[2]))
    s = sample_covariances(x) if n else np.zeros((x.shape[0], x.shape[2], x.shape[2]))
    with _single_threaded():
        return _fit(s, n, spec_list, variances, _names(items, x.shape[2], "v"), _names(latents, len(spec_list), "f"),
                    max_iter)


def fit_cfa_fast(data: pd.DataFrame, model: Mapping[str, Sequence[str]]) -> CFAResult:
    """``cfa.fit_cfa`` (latent -> indicator columns; listwise deletion; same rules, reasons and ``CFAResult``)
    with the numpy estimator instead of semopy."""
    latents, columns, frame, spec = model_frame(data, model)
    fit = fit_cfa_batch(frame.to_numpy(dtype=float)[None], spec, items=[str(c) for c in columns],
                        latents=[str(lat) for lat in latents])
    result = fit.result(0)
    if len(result.loadings):  # the model's own labels, not their str()
        result.loadings["latent"] = [lat for lat in latents for _ in model[lat]]
        result.loadings["item"] = [c for lat in latents for c in model[lat]]
        result.latent_correlations.index = result.latent_correlations.columns = latents
    return result


@lru_cache(maxsize=1)
def _blas_controller() -> object:
    from threadpoolctl import ThreadpoolController  # a dependency of scikit-learn

    return ThreadpoolController()


@contextmanager
def _single_threaded() -> Iterator[None]:
    """One BLAS thread: the matrices are tiny, threads only cost (see ``cfa._quiet_single_threaded``)."""
    with _blas_controller().limit(limits=1, user_api="blas"):  # type: ignore[attr-defined]
        yield
