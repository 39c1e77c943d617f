"""Chance levels of the Stick to Your Role! metrics, simulated on the model's own design.

The design of one model is what it was asked and which answers were valid: per context × instrument the
personas, the items (with their values), the options of the instrument, and the (persona, item, sample)
cells that hold a valid answer. Two nulls keep that design and change only the answers
(``analysis.chance``):

- ``uniform``: every valid answer is replaced by one of the instrument's option scores, uniformly at random
  (the "random answers" dummy of the reference leaderboard);
- ``permutation``: within each item (and sample), the valid answers are shuffled across personas, so each
  item keeps its answer distribution but no answer belongs to its persona any more.

Each simulated data set goes through the same metric code as the real one (``structure.circumplex``,
``structure.separability``, ``cfa``, ``stability``), with value scores formed as in
``analysis.methods.values.scores.value_scores`` (item score = mean over samples; value score = mean over the value's
items; ipsatised = value score − mean over all the instrument's items; invalid answers left out).
Every metric uses ``n_sims`` draws; separability and the CFA fits, which cost ~0.5 s per context and draw, may be
given fewer (``slow_sims``), stated in every summary; below ``analysis.chance.MIN_VERDICT_SIMS`` defined draws a
summary has a band and a p-value but no verdict. A simulated data set
whose CFA failed in one of the four models has an undefined mean fit, as the observed one would (``cfa``): that
draw is left out of the band, never scored 0 (``n_sims`` of a summary counts the defined draws).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis import chance
from analysis.runs.store import Store
from analysis.methods.values import VALUES, cfa, stability, structure
from analysis.methods.values.scores import ITEM_STAGES, _item_order_key

N_SIMS = 100
#: Good direction of each metric (for percentiles and p-values).
BETTER: dict[str, chance.Better] = {
    "stress": "lower", "order_distance": "lower", "separability": "higher", "cfi": "higher", "rmsea": "lower",
    "srmr": "lower", "rank_order": "higher", "ipsative": "higher",
}
FAST = ("stress", "order_distance")
SLOW = ("separability", "cfi", "rmsea", "srmr")
#: Per-value / per-persona parts whose null draws are pooled into one band (``rank_order_value``, ``ipsative_persona``).
POOLED = ("rank_order_value", "ipsative_persona")
#: What the CFA null draws are, in their cache key: cached draws that scored a failed fit CFI 0 / RMSEA 1 are not reused.
SLOW_DRAWS = "cfa: a failed fit is undefined"
#: Random starts of the "random-start MDS" shown beside the theory-initialised one.
RANDOM_STARTS = 4


@dataclass(frozen=True)
class ContextDesign:
    """One context × instrument of one model: who was asked what, and which answers are valid."""

    key: str
    personas: np.ndarray          # sorted persona ids
    items: list[str]              # instrument order
    item_values: list[str | None]
    person: np.ndarray            # per valid answer: persona index
    item: np.ndarray              # per valid answer: item index
    group: np.ndarray             # per valid answer: item × sample code (permutation stratum)
    scores: np.ndarray            # per valid answer: observed score
    options: np.ndarray           # the instrument's option scores

    def matrix(self, scores: np.ndarray) -> np.ndarray:
        """persona × item mean score over samples (NaN where no valid answer)."""
        n_p, n_i = len(self.personas), len(self.items)
        cell = self.person * n_i + self.item
        total = np.bincount(cell, weights=scores, minlength=n_p * n_i)
        count = np.bincount(cell, minlength=n_p * n_i)
        with np.errstate(invalid="ignore"):
            return (total / np.where(count == 0, np.nan, count)).reshape(n_p, n_i)

    def frame(self, scores: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame(self.matrix(scores), index=pd.Index(self.personas, name="persona_id"),
                            columns=pd.Index(self.items, name="item_id"))

    def keyed_values(self) -> dict[str, str]:
        return {i: v for i, v in zip(self.items, self.item_values) if v}

    def draw(self, rng: np.random.Generator, kind: str) -> np.ndarray:
        """Null scores of the valid answers."""
        if kind == "uniform":
            return rng.choice(self.options, size=len(self.scores))
        order = np.lexsort((rng.random(len(self.scores)), self.group))  # random order within each stratum
        out = np.empty_like(self.scores)
        out[np.argsort(self.group, kind="stable")] = self.scores[order]
        return out

    def value_scores(self, scores: np.ndarray) -> np.ndarray:
        """persona × value ipsatised scores (``VALUES`` order; NaN when the value has no valid item)."""
        m = self.matrix(scores)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: mean of nothing is NaN
            persona_mean = np.nanmean(m, axis=1)
            cols = []
            for v in VALUES:
                idx = [k for k, iv in enumerate(self.item_values) if iv == v]
                cols.append(np.nanmean(m[:, idx], axis=1) if idx else np.full(len(self.personas), np.nan))
        return np.column_stack(cols) - persona_mean[:, None]


def _options(rows: pd.DataFrame) -> np.ndarray:
    scores: set[float] = set()
    for text in rows["option_order"].dropna().unique():
        try:
            scores.update(float(s) for s in (json.loads(text) if isinstance(text, str) else text))
        except (TypeError, ValueError):
            continue
    if not scores:  # imported runs may not record the options: the scores seen are the best guess
        scores = set(pd.to_numeric(rows["score"], errors="coerce").dropna().astype(float))
    return np.array(sorted(scores), dtype=float)


def designs(answers: pd.DataFrame, keys: Mapping[tuple[str, str], str]) -> list[ContextDesign]:
    """The design of each context × instrument of one model's answers (``keys``: display key of each pair)."""
    out = []
    for (context, instrument), key in keys.items():
        rows = answers[(answers["context"] == context) & (answers["instrument"] == instrument)
                       & answers["stage"].isin(ITEM_STAGES)]
        personas = np.sort(rows["persona_id"].unique())
        items = sorted((str(i) for i in rows["item_id"].unique()), key=_item_order_key)
        values = rows.assign(item_id=rows["item_id"].astype(str)).groupby("item_id")["value"].first()
        item_values = [values.get(i) if isinstance(values.get(i), str) and values.get(i) else None for i in items]
        valid = rows[(pd.to_numeric(rows["valid"], errors="coerce") == 1)
                     & pd.to_numeric(rows["score"], errors="coerce").notna()]
        item_index = {i: k for k, i in enumerate(items)}
        item = valid["item_id"].astype(str).map(item_index).to_numpy(dtype=int)
        sample = pd.to_numeric(valid["sample"], errors="coerce").fillna(0).to_numpy(dtype=int)
        out.append(ContextDesign(
            key=key, personas=personas, items=items, item_values=item_values,
            person=np.searchsorted(personas, valid["persona_id"].to_numpy()), item=item,
            group=item * (sample.max(initial=0) + 1) + sample,
            scores=pd.to_numeric(valid["score"]).to_numpy(dtype=float), options=_options(rows)))
    return out


