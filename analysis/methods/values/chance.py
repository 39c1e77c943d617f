"""Chance levels of the Stick to Your Role! metrics, simulated on the model's own design.

The design of one model is what it was asked and which answers were valid: per context × instrument the
personas, the items (with their values), the options of the instrument, and the (persona, item, sample)
cells that hold a valid answer. Two nulls keep that design and change only the answers
(``analysis.chance``):

- ``uniform``: every valid answer is replaced by one of the instrument's option scores, uniformly at random
  (the "random answers" dummy of the reference leaderboard);
- ``permutation``: within each item (and sample), the valid answers are shuffled across personas, so each
  item keeps its answer distribution but no answer belongs to its persona any more.

Each simulated data set goes through the same metric code as the real one, in its array form for thousands of data
sets at once (``structure.circumplex_numbers``, ``structure.correlation_stack`` and ``cv_accuracy`` for
separability, ``cfa_batch`` for the CFA fits, ``stability``; each tested equal to the function the report calls),
with value scores formed as in ``analysis.methods.values.scores.value_scores`` (item score = mean over samples; value
score = mean over the value's items; ipsatised = value score − mean over all the instrument's items; invalid answers
left out). Every metric of a context comes from the same simulated data sets; separability and the CFA fits may be
given fewer (``slow_sims``, the first ones), stated in every summary; below ``analysis.chance.MIN_VERDICT_SIMS``
defined draws a summary has a band and a p-value but no verdict. A simulated data set
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
#: What the separability and CFA null draws are, in their cache key: draws of an earlier kind (a failed fit scored
#: CFI 0 / RMSEA 1; semopy's fits; data sets of their own) are not reused.
SLOW_DRAWS = "cfa: a failed fit is undefined; numpy estimator; the circumplex's data sets"
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
    # each ρ once, reduced as stability._rank_order_stat and _ipsative_stat reduce it (the same numbers, bit for bit)
    rank_rho, ipsative_rho = stability._rank_order_rho(cube, ones), stability._ipsative_rho(cube)
    finite = np.isfinite(ipsative_rho)
    with np.errstate(invalid="ignore", divide="ignore"):
        ipsative = (ones @ np.where(finite, ipsative_rho, 0.0).sum(axis=0)) / (ones @ finite.sum(axis=0).astype(float))
    out = {"rank_order": float(stability._mean(stability._mean(np.swapaxes(rank_rho, 1, 2), True), True)[0]),
           "ipsative": float(ipsative[0])}
    if parts:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            by_value = np.nanmean(rank_rho[0], axis=0)  # mean over pairs
            by_persona = np.nanmean(ipsative_rho, axis=0)
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


def _correlations(d: ContextDesign, draws: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The simulated persona × keyed-item matrices (draws, personas, items) and their item correlations, at once
    (``structure.correlation_stack``: the draws share their missing cells)."""
    keyed, _ = _keyed(d)
    x = np.stack([d.matrix(scores)[:, keyed] for scores in draws]) if draws else np.empty((0, len(d.personas), len(keyed)))
    return x, structure.correlation_stack(x) if len(x) else np.empty((0, len(keyed), len(keyed)))


def circumplex_draws(d: ContextDesign, x: np.ndarray, R: np.ndarray) -> dict[str, list[float]]:
    """Stress and order distance (``structure.circumplex_numbers``) of each simulated data set (``x``: draws × personas
    × keyed items, ``R`` their correlations, ``_correlations``); NaN where undefined."""
    _, values = _keyed(d)
    out: dict[str, list[float]] = {"stress": [], "order_distance": []}
    for matrix, correlations in zip(x, R):
        try:
            stress, distance = structure.circumplex_numbers(matrix, values, correlations=correlations)
        except ValueError:
            stress = distance = np.nan
        out["stress"].append(stress)
        out["order_distance"].append(distance)
    return out


def separability_draws(d: ContextDesign, R: np.ndarray, cv: int = 5, seed: int = 0) -> list[float]:
    """Cross-validated separability (``structure.separability``'s ``cv_accuracy``, same folds) of each simulated data
    set from its item correlations ``R`` (``_correlations``); NaN where ``separability`` would raise. The folds
    depend on the items' values only: computed once."""
    keyed, values = _keyed(d)
    labels = np.array(values)
    counts = np.unique(labels, return_counts=True)[1]
    n_splits = min(cv, int(counts.max(initial=0)))
    if len(keyed) < 3 or len(d.personas) < structure.MIN_PERSONAS or len(counts) < 2 or n_splits < 2:
        return [np.nan] * len(R)
    folds = structure.cv_folds(labels, n_splits, seed)
    return [np.nan if np.isnan(r).any() else structure.cv_accuracy(r, labels, folds) for r in R]


