"""Value structure: item intercorrelations, theory-initialised non-metric MDS (Stress-1),
the circular order of the values, and separability — as the Stick to Your Role! leaderboard
computes them.

Source of every rule below: the reference leaderboard code (github flowersteam/value_stability,
``visualization_scripts/data_analysis.py``: ``compute_value_structure``, ``compute_correlation``,
``circular_rank_distance``; ``visualization_scripts/data_analysis_utils.py``: ``classify_dots``)
and ARCHITECTURE.md "Method facts — Values". The reference fits
``sklearn.manifold.MDS(n_components=2, metric=False, normalized_stress=True).fit(R, init=theory)``
with scikit-learn ≤ 1.6; newer scikit-learn versions changed that algorithm, so the SMACOF
loop is re-implemented here (``smacof_nonmetric``) instead of calling the installed one.

Pure functions on DataFrames/arrays: no store, no LLM.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from analysis import stats
from analysis.errors import InputError
from analysis.methods.values import THEORY_POINTS, VALUES

#: Theoretical circular rank of each value (Conformity and Tradition share an angle: 7.5).
THEORY_RANKS: dict[str, float] = {
    "Self-Direction": 1, "Stimulation": 2, "Hedonism": 3, "Achievement": 4, "Power": 5,
    "Security": 6, "Conformity": 7.5, "Tradition": 7.5, "Benevolence": 9, "Universalism": 10,
}

#: The reference divides the 10-value rank distance by this (its ``find_max_rank_distance``: max over
#: all 10! orders). With Self-Direction anchored at angle 0, as the metric always is, the reachable
#: maximum is 3.0 (checked by enumerating all orders), so the normalized distance tops out at ~0.88.
MAX_RANK_DISTANCE = 3.4

#: Fewest personas (rows) a correlation is computed from.
MIN_PERSONAS = 3

#: Fewest personas the MDS circumplex (Stress, order distance) is computed on. MDS's objects are the items, not the
#: personas: the personas are the observations each item correlation (the items' dissimilarity) is taken over, so
#: their number bounds what those correlations can say, and below 5 nothing: a Spearman ρ over 4 personas cannot
#: differ from 0 at the 5 % level (its smallest two-sided exact p is 2/4! = 0.083; at 5 personas 2/5! = 0.017), so a
#: circle drawn from them is drawn from correlations none of which is distinguishable from noise (the same 5 as
#: RoleScope's minimum for a correlation across personas, ``analysis.methods.base.MIN_PAIRED_UNITS``). Above it the
#: Stress is judged against the chance band of the same design, not against a fixed sample size.
MDS_MIN_PERSONAS = 5
#: Fewest keyed items (MDS's objects) for a 2-D MDS: Kruskal & Wish (1978, "Multidimensional scaling", Sage)
#: ask for more than four times as many objects as dimensions (I > 4R), so ≥ 9 for the circle's 2 dimensions.
MDS_MIN_ITEMS = 9


def why_no_mds(n_personas: int, n_items: int) -> str | None:
    """Why the MDS circumplex is not computed on ``n_personas`` × ``n_items`` keyed items, or None."""
    if n_items < MDS_MIN_ITEMS:
        return f"value structure needs at least {MDS_MIN_ITEMS} keyed items (MDS in 2 dimensions), got {n_items}"
    if n_personas < MDS_MIN_PERSONAS:
        return f"value structure needs at least {MDS_MIN_PERSONAS} personas, got {n_personas}"
    return None


class StructureInputError(InputError, ValueError):
    """Data the structure metrics cannot be computed from (a ValueError; CLI exit code 2)."""


@dataclass(frozen=True)
class MDSResult:
    """One SMACOF run: final coordinates, Stress-1 and the number of iterations made."""

    coords: np.ndarray
    stress: float
    n_iter: int


@dataclass(frozen=True)
class CircumplexResult:
    """Theory-initialised MDS of the keyed items and the circular order of the value centroids.

    - ``stress``: leaderboard Stress-1 (lower is better; 0.2 is "poor").
    - ``layout``: one row per item: item_id, value, x, y, angle_deg (counter-clockwise from +x, [0, 360)).
    - ``centroids``: one row per value present: value, x, y, angle_deg, rel_angle_deg (angle from
      Self-Direction in the winning direction), observed_rank, theoretical_rank.
    - ``observed_order``: values sorted by rel_angle_deg; ``theoretical_order``: the same values in
      theory order (Self-Direction → Universalism).
    - ``direction``: 'ccw' or 'cw', the reading direction with the smaller rank distance.
    - ``rank_distance``: see ``circular_rank_distance`` (min over both directions);
      ``rank_distance_normalized``: rank_distance / 3.4 as the reference reports it (NaN unless all 10 values).
    - ``correlations``: the keyed item × item Spearman matrix R the layout was computed from.
    """

    stress: float
    n_iter: int
    layout: pd.DataFrame
    centroids: pd.DataFrame
    observed_order: tuple[str, ...]
    theoretical_order: tuple[str, ...]
    direction: str
    rank_distance: float
    rank_distance_normalized: float
    correlations: pd.DataFrame


# --------------------------------------------------------------------------- correlations


def item_correlations(matrix: pd.DataFrame) -> pd.DataFrame:
    """Item × item Spearman correlation across personas (rows) of raw item scores.

    ``matrix``: index persona_id, one column per item (pass the keyed items only), NaN = no
    valid answer. Spearman = Pearson correlation of average ranks (as ``scipy.stats.spearmanr``).
    Constant columns follow the reference leaderboard (``compute_correlation(...,
    override_nans=True)``): both constant → 1, exactly one constant → 0. The diagonal is 1.

    NaN handling (the reference never has NaNs: its parser substitutes a random answer): each
    pair uses the personas that answered both items (pairwise complete); a pair with fewer than
    3 such personas gets NaN. Raises ``StructureInputError`` (a ValueError) with fewer than 3 rows.
    """
    if matrix.shape[0] < MIN_PERSONAS:
        raise StructureInputError(f"item correlations need at least {MIN_PERSONAS} personas, got {matrix.shape[0]}")
    return pd.DataFrame(correlation_array(matrix.to_numpy(dtype=float)), index=matrix.columns, columns=matrix.columns)


def correlation_array(values: np.ndarray) -> np.ndarray:
    """``item_correlations`` on a persona × item array (no checks, no labels)."""
    return correlation_stack(values[None])[0]


def correlation_stack(values: np.ndarray) -> np.ndarray:
    """``item_correlations`` of a stack of persona × item arrays (data sets, personas, items) that have their missing
    answers in the same cells (the chance simulations of one design), at once: (data sets, items, items)."""
    b, n, n_items = values.shape
    observed = ~np.isnan(values[0])
    if b > 1 and not np.array_equal(np.isnan(values), np.broadcast_to(~observed, values.shape)):
        raise ValueError("correlation_stack: the data sets do not have their missing answers in the same cells")
    complete = observed.all(axis=0)
    todo = np.where(~complete)[0]
    out = np.broadcast_to(np.eye(n_items), (b, n_items, n_items)).copy()
    # Fast path: columns without NaN share their rows, so rank once and correlate all at once.
    idx = np.where(complete)[0]
    full_ranks = None
    if len(idx):
        full_ranks = rankdata(values[:, :, idx], axis=1)
        ranks = full_ranks - full_ranks.mean(axis=1, keepdims=True)
        norms = np.sqrt((ranks**2).sum(axis=1))
        const = np.all(values[:, :, idx] == values[:, :1, idx], axis=1)
        safe = np.where(const, 1.0, norms)
        block = (np.swapaxes(ranks, 1, 2) @ ranks) / (safe[:, :, None] * safe[:, None, :])
        first, second = const[:, :, None], const[:, None, :]
        block = np.where(first & second, 1.0, np.where(first | second, 0.0, block))
        out[:, idx[:, None], idx[None, :]] = block
    if len(todo):
        rho = _pairs_with_missing(values, observed, todo, full_ranks)
        out[:, todo, :] = rho
        out[:, :, todo] = np.swapaxes(rho, 1, 2)
    out[:, np.arange(n_items), np.arange(n_items)] = 1.0
    return out


#: Elements of the largest array ``_multiset_pairs`` builds (data sets × items × items × personas); longer stacks go
#: in chunks.
STACK_ELEMENTS = 250_000


def _pairs_with_missing(values: np.ndarray, observed: np.ndarray, todo: np.ndarray,
                        full_ranks: np.ndarray | None = None) -> np.ndarray:
    """Spearman ρ of each item with a missing answer (``todo``) and every item, over the personas who answered both,
    for a stack (b, personas, items) sharing its missing cells: (b, len(todo), items).

    With a complete item, an item's shared personas are its own answered ones: each such item is ranked with every
    complete item within them at once; a complete item's rank there is its rank over all personas (``full_ranks``)
    less, per persona left out, 1 when that persona's answer is lower and ½ when it is equal (exact, and cheaper than
    sorting again while few personas are left out). Two items that both miss answers are ranked within their own shared personas
    (``_multiset_pairs``). ρ = Σ(r−m)(s−m) / √(Σ(r−m)² Σ(s−m)²) with m = (N+1)/2, computed as Σrs − N(N+1)²/4 (as
    ``stats.weighted_rank_correlation``): average ranks are half-integers, so every sum is exact in float64 and the
    two ways give the same ρ to the last bit. Constant items as the reference (both constant → 1, one → 0); fewer
    than ``MIN_PERSONAS`` shared personas → NaN."""
    b = values.shape[0]
    rho = np.full((b, len(todo), values.shape[2]), np.nan)
    full = np.flatnonzero(observed.all(axis=0))
    for t, a in enumerate(todo):
        rows = observed[:, a]
        n = int(rows.sum())
        if not len(full) or n < MIN_PERSONAS:
            continue
        own = rankdata(values[:, rows, a], axis=1)[:, :, None]  # (b, n, 1)
        left_out = np.flatnonzero(~rows)
        if full_ranks is not None and len(left_out) <= n // 4:
            kept, dropped = values[:, rows][:, :, full], values[:, left_out][:, :, full]  # (b, n, c), (b, L, c)
            other = full_ranks[:, rows].copy()
            for k in range(len(left_out)):
                x = dropped[:, k:k + 1]
                other -= (x < kept) + 0.5 * (x == kept)
        else:
            other = rankdata(values[:, rows][:, :, full], axis=1)
        c = n * (n + 1.0) ** 2 / 4.0
        sxy = np.einsum("bnp,bnp->bp", np.broadcast_to(own, other.shape), other) - c
        sxx = np.einsum("bnp,bnp->bp", own, own) - c
        syy = np.einsum("bnp,bnp->bp", other, other) - c
        with np.errstate(invalid="ignore", divide="ignore"):
            value = sxy / np.sqrt(sxx * syy)
        const_a, const_j = ~(sxx > 0), ~(syy > 0)
        rho[:, t, full] = np.where(const_a & const_j, 1.0, np.where(const_a | const_j, 0.0, value))
    chunk = max(1, STACK_ELEMENTS // (len(todo) ** 2 * values.shape[1]))
    for k in range(0, b, chunk):  # both items miss answers
        rho[k:k + chunk, :, todo] = _multiset_pairs(values[k:k + chunk][:, :, todo], observed[:, todo])
    return rho


def _multiset_pairs(values: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """ρ of every pair of items of a stack (b, personas, items) over their shared personas: each item ranked within
    the personas it shares with every other at once (multiset ranks with 0/1 weights, ``analysis.stats``)."""
    shared = (observed[:, :, None] & observed[:, None, :]).transpose(1, 2, 0).astype(float)  # (items, items, n)
    t = stats.ties(np.swapaxes(values, 1, 2))  # (b, items, n)
    parts = (t.order, t.inverse, t.start, t.end)
    own = stats.multiset_ranks(stats.Ties(*(a[:, :, None, :] for a in parts)), shared)
    other = stats.multiset_ranks(stats.Ties(*(a[:, None] for a in parts)), shared)
    rho = stats.weighted_rank_correlation(own, other, shared)
    const_own = ~(_weighted_spread(own, shared) > 0)
    const_other = ~(_weighted_spread(other, shared) > 0)
    rho = np.where(const_own & const_other, 1.0, np.where(const_own | const_other, 0.0, rho))
    return np.where(shared.sum(axis=-1) < MIN_PERSONAS, np.nan, rho)


def _weighted_spread(ranks: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Σ w (r − r̄)² along the last axis (0 when every weighted value is tied)."""
    n = w.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (w * ranks).sum(axis=-1, keepdims=True) / n
    return (w * (ranks - mean) ** 2).sum(axis=-1)