def design_fingerprint(design: Sequence[ContextDesign]) -> list[Any]:
    """What the null draws depend on (for the store cache): everything but the observed answers' order."""
    return [{"key": d.key, "personas": [str(p) for p in d.personas], "items": d.items, "values": d.item_values,
             "cells": np.stack([d.person, d.item, d.group]).tolist(), "options": d.options.tolist(),
             "scores": sorted(d.scores.tolist())} for d in design]


def _cube(design: list[ContextDesign], per_context: list[np.ndarray]) -> stability.ScoreCube:
    personas = np.unique(np.concatenate([d.personas for d in design]))
    x = np.full((len(design), len(VALUES), len(personas)), np.nan)
    for c, (d, s) in enumerate(zip(design, per_context)):
        x[c][:, np.searchsorted(personas, d.personas)] = s.T
    present = ~np.all(np.isnan(x), axis=(0, 2))
    return stability.ScoreCube([d.key for d in design], [v for v, p in zip(VALUES, present) if p], personas, x[:, present])


def stability_of(design: list[ContextDesign], scores: list[np.ndarray], *, parts: bool = False) -> dict[str, float]:
    """Rank-order and ipsative stability of the given answer scores (one array per context); with ``parts`` also
    each value's rank-order stability (``rank_order_value/<value>``) and each persona's ipsative stability
    (``ipsative_persona/<persona>``), whose nulls are pooled into one band per chart."""
    if len(design) < 2:
        return {}
    cube = _cube(design, [d.value_scores(s) for d, s in zip(design, scores)])
    if not cube.values:  # no valid answer anywhere: stability is undefined, not an error
        return {"rank_order": float("nan"), "ipsative": float("nan")}
    ones = np.ones((1, len(cube.personas)))
    out = {"rank_order": float(stability._rank_order_stat(cube, True)(ones)[0]),
           "ipsative": float(stability._ipsative_stat(cube, True)(ones)[0])}
    if parts:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            by_value = np.nanmean(stability._rank_order_rho(cube, ones)[0], axis=0)  # mean over pairs
            by_persona = np.nanmean(stability._ipsative_rho(cube), axis=0)
        out |= {f"rank_order_value/{v}": float(r) for v, r in zip(cube.values, by_value)}
        out |= {f"ipsative_persona/{p}": float(r) for p, r in zip(cube.personas, by_persona)}
    return out


