"""The cross-method report: the ``metrics cross_method --json`` document.

    {"models": {NAME: {
        "campaign": run id, "n_personas": N,
        "methods": {M: {"run_id", "configuration", "n_scored", "missing": [persona ids], "reason"}},
        "persona_ids": {M: {persona key: the method's own persona id}},
        "constructs": {"M:C": {"method", "construct", "label"}},
        "scores": frame (persona_id, name, key, one column per construct: the persona join),
        "matrix": frame (a, b, within, r, lo, hi, n, reason, chance_lo, chance_hi, p, p_family, family_hi, verdict,
                  pair): verdict against the family-wise (max-|r|) null of the heatmap's cells,
        "pairs": [{"a", "b", "label", "kind", "expected", "human_r", "source", "r", "lo", "hi", "n", "reason",
                   "chance": {lo, hi, mean, n_sims, p, p_holm, family_size, verdict (from p_holm),
                              uncorrected_verdict},
                   "published": [{"model", "model_id", "r", "measures", "source"}] (LLM figures, ``published``)}],
        "pattern": {"value", "lo", "hi", "reason", "against", "n_pairs", "chance"},
        "convergent": {"value", "lo", "hi", "reason", "n_pairs", "chance"},
        "headlines": {"cross_convergent": number, "cross_pattern": number}, "counts": [...],
        "chance": {"convergent": {"permutation": summary}, "pattern": {"permutation": summary}},
        "cells_chance": {"a|b": band + family_hi, p_family, family_size, verdict (family-wise), uncorrected_verdict}
                        (every cross-method cell, with --chance; what ``Method.chance`` hands the pages),
        "pairs_chance": {"a|b": the pair's chance entry (Holm)}, "families": {"cells": {size, n_sims, band, method},
                        "pairs": {size, method, min_draws}} (with --chance; null without),
        "configuration", "configurations"}},
     "sources": {key: citation}}

Each method's persona-level scores come from that method's own report (its ``persona_scores``, on the configuration
of the campaign's run of it) and are joined by persona identity (``analysis.persona_scores.persona_key``); the personas
a method could not score are listed. Statistics: ``analysis.methods.cross_method.correlations``.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from analysis.chance import summarize
from analysis.errors import InputError
from analysis.methods.base import counts, frame_doc, number
from analysis.methods.cross_method import correlations as cr
from analysis.methods.cross_method.families import FAMILY
from analysis.methods.cross_method.pairs import Pair, load_pairs
from analysis.methods.cross_method.plan import CampaignPlan
from analysis.methods.cross_method.published import published_for
from analysis.methods.cross_method.session import PARTS
from analysis.persona_scores import read_persona_scores
from analysis.runs import comparable
from analysis.runs.store import Store
from analysis.stats import counts_from_indices, nanmean_last, percentile_ci, resample_indices


def _val(x: Any) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def method_scores(store: Store, model: str, method: str, run_id: str | None) -> tuple[pd.DataFrame, dict[str, str], list[str], dict[str, Any]]:
    """(scores by persona key, constructs, secondary constructs, where from) of ``method``'s report on the configuration
    of the campaign's run ``run_id``; an empty frame and the reason when there is none."""
    from analysis import methods

    where: dict[str, Any] = {"run_id": run_id, "configuration": None, "reason": None}
    empty = pd.DataFrame(columns=["persona_id", "description"]).rename_axis("key")
    if run_id is None:
        return empty, {}, [], where | {"reason": "the campaign's run of this method was never started"}
    m = methods.get(method)
    config = comparable.configuration_of(comparable.store_runs(store), m.families).get(run_id)
    if config is None:
        return empty, {}, [], where | {"reason": "its run is not in the store"}
    where["configuration"] = config
    try:
        doc = (m.cached_report(store, model, config=config, n_boot=0, chance=0).get("models") or {}).get(model) or {}
    except InputError as exc:  # the method's report has nothing of this model (no answer came back)
        return empty, {}, [], where | {"reason": str(exc).replace(str(store.path), "the store")}
    frame, constructs = read_persona_scores(doc.get("persona_scores"))
    if not constructs:
        where["reason"] = "its report holds no persona scores of this model (no valid answer)"
    return frame, constructs, list((doc.get("persona_scores") or {}).get("secondary") or []), where