def dissimilarity(R: pd.DataFrame | np.ndarray) -> np.ndarray:
    """Euclidean distance between the rows of ``R`` (each item's correlation profile).

    D_ij = sqrt(Σ_k (R_ik − R_jk)²): what the reference's ``MDS(dissimilarity='euclidean').fit(R)``
    builds from the correlation matrix, computed with scikit-learn's formula (see ``_distances``),
    so it is symmetric to ~1e-15 (not bit-exactly) with a zero diagonal.
    Raises ``StructureInputError`` when ``R`` has NaNs.
    """
    arr = np.asarray(R, dtype=float)
    if arr.ndim != 2:
        raise StructureInputError(f"expected a 2-D correlation matrix, got shape {arr.shape}")
    if np.isnan(arr).any():
        counts = np.isnan(arr).sum(axis=1)
        worst = [int(k) for k in np.argsort(-counts, kind="stable") if counts[k] > 0][:5]
        names = [str(R.index[k]) for k in worst] if isinstance(R, pd.DataFrame) else worst
        raise StructureInputError(
            f"correlations undefined (fewer than {MIN_PERSONAS} common valid answers), most often for items {names}"
        )
    return _distances(arr)


def _distances(X: np.ndarray) -> np.ndarray:
    """Row-to-row Euclidean distances computed exactly as scikit-learn's ``euclidean_distances``.

    d_ij = sqrt(max(‖x_i‖² + ‖x_j‖² − 2 x_i·x_j, 0)), diagonal set to 0, in sklearn's order of
    operations. The rounding of this formula matters: with theory initialisation all items of a
    value start at the same point, and in the next iterations the Guttman update divides by their
    tiny (or clipped-to-zero) distances, so the reference's Stress depends on these exact
    floating-point steps (exact differences instead changed Stress by ~0.003 on a 40-item test).
    """
    sq = np.einsum("ij,ij->i", X, X)[:, None]
    d = -2 * (X @ X.T)
    d += sq
    d += sq.T
    np.maximum(d, 0, out=d)
    np.fill_diagonal(d, 0)
    return np.sqrt(d)