def _keyed(d: ContextDesign) -> tuple[list[int], list[str]]:
    """Column indices of the keyed items (instrument order) and their values."""
    keyed = [k for k, v in enumerate(d.item_values) if v]
    return keyed, [str(d.item_values[k]) for k in keyed]


def _draws(design: Sequence[ContextDesign], index: int, kind: str, n_sims: int, seed: int) -> list[np.ndarray]:
    """The null scores of context ``index`` in simulations 0 … n_sims − 1: simulation ``s`` draws from child ``index``
    of ``default_rng([seed, s])`` (``Generator.spawn``), so a context's draws do not depend on the other contexts."""
    d = design[index]
    return [d.draw(np.random.default_rng([seed, s]).spawn(index + 1)[index], kind) for s in range(n_sims)]


def circumplex_draws(d: ContextDesign, draws: Sequence[np.ndarray]) -> dict[str, list[float]]:
    """Stress and order distance (``structure.circumplex_numbers``) of each simulated data set; NaN where undefined."""
    keyed, values = _keyed(d)
    out: dict[str, list[float]] = {"stress": [], "order_distance": []}
    for scores in draws:
        try:
            stress, distance = structure.circumplex_numbers(d.matrix(scores)[:, keyed], values)
        except ValueError:
            stress = distance = np.nan
        out["stress"].append(stress)
        out["order_distance"].append(distance)
    return out


def separability_draws(d: ContextDesign, draws: Sequence[np.ndarray], cv: int = 5, seed: int = 0) -> list[float]:
    """Cross-validated separability (``structure.separability``'s ``cv_accuracy``, same folds) of each simulated data
    set; NaN where ``separability`` would raise. The folds depend on the items' values only: computed once."""
    keyed, values = _keyed(d)
    labels = np.array(values)
    counts = np.unique(labels, return_counts=True)[1]
    n_splits = min(cv, int(counts.max(initial=0)))
    if len(keyed) < 3 or len(d.personas) < structure.MIN_PERSONAS or len(counts) < 2 or n_splits < 2:
        return [np.nan] * len(draws)
    folds = structure.cv_folds(labels, n_splits, seed)
    out = []
    for scores in draws:
        R = structure.correlation_array(d.matrix(scores)[:, keyed])
        out.append(np.nan if np.isnan(R).any() else structure.cv_accuracy(R, labels, folds))
    return out