@dataclass
class Joined:
    """The campaign's personas × every method's constructs (``X``, NaN where a method did not score a persona), with
    where each column came from."""

    personas: list[Any]
    X: np.ndarray
    columns: list[str]  # "method:construct"
    labels: dict[str, dict[str, str]]  # column -> {method, construct, label}
    blocks: dict[str, list[int]]  # method -> its column positions
    secondary: set[str]
    methods: dict[str, dict[str, Any]]  # method -> {run_id, configuration, reason, n_scored, missing}
    ids: dict[str, dict[str, str]]  # method -> persona key -> the method's own persona id

    def column(self, name: str) -> np.ndarray:
        return self.X[:, self.columns.index(name)]

    def method_of(self, name: str) -> str:
        return self.labels[name]["method"]


def join(store: Store, model: str, plan: CampaignPlan, parts: dict[str, str]) -> Joined:
    """Every part's persona scores joined to the campaign's personas by key (``analysis.persona_scores``)."""
    keys = [p.key for p in plan.personas]
    out = Joined(plan.personas, np.empty((len(keys), 0)), [], {}, {}, set(), {}, {})
    data: list[np.ndarray] = []
    for part in plan.parts:
        frame, constructs, second, where = method_scores(store, model, part.method, parts.get(part.method))
        out.ids[part.method] = {k: str(v) for k, v in frame["persona_id"].items() if k in set(keys)}
        frame = frame.reindex(keys)
        scored = frame[list(constructs)].notna().any(axis=1) if constructs else pd.Series(False, index=keys)
        out.methods[part.method] = where | {"n_scored": int(scored.sum()),
                                            "missing": [p.id for p, ok in zip(plan.personas, scored) if not ok]}
        for c, label in constructs.items():
            col = f"{part.method}:{c}"
            out.blocks.setdefault(part.method, []).append(len(out.columns))
            out.columns.append(col)
            data.append(frame[c].to_numpy(dtype=float))
            out.labels[col] = {"method": part.method, "construct": c, "label": label}
            if c in second:
                out.secondary.add(col)
    if data:
        out.X = np.column_stack(data)
    return out


@dataclass
class Correlations:
    """Per cell (a, b): the observed r and why it is undefined, its bootstrap replicates and its null draws."""

    observed: dict[tuple[str, str], tuple[float, str | None]]
    boot: dict[tuple[str, str], np.ndarray]
    draws: dict[tuple[str, str], np.ndarray]


def correlate(j: Joined, cells: list[tuple[str, str]], *, n_boot: int, chance: int, seed: int) -> Correlations:
    """r of every cell, its ``n_boot`` persona resamples and, across methods, its ``chance`` shuffles
    (``correlations``)."""
    n = len(j.personas)
    W = counts_from_indices(resample_indices(n, n_boot, seed), n) if n_boot > 0 else None
    out = Correlations({}, {}, {})
    for a, b in cells:
        x, y = j.column(a), j.column(b)
        out.observed[a, b] = (float(cr.weighted_r(x, y, np.ones((1, n)))[0]),
                              cr.r_reason(x, y, j.labels[a]["label"], j.labels[b]["label"]))
        out.boot[a, b] = cr.weighted_r(x, y, W) if W is not None else np.empty(0)
    across = [(a, b) for a, b in cells if j.method_of(a) != j.method_of(b)]
    if chance > 0 and across:
        sims = np.full((chance, len(across)), np.nan)
        for s in range(chance):
            shuffled = cr.shuffled(j.X, j.blocks, np.random.default_rng([seed, s]))
            for k, (a, b) in enumerate(across):
                sims[s, k] = cr.weighted_r(shuffled[:, j.columns.index(a)], shuffled[:, j.columns.index(b)],
                                           np.ones((1, n)))[0]
        out.draws = {cell: sims[:, k] for k, cell in enumerate(across)}
    return out