# --------------------------------------------------------------------------- SMACOF


_RESOLUTION = np.finfo(np.float64).resolution


def isotonic_fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``sklearn.isotonic.IsotonicRegression(out_of_bounds="clip").fit_transform(x, y)``, step by step.

    scikit-learn 1.9 (``isotonic.py``, ``_build_y`` and ``_transform``): sort by (x, y); merge runs of x closer than
    the float64 resolution (1e-15) into one point of weight = run length and y = the run's mean (``_make_unique``,
    summed in order); increasing isotonic fit with those weights (``scipy.optimize.isotonic_regression``, pool
    adjacent violators, as scikit-learn calls it); drop interior points equal to both neighbours; interpolate at the
    clipped x. Without the estimator's input checks, which cost ~10x the fit on the 780 distances of 40 items.
    clip: float noise can put a dissimilarity a hair above the fit's range (tied items computed in another order);
    scikit-learn's default then returns NaN and the MDS fails. Inside the range the two are identical.
    """
    from scipy.optimize import isotonic_regression

    order = np.lexsort((y, x))
    xs, ys = x[order], y[order]
    if len(xs) < 2 or np.all(np.diff(xs) >= _RESOLUTION):
        ux, uy, uw = xs, ys, np.ones(len(xs))
    else:
        ux_l, uy_l, uw_l = [], [], []
        current_x, total, weight = xs[0], 0.0, 0.0
        for xj, yj in zip(xs, ys):
            if xj - current_x >= _RESOLUTION:
                ux_l.append(current_x), uy_l.append(total / weight), uw_l.append(weight)
                current_x, total, weight = xj, yj, 1.0
            else:
                total, weight = total + yj, weight + 1.0
        ux_l.append(current_x), uy_l.append(total / weight), uw_l.append(weight)
        ux, uy, uw = np.array(ux_l), np.array(uy_l), np.array(uw_l)
    fit = np.asarray(isotonic_regression(uy, weights=uw, increasing=True).x, dtype=float)
    keep = np.ones(len(fit), dtype=bool)
    keep[1:-1] = (fit[1:-1] != fit[:-2]) | (fit[1:-1] != fit[2:])
    return np.interp(np.clip(x, ux[0], ux[-1]), ux[keep], fit[keep])


def smacof_nonmetric(D: np.ndarray, init: np.ndarray, max_iter: int = 300, eps: float = 1e-3) -> MDSResult:
    """One run of non-metric SMACOF with normalized Stress-1, as scikit-learn 1.4–1.6 ``_smacof_single``.

    Reproduces ``sklearn/manifold/_mds.py`` of scikit-learn 1.6.1 (``metric=False``,
    ``normalized_stress=True``) step by step; with n items, X = ``init``:

    1. d = Euclidean distances of the rows of X (n × n), by scikit-learn's formula (``_distances``).
    2. Isotonic (increasing) regression of the upper-triangle distances on the upper-triangle
       dissimilarities, both flattened row by row; zero dissimilarities count as missing
       (``sklearn.isotonic.IsotonicRegression().fit_transform(sim_flat_w, dis_flat_w)``, which
       averages tied dissimilarities; here with ``out_of_bounds="clip"``, see docs/methods/values.md; computed by
       ``isotonic_fit``, the same steps without the estimator's per-call checks). The disparity matrix d̂ is d with its upper-triangle
       entries replaced by the fit (lower triangle and diagonal keep d, as in scikit-learn),
       then scaled so Σ_ij d̂_ij² = n(n−1)/2.
    3. stress = sqrt(Σ_ij (d_ij − d̂_ij)² / Σ_ij d̂_ij²) — computed BEFORE the update.
    4. Guttman transform: d_ij = 0 → 1e-5; B = −d̂/d off the diagonal, B_ii = Σ_j d̂_ij/d_ij;
       X ← B X / n.
    5. s = Σ_i ‖x_i‖ of the new X; stop if a previous value exists and previous − stress/s < eps;
       previous ← stress/s.

    Returns the coordinates after the last update, the stress computed in that iteration
    (i.e. of the configuration before the update) and the number of iterations made.

    Worth knowing when reading leaderboard numbers: with theory initialisation the first update
    rescales the configuration, so stress/Σ‖x_i‖ changes little afterwards and the rule stops
    after 3 iterations on every population tried in the tests (random and circle-shaped); the
    reference Stress is that of a barely refined layout. The isotonic step is scikit-learn's
    ``IsotonicRegression`` step by step (``isotonic_fit``; the tests compare it with the estimator, and whole runs
    with scikit-learn 1.6.1 to 1e-8).
    Raises ``StructureInputError`` for a non-square/non-symmetric/non-finite ``D``, a wrong
    ``init`` shape, or no non-zero dissimilarity.
    """
    D = np.asarray(D, dtype=float)
    n = D.shape[0]
    if D.ndim != 2 or D.shape[1] != n:
        raise StructureInputError(f"dissimilarities must be a square matrix, got shape {D.shape}")
    if not np.isfinite(D).all():
        raise StructureInputError("dissimilarities contain NaN or infinite values")
    if not np.allclose(D, D.T, atol=1e-10):
        raise StructureInputError("dissimilarities must be symmetric")
    X = np.array(init, dtype=float)
    if X.ndim != 2 or X.shape[0] != n:
        raise StructureInputError(f"init must have shape ({n}, k), got {X.shape}")
    if max_iter < 1:
        raise StructureInputError("max_iter must be at least 1")

    sim_flat = ((1 - np.tri(n)) * D).ravel()
    kept = sim_flat != 0
    if not kept.any():
        raise StructureInputError("all dissimilarities are zero: nothing to scale")
    sim_flat_w = sim_flat[kept]
    old_stress: float | None = None
    stress = np.nan
    it = 0
    for it in range(max_iter):
        dis = _distances(X)
        dis_flat = dis.ravel()
        disparities = dis_flat.copy()
        disparities[kept] = isotonic_fit(sim_flat_w, dis_flat[kept])
        disparities = disparities.reshape((n, n))
        disparities *= np.sqrt((n * (n - 1) / 2) / (disparities**2).sum())

        raw = ((dis_flat - disparities.ravel()) ** 2).sum() / 2
        stress = float(np.sqrt(raw / ((disparities.ravel() ** 2).sum() / 2)))

        dis[dis == 0] = 1e-5
        ratio = disparities / dis
        B = -ratio
        B[np.arange(n), np.arange(n)] += ratio.sum(axis=1)
        X = 1.0 / n * (B @ X)

        size = np.sqrt((X**2).sum(axis=1)).sum()
        if old_stress is not None and (old_stress - stress / size) < eps:
            break
        old_stress = stress / size
    return MDSResult(coords=X, stress=stress, n_iter=it + 1)


# --------------------------------------------------------------------------- circular order


def circular_rank_distance(observed_angles: np.ndarray, theoretical_ranks: np.ndarray) -> float:
    """Mean over values of the circular distance between observed and theoretical rank.

    r_obs = average ranks of ``observed_angles``, r_th = average ranks of ``theoretical_ranks``,
    n values: distance_v = min(|r_th − r_obs|, |r_th − (r_obs − n)|, |r_th − (r_obs + n)|);
    result = mean_v distance_v (reference ``circular_rank_distance``). Rotation is fixed by the
    caller (angles measured from Self-Direction), so this is not rotation-invariant.
    With the 10 theoretical ranks a perfect circle scores 0.1, because Conformity and Tradition
    share rank 7.5 while observed angles give them 7 and 8.
    """
    r_obs = rankdata(np.asarray(observed_angles, dtype=float))
    r_th = rankdata(np.asarray(theoretical_ranks, dtype=float))
    n = len(r_obs)
    distances = np.abs(np.array([r_th - (r_obs - n), r_th - r_obs, r_th - (r_obs + n)])).min(axis=0)
    return float(distances.mean())


def _relative_angles(xy: np.ndarray) -> np.ndarray:
    """Angles (radians, [0, 2π)) counter-clockwise from the first row's angle."""
    angles = np.angle(xy[:, 0] + 1j * xy[:, 1])
    angles = angles - angles[0]
    return angles + (angles < 0) * 2 * np.pi


def value_order(centroids: pd.DataFrame) -> tuple[str, float, pd.DataFrame]:
    """Direction, rank distance and ranked centroids for value centroids (columns value, x, y).

    Values are taken in theory order (Self-Direction first); angles are measured from
    Self-Direction's centroid counter-clockwise ('ccw') and, mirrored (x → −x), clockwise ('cw');
    the direction with the smaller ``circular_rank_distance`` wins (ccw on a tie), as in the
    reference. If Self-Direction is absent the first value present (theory order) is the anchor
    and only the present values are ranked. Returns (direction, distance, centroids + rel_angle_deg, observed_rank, theoretical_rank).
    """
    c = centroids.set_index("value").loc[[v for v in VALUES if v in set(centroids["value"])]].reset_index()
    theory = np.array([THEORY_RANKS[v] for v in c["value"]])
    direction, angles, distance = _direction(c[["x", "y"]].to_numpy(dtype=float), theory)
    c = c.assign(
        rel_angle_deg=np.degrees(angles),
        observed_rank=rankdata(angles),
        theoretical_rank=rankdata(theory),
    )
    return direction, distance, c


def _direction(xy: np.ndarray, theory: np.ndarray) -> tuple[str, np.ndarray, float]:
    """(direction, angles, rank distance) of centroids ``xy`` in theory order (see ``value_order``)."""
    ccw = _relative_angles(xy)
    cw = _relative_angles(xy * np.array([-1.0, 1.0]))
    d_ccw, d_cw = circular_rank_distance(ccw, theory), circular_rank_distance(cw, theory)
    return ("ccw", ccw, d_ccw) if d_ccw <= d_cw else ("cw", cw, d_cw)


# --------------------------------------------------------------------------- public metrics


def _keyed(matrix: pd.DataFrame, item_values: dict[str, str | None]) -> tuple[pd.DataFrame, list[str]]:
    """Columns of ``matrix`` keyed to a value (instrument order kept) and their values; None or NaN = unkeyed."""
    item_values = {k: v for k, v in item_values.items() if isinstance(v, str)}
    unknown = set(item_values.values()) - set(VALUES)
    if unknown:
        raise StructureInputError(f"unknown values {sorted(unknown)}; expected {list(VALUES)}")
    cols = [c for c in matrix.columns if item_values.get(c) is not None]
    why = why_no_mds(matrix.shape[0], len(cols))
    if why:
        raise StructureInputError(why)
    return matrix[cols], [str(item_values[c]) for c in cols]


def circumplex(
    matrix: pd.DataFrame, item_values: dict[str, str | None], max_iter: int = 300, eps: float = 1e-3
) -> CircumplexResult:
    """Leaderboard Stress and the 2-D value circle of one model × context × instrument.

    ``matrix``: index persona_id, columns item_id, raw scores (``scores.item_matrix``);
    ``item_values``: item_id → value (None or absent = unkeyed, ignored). Steps (reference
    ``compute_value_structure``, item-based): R = ``item_correlations`` of the keyed items;
    D = ``dissimilarity(R)``; ``smacof_nonmetric(D, init)`` with every item at its value's
    ``THEORY_POINTS``; value centroid = mean of its items' coordinates; order and
    ``circular_rank_distance`` via ``value_order``. Raises ``StructureInputError`` (a ValueError)
    for < ``MDS_MIN_PERSONAS`` personas, < ``MDS_MIN_ITEMS`` keyed items, unknown values or undefined correlations.
    """
    keyed, values = _keyed(matrix, item_values)
    R = item_correlations(keyed)
    mds = smacof_nonmetric(dissimilarity(R), np.array([THEORY_POINTS[v] for v in values]), max_iter=max_iter, eps=eps)
    x, y = mds.coords[:, 0], mds.coords[:, 1]
    layout = pd.DataFrame(
        {
            "item_id": list(keyed.columns),
            "value": values,
            "x": x,
            "y": y,
            "angle_deg": np.degrees(np.arctan2(y, x)) % 360.0,
        }
    )
    cent = layout.groupby("value", sort=False)[["x", "y"]].mean().reset_index()
    direction, distance, cent = value_order(cent)
    cent.insert(3, "angle_deg", np.degrees(np.arctan2(cent["y"], cent["x"])) % 360.0)
    observed = tuple(cent.sort_values(["rel_angle_deg"], kind="stable")["value"])
    return CircumplexResult(
        stress=mds.stress,
        n_iter=mds.n_iter,
        layout=layout,
        centroids=cent,
        observed_order=observed,
        theoretical_order=tuple(cent["value"]),
        direction=direction,
        rank_distance=distance,
        rank_distance_normalized=distance / MAX_RANK_DISTANCE if len(cent) == len(VALUES) else float("nan"),
        correlations=R,
    )


def circumplex_numbers(keyed: np.ndarray, values: Sequence[str], max_iter: int = 300, eps: float = 1e-3, *,
                       correlations: np.ndarray | None = None) -> tuple[float, float]:
    """(Stress, rank distance) of ``circumplex`` from a persona × keyed-item array and the items' values.

    The same steps without labels or tables, for the chance simulations (thousands of data sets): correlations,
    dissimilarities, theory-initialised SMACOF, value centroids (mean of their items' coordinates) and
    ``circular_rank_distance`` in the better direction. ``correlations``: the keyed items' ``correlation_array``, when
    computed already (``correlation_stack``). Raises ``StructureInputError`` as ``circumplex`` does."""
    if len(values) < MDS_MIN_ITEMS:
        raise StructureInputError(why_no_mds(keyed.shape[0], len(values)))
    unknown = set(values) - set(VALUES)
    if unknown:
        raise StructureInputError(f"unknown values {sorted(unknown)}; expected {list(VALUES)}")
    if keyed.shape[0] < MDS_MIN_PERSONAS:
        raise StructureInputError(why_no_mds(keyed.shape[0], len(values)))
    R = correlation_array(keyed) if correlations is None else correlations
    mds = smacof_nonmetric(dissimilarity(R), np.array([THEORY_POINTS[v] for v in values]),
                           max_iter=max_iter, eps=eps)
    present = [v for v in VALUES if v in set(values)]
    labels = np.array(values)
    xy = np.array([mds.coords[labels == v].mean(axis=0) for v in present])
    return mds.stress, _direction(xy, np.array([THEORY_RANKS[v] for v in present]))[2]


def separability(matrix: pd.DataFrame, item_values: dict[str, str | None], cv: int = 5, seed: int = 0) -> dict:
    """How well a linear SVM tells the values apart from the items' correlation profiles.

    Rows = keyed items, features = the item's row of R (``item_correlations``, as the reference
    ``classify_dots(data=R, labels)``), label = the item's value. Three numbers:

    - ``train_accuracy`` — the reference leaderboard's Separability: one-vs-one linear SVM
      ``OneVsOneClassifier(LinearSVC(dual="auto"))`` (seeded here with ``random_state=seed``)
      fit on all items and scored on those same items. With ~40 items and ~40 features it is
      ≈1.0 even for random answers, so it says little.
    - ``cv_accuracy`` — the honest number: out-of-fold accuracy pooled over all items of a
      linear SVM, ``SVC(kernel="linear")`` (libsvm, one-vs-one, C=1; one call per fold instead
      of 45 liblinear fits, ~40× faster), stratified K-fold shuffled with ``seed``,
      K = min(cv, size of the largest value class); values with fewer items than K miss some
      folds. Chance level ≈ 1/number of values.
    - ``train_accuracy_cv_model`` — the ``cv_accuracy`` classifier scored on its training items,
      for a like-for-like train vs cross-validated comparison.

    Returns those plus n_items, n_classes, n_splits and a ``features`` description. Raises
    ``StructureInputError`` (a ValueError) for < ``MDS_MIN_PERSONAS`` personas, < ``MDS_MIN_ITEMS`` keyed items
    (``_keyed``), < 2 values, K < 2 or undefined correlations.
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.multiclass import OneVsOneClassifier
    from sklearn.svm import SVC, LinearSVC

    keyed, values = _keyed(matrix, item_values)
    R = item_correlations(keyed)
    if R.isna().to_numpy().any():
        dissimilarity(R)  # raises, naming the items
    features = R.to_numpy()
    labels = np.array(values)
    classes, counts = np.unique(labels, return_counts=True)
    if len(classes) < 2:
        raise StructureInputError("separability needs items of at least 2 values")
    n_splits = min(cv, int(counts.max()))
    if n_splits < 2:
        raise StructureInputError(f"separability needs cv >= 2 and a value with >= 2 items (cv={cv})")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.filterwarnings("ignore", message="The least populated class in y")
        reference = OneVsOneClassifier(LinearSVC(dual="auto", random_state=seed)).fit(features, labels)
        svm = SVC(kernel="linear").fit(features, labels)
    return {
        "cv_accuracy": cv_accuracy(features, labels, cv_folds(labels, n_splits, seed)),
        "train_accuracy": float(np.mean(reference.predict(features) == labels)),
        "train_accuracy_cv_model": float(np.mean(svm.predict(features) == labels)),
        "n_items": int(len(labels)),
        "n_classes": int(len(classes)),
        "n_splits": int(n_splits),
        "features": "item correlation profile (the item's row of the Spearman item x item matrix)",
    }


def cv_folds(labels: np.ndarray, n_splits: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train, test) indices of ``StratifiedKFold(n_splits, shuffle=True, random_state=seed)`` over ``labels``.

    They depend on the labels alone, so the chance simulations of one design compute them once."""
    from sklearn.model_selection import StratifiedKFold

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The least populated class in y")
        return list(StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed).split(labels, labels))