def cfa_draws(d: ContextDesign, draws: Sequence[np.ndarray]) -> dict[str, list[float]]:
    """Mean CFI, RMSEA and SRMR over the four magnifying-glass models (``cfa.context_cfa_summary``) of each simulated
    data set; NaN where a model failed."""
    out: dict[str, list[float]] = {k: [] for k in ("cfi", "rmsea", "srmr")}
    keyed = d.keyed_values()
    for scores in draws:
        fit = cfa.context_cfa_summary(cfa.cfa_table(cfa.fit_magnifying_glass_results(d.frame(scores), keyed)))
        for k in out:
            out[k].append(fit[k])
    return out


def context_draws(design: Sequence[ContextDesign], index: int, kind: str, part: str, n_sims: int,
                  seed: int) -> dict[str, list[float]]:
    """One context's null draws: ``part`` "fast" (circumplex: Stress, order distance; seeded ``seed``) or "slow"
    (separability and CFA fit; seeded ``seed + 1``, as before the two were simulated apart)."""
    if part == "fast":
        return circumplex_draws(design[index], _draws(design, index, kind, n_sims, seed))
    draws = _draws(design, index, kind, n_sims, seed + 1)
    return {"separability": separability_draws(design[index], draws)} | cfa_draws(design[index], draws)


def stability_draws(design: Sequence[ContextDesign], kind: str, n_sims: int, seed: int) -> dict[str, list[float]]:
    """Rank-order and ipsative stability (and their pooled parts) of each simulation, over all contexts."""
    per_context = [_draws(design, i, kind, n_sims, seed) for i in range(len(design))]
    out: dict[str, list[float]] = {}
    for s in range(n_sims):
        for name, value in stability_of(design, [draws[s] for draws in per_context], parts=True).items():
            out.setdefault(name, []).append(value)
    return out


def null_draws(design: list[ContextDesign], kind: str, n_sims: int, slow_sims: int, seed: int, *,
               fast: bool = True, slow_contexts: Sequence[str] | None = None,
               store: Store | None = None, workers: int | None = None) -> dict[str, list[float]]:
    """Draws of every metric under null ``kind``: keys ``"<context key>/<metric>"``, ``rank_order``, ``ipsative`` and
    the pooled parts. ``fast``: circumplex metrics and stability (``n_sims``); the slow metrics (separability, CFA;
    ``slow_sims``) for the contexts in ``slow_contexts`` (default all).

    Each part (a context's circumplex draws, its separability and CFA draws, the stability draws) is cached in
    ``store`` apart, keyed by its own design (``analysis.chance.cached_parts``), so the dashboard's per-context fit
    bands and the full report share their draws; parts not cached yet are simulated on ``workers`` processes
    (``analysis.chance.run_parallel``)."""
    fingerprints = design_fingerprint(design)
    parts: dict[str, tuple[Any, Any]] = {}
    if fast:
        for i, d in enumerate(design):
            parts[f"{d.key}|fast"] = ([kind, "fast", i, fingerprints[i]], (context_draws, design, i, kind, "fast", n_sims, seed))
        if len(design) >= 2:
            parts["|stability"] = ([kind, "stability", fingerprints], (stability_draws, design, kind, n_sims, seed))
    if slow_sims:
        for i, d in enumerate(design):
            if slow_contexts is None or d.key in slow_contexts:
                parts[f"{d.key}|slow"] = ([kind, "slow", SLOW_DRAWS, i, fingerprints[i]],
                                          (context_draws, design, i, kind, "slow", slow_sims, seed))
    sims = {name: (slow_sims if name.endswith("|slow") else n_sims) for name in parts}
    draws = chance.cached_parts(store, "values", {name: (what, sims[name]) for name, (what, _) in parts.items()}, seed,
                                {name: job for name, (_, job) in parts.items()}, workers=workers)
    out: dict[str, list[float]] = {}
    for name, values in draws.items():
        key = name.split("|")[0]
        out |= {(f"{key}/{metric}" if key else metric): v for metric, v in values.items()}
    return out


