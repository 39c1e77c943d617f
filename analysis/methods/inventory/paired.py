"""The inventory's headlines recomputed on resampled units, for Compare's paired CIs (``compare``).

A side's ``Resampler`` maps multiplicities ``W`` (B resamples × its units) to the headline in each resample:

- **shaping ρ**, the mean over domains of Spearman ρ(target level, score) over the personas shaped on the domain
  (``psychometrics.shaping``); units: the design's (``design.units``: repeats of a persona type are one unit), a unit
  drawn m times bringing its personas m times (``stats.multiset_ranks``);
- **α**, the mean over domains of the domain's α as the report gives it (``measures.reliability``; ``alpha_resampler``
  says how each design is resampled).

With all multiplicities 1 each gives the report's headline (the tests hold them to it).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from analysis.methods.inventory import psychometrics as pm
from analysis.methods.inventory.design import persona_types, shaped_types, typed_design, units
from analysis.methods.inventory.measures import levels_of
from analysis.methods.inventory.scoring import Sheets, persona_scores, scale_scores
from analysis.methods.resampled import Resampler
from analysis.reliability import MIN_UNITS
from analysis.stats import multiset_ranks, ties, weighted_rank_correlation


def _positions(ids: list[str]) -> tuple[list[str], np.ndarray]:
    index = {u: k for k, u in enumerate(dict.fromkeys(ids))}
    return list(index), np.array([index[u] for u in ids], dtype=int)


def weighted_alpha(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Cronbach's α of rows ``X`` (n × k, NaN = missing) in each resample, row i counted ``w[b, i]`` times:
    α = k/(k−1)·(1 − tr C / Σ_jl C_jl), C the pairwise-complete covariance (n − 1) of the expanded rows, as
    ``analysis.reliability.cronbach_alpha`` (pingouin) computes it on them; NaN where it is undefined
    (``reliability.why_alpha_undefined``: fewer than ``MIN_UNITS`` complete rows, or a total score without variance)."""
    mask = np.isfinite(X).astype(float)
    x = np.nan_to_num(X)
    n = np.einsum("bi,ij,il->bjl", w, mask, mask)
    sx = np.einsum("bi,ij,il->bjl", w, x, mask)
    sxy = np.einsum("bi,ij,il->bjl", w, x, x)
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = (sxy - sx * np.swapaxes(sx, 1, 2) / n) / (n - 1)
        k = X.shape[1]
        alpha = k / (k - 1) * (1 - np.trace(cov, axis1=1, axis2=2) / cov.sum(axis=(1, 2)))
    complete = mask.all(axis=1)
    total = np.where(complete, x.sum(axis=1), 0.0)
    n_complete = w @ complete
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = w @ total**2 - (w @ total) ** 2 / n_complete
    defined = (n_complete >= MIN_UNITS) & (spread > 1e-9 * np.maximum(1.0, w @ total**2)) & np.isfinite(alpha)
    return np.where(defined, alpha, np.nan)


def _mean_over_domains(values: list[np.ndarray]) -> np.ndarray:
    stacked = np.vstack(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample where no domain is defined: NaN
        return np.nanmean(stacked, axis=0)


def shaping_resampler(s: Sheets) -> Resampler:
    """Shaping ρ, mean over domains, on resampled design units."""
    ids, unit_of = _positions(units(s))
    person = persona_scores(scale_scores(s))
    noun = "persona types" if s.units is not None else "personas"

    def statistic(W: np.ndarray) -> np.ndarray:
        per_domain = []
        for d in s.domains:
            levels, score = levels_of(s, d), person[d]
            ok = np.isfinite(levels) & np.isfinite(score)
            if ok.sum() < 3 or len(set(levels[ok])) < 2:
                continue
            w = W[:, unit_of[ok]]
            per_domain.append(weighted_rank_correlation(multiset_ranks(ties(levels[ok]), w),
                                                        multiset_ranks(ties(score[ok]), w), w))
        return _mean_over_domains(per_domain) if per_domain else np.full(W.shape[0], np.nan)

    return Resampler(ids, noun, statistic)


def alpha_resampler(s: Sheets, doc: Mapping[str, Any]) -> Resampler:
    """α, mean over domains as the report gives it (``measures.reliability``), on resampled units.

    Typed design with repeated units (PersonaLLM: a unit is a type): the units are the types and each resample's α of
    a domain is the median of the report's within-type values (``doc``'s ``alpha_within.by_type``), a type drawn m times
    counting m times. Otherwise the design's units are drawn and α recomputed on their sheets (``weighted_alpha``):
    within each shaping level (or type) and its median where the domain is shaped, over every sheet where not."""
    if typed_design(s) and s.units is not None:
        ids = list(dict.fromkeys(s.units))
        type_of_unit = dict(zip(s.units, (json.dumps(t, sort_keys=True) for t in s.targets)))
        per_domain = [np.array([e["alpha_within"]["by_type"].get(type_of_unit[u]) for u in ids], dtype=float)
                      for e in doc["domains"].values() if e.get("alpha_within")]

        def typed(W: np.ndarray) -> np.ndarray:
            out = []
            for values in per_domain:
                ok = np.isfinite(values)
                out.append(np.array([np.median(np.repeat(values[ok], row[ok].astype(int))) if row[ok].sum() else np.nan
                                     for row in W]))
            return _mean_over_domains(out) if out else np.full(W.shape[0], np.nan)

        return Resampler(ids, "persona types", typed)
    ids, unit_of = _positions(units(s))
    rows = np.repeat(unit_of, len(s.orders))  # domain_items' rows: persona × order

    def domain_alpha(d: str, w: np.ndarray) -> np.ndarray:
        X = pm.domain_items(s.X, s.domain == d).to_numpy(float)
        if not shaped_types(s, d):
            return weighted_alpha(X, w)
        groups = np.repeat(persona_types(s, d), len(s.orders))
        per_group = np.vstack([weighted_alpha(X[groups == g], w[:, groups == g]) for g in dict.fromkeys(groups)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a resample where no group is defined: NaN
            return np.nanmedian(per_group, axis=0)

    def statistic(W: np.ndarray) -> np.ndarray:
        w = W[:, rows]
        return _mean_over_domains([domain_alpha(d, w) for d in s.domains])

    return Resampler(ids, "persona types" if s.units is not None else "personas", statistic)
