"""A − B of one headline with a bootstrap CI over the units the two models share (Compare, issue 57).

Each side gives a ``Resampler``: its unit ids and its headline as a function of unit multiplicities ``W`` (B × units;
all ones = the headline). When the two sides share at least ``MIN_PAIRED_UNITS`` units of the same kind, both are
recomputed on the **same** resamples of the shared units (a paired bootstrap: the between-unit variance the two share
cancels), and A − B is the difference on those shared units. Otherwise each side's own units are resampled
independently ("not paired": an unpaired CI of the difference of the two reports' headlines). 95 % percentile
intervals (Efron & Tibshirani 1993, ch. 13), ``analysis.stats``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from analysis.methods.base import MIN_PAIRED_UNITS, Difference, difference
from analysis.stats import counts_from_indices, percentile_ci, resample_indices


@dataclass(frozen=True)
class Resampler:
    """One side's headline as a function of unit multiplicities: ``statistic(W)`` with ``W`` (B, len(ids)); ``noun``
    names the units ("personas", "persona types")."""

    ids: list[str]
    noun: str
    statistic: Callable[[np.ndarray], np.ndarray]


def _weights(ids: list[str], chosen: list[str], counts: np.ndarray) -> np.ndarray:
    """Multiplicities over ``ids`` from multiplicities over ``chosen`` (a subset; the others 0)."""
    W = np.zeros((counts.shape[0], len(ids)))
    where = {u: k for k, u in enumerate(ids)}
    W[:, [where[u] for u in chosen]] = counts
    return W


def resampled_difference(method: str, metric: str, a: Resampler, b: Resampler, a_value: float | None,
                         b_value: float | None, *, key: str | None = None, n_boot: int = 1000,
                         seed: int = 0) -> Difference:
    """The Compare row of one headline (module docstring): A and B as their reports give them, A − B with its CI."""
    if a_value is None or b_value is None or n_boot <= 0:
        return difference(method, metric, a_value, b_value, key=key)
    shared = [u for u in a.ids if u in set(b.ids)] if a.noun == b.noun else []
    if len(shared) >= MIN_PAIRED_UNITS:
        counts = counts_from_indices(resample_indices(len(shared), n_boot, seed), len(shared))
        ones = np.ones((1, len(shared)))
        estimate = float(a.statistic(_weights(a.ids, shared, ones))[0] - b.statistic(_weights(b.ids, shared, ones))[0])
        reps = a.statistic(_weights(a.ids, shared, counts)) - b.statistic(_weights(b.ids, shared, counts))
        ci = percentile_ci(estimate, reps)
        whole = len(shared) == len(a.ids) == len(b.ids)
        note = f"paired over {len(shared)} shared {a.noun}" + ("" if whole else
                                                               f" (A has {len(a.ids)}, B {len(b.ids)})")
        return difference(method, metric, a_value, b_value, ci, note=note, key=key if whole else None)
    if len(a.ids) < MIN_PAIRED_UNITS or len(b.ids) < MIN_PAIRED_UNITS:
        return difference(method, metric, a_value, b_value, key=key,
                          note=f"no CI: fewer than {MIN_PAIRED_UNITS} {a.noun} or {b.noun} on a side")
    ca = counts_from_indices(resample_indices(len(a.ids), n_boot, seed), len(a.ids))
    cb = counts_from_indices(resample_indices(len(b.ids), n_boot, seed + 1), len(b.ids))
    ci = percentile_ci(float(a_value) - float(b_value), a.statistic(ca) - b.statistic(cb))
    why = "different units" if a.noun != b.noun else f"{len(shared)} shared {a.noun}"
    return difference(method, metric, a_value, b_value, ci, key=key,
                      note=f"not paired ({why}): unpaired CI over {len(a.ids)} {a.noun} of A and {len(b.ids)} {b.noun} of B")
