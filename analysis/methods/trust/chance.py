"""Chance levels and reliability of the trust-game consistency metrics, on the model's own design.

Population level (median Spearman ρ and median |Δη²| over attributes, per elicitation strategy): the elicited
beliefs are kept and the simulated behaviour is replaced. ``uniform``: every valid transfer becomes a whole dollar
amount drawn uniformly from 0..endowment; ``permutation``: the valid transfers are shuffled across personas (the
amounts are kept, their link to the personas' attributes is broken). ρ under either null has mean ~0; η² of
behaviour does not: with few personas per level chance alone gives η² > 0, which is why |Δη²| needs this band.

Individual level (forecast MAE per archetype, lower is better): ``uniform`` draws every valid forecast uniformly
from 0..endowment; ``permutation`` gives each persona the forecast sequence of another persona playing the same
archetype (forecasts kept, the link to the persona's own play broken).

Reliability: split-half of behaviour by persona resampling — the personas are split at random into two halves
``n_splits`` times; each half gives the attribute's level means and the two are correlated (Spearman); the mean
over splits of each attribute, median over attributes (as the paper summarises ρ), stepped up with Spearman–Brown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis import chance, reliability, stats
from analysis.runs.store import Store
from analysis.methods.trust.consistency import Belief, _attribute_stats, _nanmedian, behaviour_frame
from analysis.methods.trust.effects import codes, weighted_group_stats
from analysis.methods.trust.forecasting import forecast_pairs

N_SIMS = 200
SPLITS = 100


def _medians(beliefs: Mapping[str, Belief], behaviour: pd.DataFrame) -> dict[str, float]:
    none = np.zeros((0, len(behaviour)))
    rhos, diffs = [], []
    for belief in beliefs.values():
        s = _attribute_stats([belief.scores], belief, behaviour, none)
        rhos.append(s["rho"][0])
        diffs.append(abs(belief.eta2 - s["eta2"]))
    return {"median_spearman": float(_nanmedian(np.array(rhos))), "median_abs_diff": float(_nanmedian(np.array(diffs)))}


def population_draws(beliefs: Mapping[str, Belief], transfers: pd.DataFrame, endowment: int, kind: str, n_sims: int,
                     seed: int) -> dict[str, list[float]]:
    behaviour = behaviour_frame(transfers)
    sent = behaviour["sent"].to_numpy(float)

    def statistic(rng: np.random.Generator) -> dict[str, float]:
        if kind == "uniform":
            null = rng.integers(0, endowment + 1, size=len(sent)).astype(float)
        else:
            null = sent[rng.permutation(len(sent))]
        return _medians(beliefs, behaviour.assign(sent=null))

    return chance.simulate(statistic, n_sims, seed)


def individual_draws(rounds: pd.DataFrame, endowment: int, kind: str, n_sims: int, seed: int) -> dict[str, list[float]]:
    pairs = forecast_pairs(rounds)
    out: dict[str, list[float]] = {}
    for k, mine in pairs.groupby("archetype"):
        personas = np.sort(mine["persona_id"].unique())
        rounds_ = np.sort(mine["round"].unique())
        pi = np.searchsorted(personas, mine["persona_id"].to_numpy())
        ri = np.searchsorted(rounds_, mine["round"].to_numpy())
        forecast = np.full((len(personas), len(rounds_)), np.nan)
        forecast[pi, ri] = mine["forecast"].astype(float).to_numpy()
        sent = mine["sent"].astype(float).to_numpy()

        def statistic(rng: np.random.Generator) -> dict[str, float]:
            if kind == "uniform":
                f = rng.integers(0, endowment + 1, size=len(sent)).astype(float)
            else:
                f = forecast[rng.permutation(len(personas))][pi, ri]
            err = np.abs(f - sent)
            return {f"mae/{int(k)}": float(np.nanmean(err)) if np.isfinite(err).any() else float("nan")}

        out |= chance.simulate(statistic, n_sims, seed)
    return out


def strategy_chance(beliefs: Mapping[str, Belief], transfers: pd.DataFrame, doc: Mapping[str, Any], endowment: int, *,
                    n_sims: int = N_SIMS, seed: int = 0, store: Store | None = None) -> dict[str, Any]:
    """``{metric: {kind: summary}}`` for one strategy's ``population_consistency`` document ``doc``."""
    behaviour = behaviour_frame(transfers)
    design = [sorted(beliefs), [b.scores.tolist() for b in beliefs.values()], [b.eta2 for b in beliefs.values()],
              behaviour["persona_id"].astype(str).tolist(), sorted(behaviour["sent"].tolist()), endowment]
    out: dict[str, Any] = {}
    for kind in chance.NULL_KINDS:
        draws = chance.cached_draws(store, "trust-population", [kind, design], n_sims, seed,
                                    lambda: population_draws(beliefs, transfers, endowment, kind, n_sims, seed))
        for name, better in (("median_spearman", "higher"), ("median_abs_diff", "lower")):
            out.setdefault(name, {})[kind] = chance.summarize(doc.get(name), chance.as_floats(draws[name]), better=better,
                                                              kind=kind).to_dict()
    return out