def cell_entry(j: Joined, c: Correlations, a: str, b: str, chance: int) -> dict[str, Any]:
    """A cell's r (None with the reason where undefined), CI, n and chance band."""
    r, why = c.observed[a, b]
    ci = percentile_ci(r, c.boot[a, b]) if len(c.boot[a, b]) and why is None else None
    both = np.isfinite(j.column(a)) & np.isfinite(j.column(b))
    out = {"r": _val(r) if why is None else None, "lo": _val(ci.lo) if ci else None, "hi": _val(ci.hi) if ci else None,
           "n": int(both.sum()), "reason": why, "chance": None}
    if j.method_of(a) == j.method_of(b):
        out["chance_reason"] = "both constructs come from one method: shuffling personas within a method leaves r as it is"
    elif chance > 0:
        out["chance"] = cr.band(out["r"], c.draws[a, b])
    else:
        out["chance_reason"] = "no chance draws asked (--chance 0)"
    return out


MATRIX_COLUMNS = ["a", "b", "within", "r", "lo", "hi", "n", "reason", "chance_lo", "chance_hi", "p", "p_family",
                  "family_hi", "verdict", "pair"]


def model_doc(store: Store, model: str, run_id: str, *, n_boot: int = 1000, chance: int = 0, seed: int = 0,
              pairs_file: Any = None) -> dict[str, Any]:
    """One model's document for its campaign ``run_id`` (see the module docstring)."""
    plan = CampaignPlan.model_validate(store.get_run(run_id)["plan"])
    spec = load_pairs(pairs_file)
    rows = store.table(PARTS.name)
    mine = rows[rows["run_id"] == run_id] if len(rows) else rows
    j = join(store, model, plan, dict(zip(mine["method"], mine["part_run_id"])) if len(mine) else {})
    scores = pd.DataFrame(j.X, columns=j.columns)
    for name, column in (("key", [p.key for p in j.personas]), ("name", [p.name for p in j.personas]),
                         ("persona_id", [p.id for p in j.personas])):
        scores.insert(0, name, column)

    named = {c for p in spec.pairs for c in (p.a, p.b)}
    shown = [c for c in j.columns if c not in j.secondary or c in named]  # facets only where a pair names them
    cells = list(combinations(shown, 2))
    pair_cells = [(p.a, p.b) for p in spec.pairs if p.a in j.columns and p.b in j.columns]
    corr = correlate(j, list(dict.fromkeys(cells + pair_cells)), n_boot=n_boot, chance=chance, seed=seed)

    def entry(a: str, b: str) -> dict[str, Any]:
        return cell_entry(j, corr, a, b, chance)

    kind = {(p.a, p.b): p.kind for p in spec.pairs} | {(p.b, p.a): p.kind for p in spec.pairs}
    # the heatmap's cells across methods are one family: a cell is beyond chance only beyond the max-|r| null
    family = [c for c in cells if c in corr.draws]
    maxima = cr.family_maxima(np.column_stack([corr.draws[c] for c in family])) if family else np.empty(0)
    in_family = {frozenset(c) for c in family}

    def cell_band(a: str, b: str, r: float | None) -> dict[str, Any]:
        """The cell's own band and p, with its verdict against the family-wise null (``uncorrected_verdict``: its
        own p's)."""
        own = cr.band(r, corr.draws[a, b])
        if frozenset((a, b)) not in in_family:
            return own | {"family_hi": None, "p_family": None, "family_size": None, "uncorrected_verdict": own["verdict"],
                          "verdict": None}
        fw = cr.family_band(r, maxima, len(family))
        return own | fw | {"uncorrected_verdict": own["verdict"], "verdict": fw["family_verdict"]}

    rows = []
    for a, b in cells:
        e = entry(a, b)
        band = cell_band(a, b, e["r"]) if e["chance"] else {}
        rows.append({"a": a, "b": b, "within": j.method_of(a) == j.method_of(b), "r": e["r"], "lo": e["lo"],
                     "hi": e["hi"], "n": e["n"], "reason": e["reason"], "chance_lo": band.get("lo"),
                     "chance_hi": band.get("hi"), "p": band.get("p"), "p_family": band.get("p_family"),
                     "family_hi": band.get("family_hi"), "verdict": band.get("verdict"), "pair": kind.get((a, b))})
    pair_docs = [_pair_doc(p, j.columns, j.methods, entry) | {"label": _pair_label(p, j.labels)} for p in spec.pairs]
    _holm(pair_docs, chance)
    doc: dict[str, Any] = {
        "campaign": run_id, "n_personas": len(j.personas), "methods": j.methods, "constructs": j.labels,
        "scores": frame_doc(scores), "persona_ids": j.ids, "matrix": frame_doc(pd.DataFrame(rows, columns=MATRIX_COLUMNS)),
        "pairs": pair_docs,
        "convergent": _convergent(spec.pairs, pair_docs, corr.boot, corr.draws, n_boot, chance),
        "pattern": _pattern(spec.pairs, pair_docs, corr.boot, corr.draws, n_boot, chance),
    }
    doc["headlines"] = {
        "cross_convergent": number(doc["convergent"]["value"], doc["convergent"]["reason"] or "undefined"),
        "cross_pattern": number(doc["pattern"]["value"], doc["pattern"]["reason"] or "undefined"),
    }
    doc["chance"] = {k: {"permutation": doc[k]["chance"]} for k in ("convergent", "pattern") if doc[k].get("chance")}
    doc["cells_chance"] = {f"{a}|{b}": cell_band(a, b, r if why is None else None)
                           for (a, b), (r, why) in corr.observed.items() if (a, b) in corr.draws}
    doc["pairs_chance"] = {f"{p['a']}|{p['b']}": p["chance"] for p in pair_docs if p.get("chance")}
    n_pairs = sum(1 for p in pair_docs if (p.get("chance") or {}).get("p") is not None)
    doc["families"] = {
        "cells": {"size": len(family), "n_sims": int(np.isfinite(maxima).sum()),
                  "band": _val(np.percentile(maxima[np.isfinite(maxima)], 95)) if np.isfinite(maxima).any() else None,
                  "method": "max-|r| permutation over the heatmap's cells across methods (Westfall & Young 1993)"},
        "pairs": {"size": n_pairs, "method": "Holm (1979) over the theory pairs' permutation p",
                  "min_draws": int(np.ceil(n_pairs / cr.ALPHA)) if n_pairs else None},
    } if chance > 0 else None
    missing_any = {pid for d in j.methods.values() for pid in d["missing"]}
    doc["counts"] = [counts("personas not scored by every method", len(missing_any), len(j.personas))]
    return doc