def cfa_draws(d: ContextDesign, draws: Sequence[np.ndarray]) -> dict[str, list[float]]:
    """Mean CFI, RMSEA and SRMR over the four magnifying-glass models (``cfa.context_cfa_summary``) of each simulated
    data set; NaN where a model failed. Every model is fitted to all the data sets at once (``cfa_batch``): they share
    their complete rows, since a null keeps which answers are valid. A data set whose model failed is not fitted to
    the next models: its mean is undefined whatever they give. A design with a model on fewer than
    ``cfa.MIN_PERSONAS`` complete personas is not fitted at all (nor is the observed one)."""
    from analysis.methods.values.cfa_batch import fit_cfa_batch

    n = len(draws)
    models = cfa.magnifying_glass_models(d.items, d.keyed_values())
    if not n or any(not items for model in models.values() for items in model.values()):
        return dict.fromkeys(("cfi", "rmsea", "srmr"), [np.nan] * n)  # a value without items: no model to fit
    cube = np.stack([d.matrix(scores) for scores in draws])  # (draws, personas, items)
    index = {item: k for k, item in enumerate(d.items)}
    complete = [int(np.isfinite(cube[0][:, [index[c] for items in model.values() for c in items]]).all(axis=1).sum())
                for model in models.values()]
    if any(cfa.too_few_personas(n) for n in complete):  # not fitted in the report either: no band (cfa.MIN_PERSONAS)
        return dict.fromkeys(("cfi", "rmsea", "srmr"), [np.nan] * n)
    sums = {key: np.zeros(n) for key in ("cfi", "rmsea", "srmr")}
    alive = np.arange(n)  # the draws whose models all fitted so far: a failed one makes the draw's mean undefined
    for model in models.values():
        columns = [index[c] for items in model.values() for c in items]
        spec, start = [], 0
        for items in model.values():
            spec.append(list(range(start, start + len(items))))
            start += len(items)
        fit = fit_cfa_batch(cube[alive][:, :, columns], spec)
        for key in sums:
            sums[key][alive] += getattr(fit, key)
        alive = alive[np.asarray(fit.converged, dtype=bool) & np.isfinite(fit.cfi)]
    defined = np.zeros(n, dtype=bool)
    defined[alive] = True
    return {key: [float(v) / len(models) if ok else np.nan for v, ok in zip(total, defined)]
            for key, total in sums.items()}


def context_draws(design: Sequence[ContextDesign], index: int, kind: str, n_fast: int, n_slow: int,
                  seed: int) -> dict[str, dict[str, list[float]]]:
    """One context's null draws, from the same simulated data sets (seeded ``seed``; one item correlation matrix each
    serves all its metrics): ``"<key>|fast"`` the circumplex (Stress, order distance) of the first ``n_fast``,
    ``"<key>|slow"`` the separability and CFA fit of the first ``n_slow`` (a part with 0 draws is left out)."""
    d = design[index]
    draws = _draws(design, index, kind, max(n_fast, n_slow), seed)
    x, R = _correlations(d, draws)
    out: dict[str, dict[str, list[float]]] = {}
    if n_fast:
        out[f"{d.key}|fast"] = circumplex_draws(d, x[:n_fast], R[:n_fast])
    if n_slow:
        out[f"{d.key}|slow"] = {"separability": separability_draws(d, R[:n_slow])} | cfa_draws(d, draws[:n_slow])
    return out


def stability_draws(design: Sequence[ContextDesign], kind: str, n_sims: int, seed: int) -> dict[str, dict[str, list[float]]]:
    """``"|stability"``: rank-order and ipsative stability (and their pooled parts) of each simulation, over all
    contexts."""
    per_context = [_draws(design, i, kind, n_sims, seed) for i in range(len(design))]
    out: dict[str, list[float]] = {}
    for s in range(n_sims):
        for name, value in stability_of(design, [draws[s] for draws in per_context], parts=True).items():
            out.setdefault(name, []).append(value)
    return {"|stability": out}


