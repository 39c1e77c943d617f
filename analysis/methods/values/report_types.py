"""The values report's types (pydantic): what its pages, Compare and the Leaderboard read of it, checked on every
report before it is kept (``Method.report_model``), and the vocabulary its fields are keyed by.

A page module imports from ``analysis.methods.values`` nothing but this module. Numbers a fit or a correlation could
not give are ``None`` (the reason beside them: ``error``, ``cfa_reason``), never 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from analysis.methods.report_model import Frame, ModelReport, Report
from analysis.methods.values import THEORY_POINTS, VALUES

__all__ = ["VALUES", "THEORY_POINTS", "ContextFigures", "ContextReport", "ProfileFigures", "StabilityFigures",
           "ValuesModelReport", "Leaderboard", "ValuesReport"]


class ContextFigures(BaseModel):
    """What the Structure page draws of one context, so it never refits: the MDS layout, value centroids and their
    observed order, each item's movement from its theoretical start, the CFA loadings, separability per value, and
    the lowest Stress MDS reaches from random starts."""

    model_config = ConfigDict(extra="forbid")

    layout: Frame | None
    centroids: Frame | None
    observed_order: list[str]
    movement: Frame | None
    loadings: Frame
    separability: dict[str, Any] | None
    random_start_stress: float | None


class CfaFit(BaseModel):
    """One magnifying-glass CFA model's fit (its indices None, with the reason, when it failed)."""

    model_config = ConfigDict(extra="forbid")

    n: int | None
    chi2: float | None
    df: float | None
    cfi: float | None
    tli: float | None
    rmsea: float | None
    srmr: float | None
    converged: bool
    reason: str | None


class ContextReport(BaseModel):
    """One context × instrument of a model: circumplex Stress, CFA fit (mean of the four groups), separability,
    reliability, and the figures."""

    model_config = ConfigDict(extra="forbid")

    context: str
    instrument: str
    stress: float | None
    cfi: float | None
    tli: float | None
    rmsea: float | None
    srmr: float | None
    cfa_reason: str | None
    cfa: dict[str, CfaFit]
    separability: float | None
    separability_train: float | None
    order_distance: float | None
    alpha: float | None
    omega: float | None
    reliability: dict[str, dict[str, Any]]
    test_retest: float | None
    error: str | None
    figures: ContextFigures


class ProfileFigures(BaseModel):
    """The value scores the pages draw: ``personas`` (persona_id, persona, gender), each persona's ``profiles``
    (context, persona_id, value, score, ipsatised) and the ``means`` per context × value (mean, sd, n)."""

    model_config = ConfigDict(extra="forbid")

    personas: Frame
    profiles: Frame
    means: Frame


class StabilityFigures(BaseModel):
    """What the Stability page draws: the context × context rank-order matrix, per value with CIs, per persona."""

    model_config = ConfigDict(extra="forbid")

    matrix: Frame
    by_value: Frame
    ipsative: Frame


class ValuesModelReport(ModelReport):
    """One model's values document."""

    contexts: dict[str, ContextReport]
    n_personas: int
    n_answers: int
    invalid: int
    profile_figures: ProfileFigures
    rank_order: float | None
    ipsative: float | None
    pairwise_rank_order: dict[str, float | None]
    ci: dict[str, Any]
    stability_figures: StabilityFigures | None = None
    configuration: str
    configurations: list[dict[str, Any]]
    #: Why its numbers cannot stand beside the published leaderboard's (``campaign.off_protocol``); None: they can.
    off_protocol: str | None
    #: What each imported run says of itself (``metrics.imported_notes``): source, reader agreement, re-test replies.
    imported: list[dict[str, Any]] = []


class Leaderboard(BaseModel):
    """The leaderboard over the report's models (Cardinal, Ordinal, Kendall's W, diversity, sensitivity) and the
    models × columns table it scores."""

    model_config = ConfigDict(extra="allow")

    rows: list[dict[str, Any]]
    columns: list[str]
    kendall_w: float | None
    diversity: float | None
    sensitivity: dict[str, Any]
    failure_scoring: str
    column_table: Frame | None = None


class ValuesReport(Report):
    """The values report: every model's document, the leaderboard, the bundled instruments' item wording."""

    models: dict[str, ValuesModelReport]
    leaderboard: Leaderboard
    item_texts: dict[str, dict[str, str]]


OVER_FITTED = "≥ 1 (over-fitted)"


def fit_index_text(x: float | None, digits: int = 3) -> str:
    """How a CFI or TLI is shown wherever a fit is rendered: "—" when undefined, ``OVER_FITTED`` above 1 (a TLI > 1
    means χ²/df < 1, the model fits better than its degrees of freedom expect: over-fitted, typically on few
    personas, never "better than perfect"), else the number with ``digits`` decimals. The raw number stays in the
    data (lavaan does not cap the TLI)."""
    value = math.nan if x is None else float(x)
    if not math.isfinite(value):
        return "—"
    return OVER_FITTED if value > 1.0 else f"{value:.{digits}f}"


#: Fewest personas (rows with every item of the model answered) a magnifying-glass model is fitted on; below it the
#: group is not fitted and has no indices, with the reason "needs ≥ 30 personas …" (``too_few_personas``). Source: the
#: smallest sample size any model needed in the Monte Carlo study of Wolf, Harrington, Clark & Miller (2013, "Sample
#: size requirements for structural equation models", Educational and Psychological Measurement 73(6), 913–934):
#: their requirements ranged from 30 (the best-conditioned models: one factor, strong loadings) to 460 cases. The
#: magnifying-glass models have 2–3 correlated latents and 6–18 items, so 30 is a floor below which no CFA of theirs
#: was adequate, not a size that makes one adequate. On fewer (Lee et al.'s 15 re-asked personas) the fit indices
#: are noise: a TLI of 1.5, χ² below its df.
CFA_MIN_PERSONAS = 30


def chance_bands(report: Mapping[str, Any]) -> dict[str, Any]:
    """``Method.chance``: every model's circumplex and stability nulls, per context, its report's ``chance`` section
    (the fit nulls are drawn per context on demand: ``analysis.methods.values.fit_chance``)."""
    return {m: d.get("chance") for m, d in report["models"].items()}
