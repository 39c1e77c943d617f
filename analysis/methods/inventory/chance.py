"""Chance bands of the inventory's numbers (``analysis.chance``): each statistic of ``measures.statistics`` recomputed on
null answers of the same design (same personas, items, orders and invalid answers):

- ``uniform``: every valid answer replaced by a uniformly random option (a model answering at random);
- ``permutation``: each item's valid answers (per option order) shuffled across personas, which keeps how often each
  option was given and breaks any link between a persona (its biography and shaping) and its answers.

MTMM's convergent and discriminant numbers have the same two nulls over both inventories: random answers to both,
or the second inventory's personas shuffled against the first's.

ω is left out of the draws (a minres fit per domain and draw, ~2 min per 100 draws on this machine); its band is
undefined with that reason. Drift is better when lower; every other number when higher.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from analysis.chance import cached_draws, simulate, summarize
from analysis.methods.inventory.measures import aligned_scores, statistics
from analysis.methods.inventory.scoring import Sheets

SEED = 20231
NO_OMEGA = "ω is not simulated (a factor fit per draw); see α and λ6"


def null_answers(s: Sheets, kind: str, rng: np.random.Generator) -> np.ndarray:
    """Keyed answers of one null draw."""
    valid = np.isfinite(s.X)
    if kind == "uniform":
        X = np.where(valid, rng.integers(1, s.n_options + 1, size=s.X.shape).astype(float), np.nan)
        return X
    X = s.X.copy()
    for o in range(X.shape[1]):
        for i in range(X.shape[2]):
            rows = np.flatnonzero(valid[:, o, i])
            X[rows, o, i] = X[rng.permutation(rows), o, i]
    return X


def _draws(s: Sheets, kind: str, n_sims: int) -> dict[str, list[float]]:
    return simulate(lambda rng: {k: v for k, (v, _) in statistics(s, null_answers(s, kind, rng), with_omega=False).items()},
                    n_sims, SEED + (kind == "permutation"))


def design(s: Sheets) -> dict[str, Any]:
    return {"personas": s.personas, "orders": s.orders, "items": s.items, "domain": list(s.domain),
            "valid": np.isfinite(s.X).astype(int).tolist(), "targets": s.targets, "k": s.n_options,
            "keyed": np.nan_to_num(s.X, nan=-1).astype(int).tolist()}


def inventory_chance(s: Sheets, name: str, *, n_sims: int, store: Any = None) -> dict[str, Any]:
    """Per statistic: its null summaries (``{"uniform": …, "permutation": …}``)."""
    observed = statistics(s, with_omega=False)
    key = design(s)
    draws = {kind: cached_draws(store, "inventory", key | {"null": kind}, n_sims, SEED, lambda k=kind: _draws(s, k, n_sims))
             for kind in ("uniform", "permutation")}
    out: dict[str, Any] = {}
    for metric, (value, _) in observed.items():
        better = "lower" if metric.startswith("drift") else "higher"
        out[metric] = {kind: summarize(value, [np.nan if v is None else v for v in draws[kind].get(metric, [])],
                                       better=better, kind=kind).to_dict() for kind in draws}
    return out


def mtmm_chance(arrays: dict[str, Sheets], names: list[str], shared: list[str], observed: dict[str, float], *,
                n_sims: int, store: Any = None) -> dict[str, Any]:
    """Null summaries of the MTMM convergent and discriminant numbers (module docstring)."""
    from analysis.methods.inventory.psychometrics import mtmm

    def statistic(kind: str, rng: np.random.Generator) -> dict[str, float]:
        if kind == "uniform":
            scores = aligned_scores(arrays, names, shared, answers={n: null_answers(arrays[n], "uniform", rng) for n in names})
        else:
            second = arrays[names[1]]
            scores = aligned_scores(arrays, names, shared,
                                    order={names[1]: list(rng.permutation([second.personas.index(p) for p in shared]))})
        _, conv, disc, _ = mtmm(scores)
        return {"convergent": conv, "discriminant": disc}

    key = {"mtmm": [design(arrays[n]) for n in names], "shared": shared}
    draws = {kind: cached_draws(store, "inventory", key | {"null": kind}, n_sims, SEED,
                                lambda k=kind: simulate(lambda rng: statistic(k, rng), n_sims, SEED + 7))
             for kind in ("uniform", "permutation")}
    return {metric: {kind: summarize(value, [np.nan if v is None else v for v in draws[kind].get(metric, [])],
                                     better="higher", kind=kind).to_dict() for kind in draws}
            for metric, value in observed.items()}