def null_draws(design: list[ContextDesign], kind: str, n_sims: int, slow_sims: int, seed: int, *,
               fast: bool = True, slow_contexts: Sequence[str] | None = None, circumplex: bool = True,
               store: Store | None = None, workers: int | None = None) -> dict[str, list[float]]:
    """Draws of every metric under null ``kind``: keys ``"<context key>/<metric>"``, ``rank_order``, ``ipsative`` and
    the pooled parts. ``fast``: circumplex metrics and stability (``n_sims``); the slow metrics (separability, CFA;
    ``slow_sims``) for the contexts in ``slow_contexts`` (default all); ``circumplex=False`` leaves the circumplex out
    of ``fast`` (stability only).

    Each part (a context's circumplex draws, its separability and CFA draws, the stability draws) is cached in
    ``store`` apart, keyed by its own design (``analysis.chance.cached_parts``), so the dashboard's per-context fit
    bands and the full report share their draws; the parts not cached yet are simulated on ``workers`` processes
    (``analysis.parallel.run_parallel``), a context's two parts in one job when both are missing."""
    fingerprints = design_fingerprint(design)
    parts: dict[str, tuple[Any, int]] = {}
    for i, d in enumerate(design):
        if fast and circumplex:
            parts[f"{d.key}|fast"] = ([kind, "fast", i, fingerprints[i]], n_sims)
        if slow_sims and (slow_contexts is None or d.key in slow_contexts):
            parts[f"{d.key}|slow"] = ([kind, "slow", SLOW_DRAWS, i, fingerprints[i]], slow_sims)
    if fast and len(design) >= 2:
        parts["|stability"] = ([kind, "stability", fingerprints], n_sims)

    def plan(missing: list[str]) -> list[tuple[Any, ...]]:
        jobs: list[tuple[Any, ...]] = [(stability_draws, design, kind, n_sims, seed)] if "|stability" in missing else []
        for i, d in enumerate(design):
            n_fast = n_sims if f"{d.key}|fast" in missing else 0
            n_slow = slow_sims if f"{d.key}|slow" in missing else 0
            if n_fast or n_slow:
                jobs.append((context_draws, design, i, kind, n_fast, n_slow, seed))
        return jobs

    draws = chance.cached_parts(store, "values", parts, seed, plan, workers=workers)
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


#: What the simulations import lazily: the workers of a pool import it as they start (``analysis.parallel``).
HEAVY = ("sklearn.svm", "sklearn.model_selection", "scipy.optimize", "analysis.methods.values.cfa_batch")


def model_draws(answers: pd.DataFrame, keys: Mapping[tuple[str, str], str], *, n_sims: int = N_SIMS,
                slow_sims: int | None = None, seed: int = 0, store: Store | None = None, fast: bool = True,
                slow: bool | str = True, contexts: bool = True, workers: int | None = None) -> dict[str, Any]:
    """The null draws behind ``model_chance`` (both nulls, every part at once: one pool of workers), before any
    observed number is needed: ``{"contexts": [keys], "draws": {kind: null_draws}, "n_sims", "slow_sims", "seed"}``.
    ``contexts=False``: the stability nulls only (what a leaderboard row shows), no context's."""
    slow_sims = n_sims if slow_sims is None else slow_sims
    slow_contexts = None if slow is True and contexts else [] if slow is False or not contexts else [slow]
    from analysis.parallel import shared_pool

    design = designs(answers, keys)
    with shared_pool(workers, HEAVY):
        draws = {kind: null_draws(design, kind, n_sims, slow_sims, seed, fast=fast, slow_contexts=slow_contexts,
                                  circumplex=contexts, store=store, workers=workers) for kind in chance.NULL_KINDS}
    return {"contexts": [d.key for d in design], "draws": draws, "n_sims": n_sims, "slow_sims": slow_sims, "seed": seed}


def summarize_draws(doc: Mapping[str, Any], simulated: Mapping[str, Any]) -> dict[str, Any]:
    """``model_chance``'s document from ``model_draws`` and the model's observed numbers ``doc``."""
    out: dict[str, Any] = {"contexts": {key: {} for key in simulated["contexts"]}, "n_sims": simulated["n_sims"],
                           "slow_sims": simulated["slow_sims"], "seed": simulated["seed"]}
    for kind, draws in simulated["draws"].items():
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


def model_chance(answers: pd.DataFrame, doc: Mapping[str, Any], keys: Mapping[tuple[str, str], str], *,
                 n_sims: int = N_SIMS, slow_sims: int | None = None, seed: int = 0, store: Store | None = None,
                 fast: bool = True, slow: bool | str = True, workers: int | None = None) -> dict[str, Any]:
    """Chance document of one model: ``{"contexts": {key: {metric: {kind: summary}}}, "rank_order": {kind: ...},
    "ipsative": {...}, "rank_order_value": {...}, "ipsative_persona": {...}, "n_sims", "slow_sims", "seed"}``; ``doc``
    is the model's ``values_metrics`` entry (observed; the pooled parts carry no observed value). ``fast=False``
    leaves out the circumplex and stability nulls; ``slow`` = True (every context), False (none) or one context key
    says where the separability and CFA nulls are simulated."""
    return summarize_draws(doc, model_draws(answers, keys, n_sims=n_sims, slow_sims=slow_sims, seed=seed, store=store,
                                            fast=fast, slow=slow, workers=workers))
