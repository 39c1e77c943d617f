"""The trust comparison's numbers recomputed on resampled units, for Compare's CIs (``compare``).

Each function gives one side's ``Resampler`` (``analysis.methods.resampled``): the number as a function of unit
multiplicities ``W`` (B resamples × its units), on the rows the side's report read (``cli.side_rows``). With all
multiplicities 1 each gives the report's number (the tests hold them to it).

**Units** (``unit_key``): the persona a reply answers for.

- Imported agent-trust answers: the source's persona (its index in the source's persona file, the same for every
  model and condition), ``"<source>/<persona id>"``.
- Imported ChatGPT-Behavioral sessions: every session asks the same prompt (no persona), so no session of one model
  corresponds to one of another; the unit is the **session**, its model's own (``"<model>/<session id>"``): two
  models never share one, and their difference gets the unpaired CI.
- Native runs: the persona's description (``analysis.persona_scores.persona_key``: the same text is the same persona,
  however a run numbered it), else its id.

**Numbers**:

- ``mean_resampler``: a mean over units (the amount sent of an imported condition; ``trust_vs_human``: the mean on
  the $10 scale minus the human mean, a constant that cancels in A − B).
- ``spearman_resampler``: the median over the given attributes of ρ(belief score, mean sent per level); beliefs are
  fixed, the personas resampled (as the report's own CIs: ``consistency.population_consistency``).
- ``mae_resampler``: the forecast MAE of each given archetype, Σ_i w_i S_i / Σ_i w_i C_i (``forecasting``: S_i, C_i
  the persona's sum of absolute errors and pair count), averaged over the archetypes; personas resampled, a persona
  bringing its games against every archetype.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.resampled import Resampler
from analysis.methods.trust.consistency import Belief, behaviour_frame
from analysis.methods.trust.effects import codes, rank_consistency, weighted_group_stats
from analysis.methods.trust.forecasting import forecast_pairs
from analysis.persona_scores import persona_key

PERSONAS, SESSIONS = "personas", "sessions"


def unit_key(persona_id: Any, *, signature: Mapping[str, Any] | None = None, model: str = "",
             descriptions: Mapping[str, str] | None = None) -> str:
    """A reply's unit (module docstring): ``signature``, its configuration's when imported."""
    from analysis.methods.trust.behavioral import SOURCE as SESSIONS_SOURCE

    pid = str(persona_id)
    if signature is not None and signature.get("imported"):
        source = signature.get("source")
        return f"{model}/{pid}" if source == SESSIONS_SOURCE else f"{source}/{pid}"
    description = (descriptions or {}).get(pid)
    return f"persona {persona_key(description)}" if description is not None else f"id {pid}"


def unit_noun(signature: Mapping[str, Any] | None) -> str:
    """'sessions' for ChatGPT-Behavioral's imported sessions, else 'personas'."""
    from analysis.methods.trust.behavioral import SOURCE as SESSIONS_SOURCE

    imported = signature is not None and signature.get("imported")
    return SESSIONS if imported and signature.get("source") == SESSIONS_SOURCE else PERSONAS


def mean_resampler(ids: Sequence[str], values: Sequence[float], noun: str, minus: float = 0.0) -> Resampler:
    """The mean of ``values`` (one per unit of ``ids``) minus ``minus``, in each resample."""
    x = np.asarray(values, dtype=float)

    def statistic(W: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return (W @ x) / W.sum(axis=1) - minus

    return Resampler(list(ids), noun, statistic)


def _nanmean(stacked: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample where no part is defined: NaN
        return np.nanmean(stacked, axis=axis)


def spearman_resampler(beliefs: Mapping[str, Belief], transfers: pd.DataFrame, attributes: Sequence[str],
                       key: Callable[[str], str]) -> Resampler:
    """Median over ``attributes`` of ρ(belief, behaviour) with the personas of ``transfers`` (unconditioned games at
    the headline endowment, as the report) resampled; ``key``: persona id -> unit."""
    behaviour = behaviour_frame(transfers)
    x = behaviour["sent"].to_numpy(float)
    parts = []
    for attribute in attributes:
        belief = beliefs[attribute]
        values = [(a or {}).get(attribute) for a in behaviour["attributes"]]
        parts.append((belief.scores, codes(values, belief.levels), len(belief.levels)))

    def statistic(W: np.ndarray) -> np.ndarray:
        if not parts:
            return np.full(W.shape[0], np.nan)
        rhos = np.stack([rank_consistency(scores, weighted_group_stats(x, code, n_levels, W)[0])
                         for scores, code, n_levels in parts], axis=-1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a resample where no attribute has a defined ρ: NaN
            return np.nanmedian(rhos, axis=-1)

    return Resampler([key(str(p)) for p in behaviour["persona_id"]], PERSONAS, statistic)


def mae_resampler(rounds: pd.DataFrame, archetypes: Sequence[str], key: Callable[[str], str]) -> Resampler:
    """Mean over ``archetypes`` (str(k)) of each one's forecast MAE, the personas with a pair in one of them
    resampled; ``key``: persona id -> unit."""
    pairs = forecast_pairs(rounds) if len(rounds) else pd.DataFrame(columns=["persona_id", "archetype", "abs_error"])
    pairs = pairs.assign(pid=pairs["persona_id"].astype(str), k=[str(int(k)) for k in pairs["archetype"]])
    pairs = pairs[pairs["k"].isin(list(archetypes))]
    personas = list(dict.fromkeys(pairs["pid"]))
    per = []
    for k in archetypes:
        agg = pairs[pairs["k"] == k].groupby("pid")["abs_error"].agg(["sum", "count"]).reindex(personas).fillna(0.0)
        per.append((agg["sum"].to_numpy(float), agg["count"].to_numpy(float)))

    def statistic(W: np.ndarray) -> np.ndarray:
        if not per:
            return np.full(W.shape[0], np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            maes = np.stack([(W @ s) / (W @ c) for s, c in per], axis=-1)
        return _nanmean(maes, axis=-1)

    return Resampler([key(p) for p in personas], PERSONAS, statistic)