def individual_chance(rounds: pd.DataFrame, doc: Mapping[str, Any], endowment: int, *, n_sims: int = N_SIMS,
                      seed: int = 0, store: Store | None = None) -> dict[str, Any]:
    """``{archetype: {"mae": {kind: summary}}}`` for an ``individual_consistency`` document ``doc``."""
    pairs = forecast_pairs(rounds)
    design = [pairs[["persona_id", "archetype", "round"]].astype(str).values.tolist(),
              sorted(pairs["forecast"].astype(float).tolist()), sorted(pairs["sent"].astype(float).tolist()), endowment]
    out: dict[str, Any] = {}
    for kind in chance.NULL_KINDS:
        draws = chance.cached_draws(store, "trust-individual", [kind, design], n_sims, seed,
                                    lambda: individual_draws(rounds, endowment, kind, n_sims, seed))
        for name, values in draws.items():
            k = name.split("/", 1)[1]
            observed = (doc.get("archetypes", {}).get(k) or {}).get("mae")
            out.setdefault(k, {}).setdefault("mae", {})[kind] = chance.summarize(
                observed, chance.as_floats(values), better="lower", kind=kind).to_dict()
    return out


def split_half(beliefs: Mapping[str, Belief], transfers: pd.DataFrame, *, n_splits: int = SPLITS,
               seed: int = 0) -> dict[str, Any]:
    """Split-half reliability of the behaviour level means (see the module docstring); None with a reason when
    fewer than 4 personas or no attribute has ≥ 2 levels filled in both halves."""
    behaviour = behaviour_frame(transfers)
    n = len(behaviour)
    if n < 4 or not beliefs:
        return {"split_half": None, "reason": f"needs ≥ 4 personas with a valid transfer, has {n}", "n_splits": 0}
    x = behaviour["sent"].to_numpy(float)
    rng = np.random.default_rng(seed)
    half = np.zeros((n_splits, n))
    for s in range(n_splits):
        half[s, rng.permutation(n)[: n // 2]] = 1.0
    rs = []
    for belief in beliefs.values():
        code = codes([a.get(belief.attribute) for a in behaviour["attributes"]], belief.levels)
        first, _ = weighted_group_stats(x, code, len(belief.levels), half)
        second, _ = weighted_group_stats(x, code, len(belief.levels), 1.0 - half)
        rho = stats.spearman(first, second)
        rs.append(rho)
    r = _nanmedian(stats.nanmean_last(np.stack(rs))) if rs else np.nan
    value = reliability.spearman_brown(float(r))
    return {"split_half": value if np.isfinite(value) else None, "n_splits": n_splits,
            "reason": None if np.isfinite(value) else "no attribute has two levels filled in both halves"}