def random_start_stress(matrix: pd.DataFrame, item_values: Mapping[str, str | None], *, starts: int = RANDOM_STARTS,
                        seed: int = 0) -> float:
    """Lowest Stress-1 of non-metric SMACOF from ``starts`` random configurations (standard normal, seeded), run to
    convergence (300 iterations, eps 1e-3) — what the data support when MDS is not started at the theory."""
    keyed, _ = structure._keyed(matrix, dict(item_values))
    D = structure.dissimilarity(structure.item_correlations(keyed))
    rng = np.random.default_rng(seed)
    return min(structure.smacof_nonmetric(D, rng.standard_normal((len(D), 2))).stress for _ in range(starts))


def movement(layout: pd.DataFrame) -> pd.DataFrame:
    """How far each item moved from its theory-initialised start.

    Both configurations are centred and scaled to unit root-mean-square radius (MDS coordinates have no scale of
    their own), then ``moved`` = Euclidean distance between an item's final and starting point, in units of that
    radius (0 = never left its value's theoretical point; the circle's diameter is ~2)."""
    start = np.array([structure.THEORY_POINTS[v] for v in layout["value"]], dtype=float)
    end = layout[["x", "y"]].to_numpy(dtype=float)

    def unit(xy: np.ndarray) -> np.ndarray:
        xy = xy - xy.mean(axis=0)
        return xy / np.sqrt((xy ** 2).sum(axis=1).mean())

    return layout[["item_id", "value"]].assign(moved=np.linalg.norm(unit(end) - unit(start), axis=1))


def observed_of(doc: Mapping[str, Any], key: str, metric: str) -> float | None:
    return (doc.get("contexts", {}).get(key) or {}).get(metric)


def model_chance(answers: pd.DataFrame, doc: Mapping[str, Any], keys: Mapping[tuple[str, str], str], *,
                 n_sims: int = N_SIMS, slow_sims: int | None = None, seed: int = 0, store: Store | None = None,
                 fast: bool = True, slow: bool | str = True, workers: int | None = None) -> dict[str, Any]:
    """Chance document of one model: ``{"contexts": {key: {metric: {kind: summary}}}, "rank_order": {kind: ...},
    "ipsative": {...}, "rank_order_value": {...}, "ipsative_persona": {...}, "n_sims", "slow_sims", "seed"}``; ``doc``
    is the model's ``values_metrics`` entry (observed; the pooled parts carry no observed value). ``fast=False``
    leaves out the circumplex and stability nulls; ``slow`` = True (every context), False (none) or one context key
    says where the separability and CFA nulls are simulated (they cost ~0.5 s per context and draw)."""
    slow_sims = n_sims if slow_sims is None else slow_sims
    slow_contexts = None if slow is True else [] if slow is False else [slow]
    design = designs(answers, keys)
    out: dict[str, Any] = {"contexts": {d.key: {} for d in design}, "n_sims": n_sims, "slow_sims": slow_sims, "seed": seed}
    for kind in chance.NULL_KINDS:
        draws = null_draws(design, kind, n_sims, slow_sims, seed, fast=fast, slow_contexts=slow_contexts, store=store,
                           workers=workers)
        for part in POOLED:  # exchangeable under the null: one band for every value / persona
            pooled = [v for name, values in draws.items() if name.startswith(part + "/") for v in values]
            if pooled:
                out.setdefault(part, {})[kind] = chance.summarize(None, chance.as_floats(pooled), better="higher",
                                                                  kind=kind).to_dict()
        for name, values in draws.items():
            arr = chance.as_floats(values)
            if name.split("/")[0] in POOLED:
                continue
            if "/" in name:
                key, metric = name.rsplit("/", 1)
                summary = chance.summarize(observed_of(doc, key, metric), arr, better=BETTER[metric], kind=kind)
                out["contexts"][key].setdefault(metric, {})[kind] = summary.to_dict()
            else:
                summary = chance.summarize(doc.get(name), arr, better=BETTER[name], kind=kind)
                out.setdefault(name, {})[kind] = summary.to_dict()
    return out