def cv_accuracy(features: np.ndarray, labels: np.ndarray, folds: Sequence[tuple[np.ndarray, np.ndarray]]) -> float:
    """Out-of-fold accuracy of ``SVC(kernel="linear")`` (C = 1): each test item predicted by the SVM fitted on the
    other folds, accuracy pooled over all items = ``mean(cross_val_predict(SVC(kernel="linear"), ..., cv=folds) ==
    labels)``. Fitted through scikit-learn's libsvm binding (``sklearn.svm._libsvm``) with the arguments ``SVC``
    passes, without its per-call checks: ~10x faster on 40 items, the same predictions (tested against ``SVC``)."""
    from sklearn.svm import _libsvm

    features = np.ascontiguousarray(features, dtype=np.float64)
    _libsvm.set_verbosity_wrap(0)  # SVC sets it before every fit; libsvm's default prints each optimisation
    correct = 0
    for train, test in folds:
        x = np.ascontiguousarray(features[train])
        classes, y = np.unique(labels[train], return_inverse=True)
        variance = x.var()
        gamma = 1.0 / (x.shape[1] * variance) if variance != 0 else 1.0
        support, vectors, n_support, coef, intercept, prob_a, prob_b, _status, _iterations = _libsvm.fit(
            x, y.astype(np.float64), svm_type=0, sample_weight=np.empty(0), class_weight=np.ones(len(classes)),
            kernel="linear", C=1.0, nu=0.0, probability=0, degree=3, shrinking=1, tol=1e-3, cache_size=200,
            coef0=0.0, gamma=gamma, epsilon=0.0, max_iter=-1, random_seed=0)
        predicted = _libsvm.predict(np.ascontiguousarray(features[test]), support, vectors, n_support, coef, intercept,
                                    prob_a, prob_b, svm_type=0, kernel="linear", degree=3, coef0=0.0, gamma=gamma,
                                    cache_size=200)
        correct += int(np.sum(classes[predicted.astype(int)] == labels[test]))
    return correct / len(labels)