def _holm(docs: list[dict[str, Any]], chance: int) -> None:
    """Each theory pair's chance entry with its Holm-adjusted p over the pairs that have one (``p_holm``, the family
    ``family_size``) and its verdict read from that adjusted p (``uncorrected_verdict``: its own p's)."""
    ps = [(d.get("chance") or {}).get("p") for d in docs]
    adjusted = cr.holm(ps)
    m = sum(p is not None for p in adjusted)
    for d, p in zip(docs, adjusted):
        if d.get("chance"):
            n = int(d["chance"].get("n_sims") or 0)
            d["chance"] = d["chance"] | {"p_holm": p, "family_size": m, "uncorrected_verdict": d["chance"].get("verdict"),
                                         "verdict": cr.family_verdict(p, m, n)}


def _pair_label(p: Pair, labels: dict[str, dict[str, str]]) -> str:
    """"Benevolence – Agreeableness": the constructs' own labels where the campaign has them, else their ids."""
    return " – ".join(labels[c]["label"] if c in labels else c.split(":", 1)[1] for c in (p.a, p.b))


def _pair_doc(p: Pair, columns: list[str], info: dict[str, Any], entry: Any) -> dict[str, Any]:
    base = {"a": p.a, "b": p.b, "label": p.label, "kind": p.kind, "expected": p.expected, "human_r": p.human_r,
            "source": p.source, "published": published_for(p.a, p.b)}
    # a method the campaign did not run explains more than a construct its scores lack
    lacking = sorted((c for c in (p.a, p.b) if c not in columns), key=lambda c: c.split(":", 1)[0] in info)
    if lacking:
        method = lacking[0].split(":", 1)[0]
        why = (info[method]["reason"] or f"{method} scored no construct '{lacking[0].split(':', 1)[1]}' in this campaign "
               "(e.g. an inventory without that facet)") if method in info \
            else f"the campaign did not run {method}"
        return base | {"r": None, "lo": None, "hi": None, "n": 0, "reason": f"{lacking[0]}: {why}", "chance": None}
    return base | entry(p.a, p.b)


def _summary(observed: float | None, draws: np.ndarray | None) -> dict[str, Any] | None:
    if draws is None:
        return None
    return summarize(observed, draws, better="higher", kind="permutation").to_dict()


def _convergent(pairs: list[Pair], docs: list[dict[str, Any]], boot: dict, draws: dict, n_boot: int,
                chance: int) -> dict[str, Any]:
    """The mean r of the convergent pairs that are defined, with its bootstrap CI and its permutation band."""
    cells = [(p.a, p.b) for p, d in zip(pairs, docs) if p.kind == "convergent" and d["r"] is not None]
    if not cells:
        return {"value": None, "lo": None, "hi": None, "n_pairs": 0, "chance": None,
                "reason": "no convergent pair has a defined r (see the pairs for why)"}
    value = float(np.mean([d["r"] for p, d in zip(pairs, docs) if (p.a, p.b) in cells]))
    ci = percentile_ci(value, nanmean_last(np.column_stack([boot[c] for c in cells]))) if n_boot > 0 else None
    sims = nanmean_last(np.column_stack([draws[c] for c in cells])) if chance > 0 and all(c in draws for c in cells) else None
    return {"value": value, "lo": _val(ci.lo) if ci else None, "hi": _val(ci.hi) if ci else None, "n_pairs": len(cells),
            "reason": None, "chance": _summary(value, sims)}


def _pattern(pairs: list[Pair], docs: list[dict[str, Any]], boot: dict, draws: dict, n_boot: int,
             chance: int) -> dict[str, Any]:
    """r_alerting-CV of the pairs' r against the human correlations when every pair has one, else against the
    predicted directions; discriminant pairs on |r| (``correlations.pattern_r``), in the value, its CI and its null."""
    usable = [(p, d) for p, d in zip(pairs, docs) if d["r"] is not None]
    human = bool(usable) and all(p.human_r is not None for p, _ in usable)
    predicted = np.array([p.human_r if human else p.expected for p, _ in usable], dtype=float)
    against = "published human correlations" if human else "predicted directions"
    out = {"against": against, "n_pairs": len(usable), "value": None, "lo": None, "hi": None, "chance": None}
    if len(usable) < 3:
        return out | {"reason": f"{len(usable)} pair(s) with a defined r; the pattern needs 3"}
    if np.ptp(predicted) == 0:
        return out | {"reason": f"the {len(usable)} pairs with a defined r share one prediction (all convergent, or all "
                                "discriminant): a pattern needs predictions that differ"}
    observed = np.array([d["r"] for _, d in usable])
    disc = np.array([p.kind == "discriminant" for p, _ in usable])
    value = float(cr.pattern_r(observed, predicted, disc)[0])
    if not np.isfinite(value):
        return out | {"reason": "the pairs' r are all equal: no pattern to correlate"}
    cells = [(p.a, p.b) for p, _ in usable]
    # the bootstrap and the null on the same definition (discriminant pairs on |r|)
    ci = percentile_ci(value, cr.pattern_r(np.column_stack([boot[c] for c in cells]), predicted, disc)) \
        if n_boot > 0 else None
    sims = cr.pattern_r(np.column_stack([draws[c] for c in cells]), predicted, disc) \
        if chance > 0 and all(c in draws for c in cells) else None
    return out | {"value": value, "lo": _val(ci.lo) if ci else None, "hi": _val(ci.hi) if ci else None, "reason": None,
                  "chance": _summary(value, sims)}


def metrics_json(store: Store, model: str | None = None, config: comparable.Chosen = None, *, n_boot: int = 1000,
                 chance: int = 0, seed: int = 0) -> dict[str, Any]:
    """The document (module docstring) for every model with a campaign (or only ``model``), each on its newest
    campaign unless ``config`` names another configuration."""
    selection = comparable.select(store, FAMILY, model=model, config=config)
    if model is not None and model not in selection.used:
        raise InputError(f"no cross-method campaign of model '{model}' in {store.path}")
    models = {}
    for name, used in selection.used.items():
        run_id = max(used.run_ids, key=lambda r: (selection.order.get(r, 0.0), r))
        models[name] = model_doc(store, name, run_id, n_boot=n_boot, chance=chance, seed=seed) | selection.document(name)
    return {"models": models, "sources": load_pairs().sources}


def report(store: Store, model: str | None = None, *, config: comparable.Chosen = None, n_boot: int = 1000,
           chance: int = 0) -> dict[str, Any]:
    """``Method.report``: ``metrics_json``."""
    return metrics_json(store, model, config=config, n_boot=n_boot, chance=chance)


