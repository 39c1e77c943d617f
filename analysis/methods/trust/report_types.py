"""The trust report's types (pydantic): what its pages, Compare and the Leaderboard read of it, checked on every
report before it is kept (``Method.report_model``), and the sentences its page says about it (``labels``).

A page module imports from ``analysis.methods.trust`` nothing but this module. Numbers a correlation, an η² or an
MAE could not give are ``None`` (a ranking of fewer than two levels, constant behaviour, no valid pair), never 0; an
interval is ``[lo, hi]``, both ``None`` without bootstrap replicates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from analysis.methods.report_model import Count, ModelReport, Number, Report
from analysis.methods.trust.labels import (
    FORECASTS_IMPORTED,
    agreement_rows,
    count_text,
    imported_rows,
    invalid_text,
    mean_sd_text,
    personas_text,
    shift_text,
    vs_human_text,
)

__all__ = ["FORECASTS_IMPORTED", "count_text", "shift_text", "vs_human_text", "agreement_rows", "imported_rows", "invalid_text", "mean_sd_text", "personas_text", "Interval",
           "Reliability", "PopulationAttribute", "StrategyReport", "ConditioningAttribute", "ConditioningReport",
           "ArchetypeReport", "TrajectoryRound", "IndividualReport", "EndowmentSummary", "BehaviourAttribute",
           "BehaviourReport", "PlayReport", "PersonaSource", "AmountSummary", "AgreementClass", "ImportedEntry",
           "ConditionShift", "PerKind", "TrustModelReport", "TrustReport"]

#: A 95 % interval ``[lo, hi]`` (each None when undefined: no replicate, or fewer than two finite ones).
Interval = tuple[float | None, float | None]


class Reliability(BaseModel):
    """Split-half reliability of behaviour (Spearman–Brown), None with the reason when undefined."""

    model_config = ConfigDict(extra="forbid")

    split_half: float | None
    n_splits: int
    reason: str | None


class PopulationAttribute(BaseModel):
    """One attribute of one strategy: ρ(belief, behaviour ranking), the η²s and |Δη²| with CIs, both rankings, and the
    personas grouped / left out of its levels."""

    model_config = ConfigDict(extra="forbid")

    spearman: float | None
    eta2_belief: float | None
    eta2_behaviour: float | None
    abs_diff: float | None
    spearman_ci: Interval
    eta2_behaviour_ci: Interval
    abs_diff_ci: Interval
    belief_ranking: list[str]
    behaviour_ranking: list[str]
    behaviour_means: dict[str, float | None]
    n_levels_compared: int
    n_grouped: int
    n_outside_levels: int
    outside_levels: dict[str, int]


class StrategyReport(BaseModel):
    """One belief strategy at the headline endowment: per attribute, the medians over attributes and the MAE of η² with
    CIs, the personas who played, split-half reliability (and null bands with ``--chance``)."""

    model_config = ConfigDict(extra="forbid")

    attributes: dict[str, PopulationAttribute]
    median_spearman: float | None
    median_spearman_ci: Interval
    median_abs_diff: float | None
    median_abs_diff_ci: Interval
    mae_eta2: float | None
    mae_eta2_ci: Interval
    n_personas: int
    reliability: Reliability
    chance: dict[str, Any] | None = None


class ConditioningAttribute(BaseModel):
    """One attribute of a conditioned run: ρ of behaviour with the imposed and the original ranking, the prior's
    achieved ρ and target (None for the unconditioned baseline), and η²s."""

    model_config = ConfigDict(extra="forbid")

    spearman_imposed: float | None
    spearman_original: float | None
    target_reached: bool | None
    n_levels: int
    eta2_belief: float | None
    abs_diff: float | None
    spearman_imposed_ci: Interval
    spearman_original_ci: Interval
    prior_spearman: float | None
    target: float | None
    eta2_behaviour: float | None
    imposed: list[str]
    original: list[str]
    behaviour_ranking: list[str]
    n_grouped: int
    n_outside_levels: int
    outside_levels: dict[str, int]


class ConditioningReport(BaseModel):
    """One conditioning ('none', 'self', 'weak', 'strong'): its medians with CIs; with imposed targets also the medians
    over the attributes whose prior reached its target and how many did."""

    model_config = ConfigDict(extra="forbid")

    strategy: str
    run_id: str | None = None
    attributes: dict[str, ConditioningAttribute]
    median_spearman_imposed: float | None
    median_spearman_imposed_ci: Interval
    median_spearman_original: float | None
    median_spearman_original_ci: Interval
    median_spearman_imposed_reached: float | None = None
    median_spearman_imposed_reached_ci: Interval | None = None
    median_spearman_original_reached: float | None = None
    median_spearman_original_reached_ci: Interval | None = None
    n_reached: int | None = None
    n_with_target: int | None = None
    target_tolerance: float | None = None
    mae_eta2: float | None
    mae_eta2_ci: Interval
    n_personas: int
    #: Of its games' replies, those the reader left invalid (None in reports computed before it was counted).
    invalid_transfers: Count | None = None


class ArchetypeReport(BaseModel):
    """Forecast error against one Trustee archetype: MAE per round (None for a round without a pair) and overall."""

    model_config = ConfigDict(extra="forbid")

    mae_by_round: list[float | None]
    mae: float | None
    mae_ci: Interval
    n_personas: int
    n_pairs: int


class TrajectoryRound(BaseModel):
    """One round of one persona against one archetype (the paper's Tables 6–8): forecast, its explanation, the play."""

    model_config = ConfigDict(extra="forbid")

    round: int
    forecast: int | None
    explanation: str | None
    sent: int | None
    returned: int | None
    valid: bool
    reason: str | None
    forecast_reason: str | None


class IndividualReport(BaseModel):
    """The individual level: MAE per archetype, every persona's rounds per archetype (and null bands with
    ``--chance``)."""

    model_config = ConfigDict(extra="forbid")

    archetypes: dict[str, ArchetypeReport]
    trajectories: dict[str, dict[str, list[TrajectoryRound]]]
    chance: dict[str, Any] | None = None


class EndowmentRho(BaseModel):
    """One attribute at one endowment of the ablation."""

    model_config = ConfigDict(extra="forbid")

    spearman: float | None
    abs_diff: float | None


class EndowmentSummary(BaseModel):
    """One strategy at one endowment (the paper's Table 9): mean and median ρ over attributes, median |Δη²|, MAE η²."""

    model_config = ConfigDict(extra="forbid")

    mean_spearman: float | None
    n_attributes_defined: int
    median_spearman: float | None
    median_abs_diff: float | None
    mae_eta2: float | None
    n_personas: int | None
    attributes: dict[str, EndowmentRho]


class BehaviourAttribute(BaseModel):
    """The send by one attribute's levels: mean and count per level, η² (None when every send is equal); given the
    plan's levels, the personas grouped and those outside them."""

    model_config = ConfigDict(extra="forbid")

    means: dict[str, float | None]
    n: dict[str, int]
    eta2: float | None
    n_grouped: int | None = None
    n_outside_levels: int | None = None
    outside_levels: dict[str, int] | None = None


class BehaviourReport(BaseModel):
    """Play alone: the single-round sends (their distribution, mean), per attribute, and which games they come from."""

    model_config = ConfigDict(extra="forbid")

    n_personas: int
    mean_sent: float | None
    sent_counts: dict[str, int]
    attributes: dict[str, BehaviourAttribute]
    conditioning: str
    priors_in_prompt: int


class PlayReport(BaseModel):
    """Mean send per round against one archetype (None for a round nobody played validly) and its count."""

    model_config = ConfigDict(extra="forbid")

    mean_sent: list[float | None]
    n: list[int]
    n_personas: int


class PersonaSource(BaseModel):
    """Where a level's personas come from (``cli.persona_source``): the bank's own fields as its plan recorded them, or
    an imported source and condition."""

    model_config = ConfigDict(extra="allow")

    imported: bool | None = None
    source: str | None = None
    condition: str | None = None
    attribute_set: str | None = None
    split: str | None = None
    n: int | None = None
    size: int | None = None
    seed: int | None = None
    path: str | None = None
    persona_form: Any = None


class AmountSummary(BaseModel):
    """Amounts sent in an imported configuration: of ``n`` personas the ``valid`` ones (``read_share``), their mean
    (with its bound under 90 % read: every unread reply at $0 and at the endowment) and SD, and the count per $1 bin
    [d, d + 1) (``behaviour.dollar_bins``)."""

    model_config = ConfigDict(extra="forbid")

    n: int
    valid: int
    read_share: float | None = None
    mean: Number
    sd: Number
    distribution: dict[str, int]
    n_fractional: int


class AgreementClass(BaseModel):
    """The personas of one reader-agreement class: how many, some ids, what the class means."""

    model_config = ConfigDict(extra="forbid")

    n: int
    examples: list[str]
    label: str


class ConditionShift(BaseModel):
    """An imported condition's shift from the base condition (``versus_human.shift_entry``): the mean of per-persona
    differences (condition − base, $ of a $10 endowment) over the ``n_pairs`` personas valid in both, its paired 95 %
    bootstrap CI over those personas (``[None, None]`` with ``ci_reason``), and the base configuration's id."""

    model_config = ConfigDict(extra="forbid")

    mean: Number
    ci: Interval
    n_pairs: int
    unit: str
    ci_reason: str | None
    base_configuration: str | None


class ImportedEntry(BaseModel):
    """One imported configuration (a condition of the source): the source's amounts, RoleScope's reading of the
    replies, and their agreement."""

    model_config = ConfigDict(extra="forbid")

    condition: str | None
    source: str | None
    endowment: int
    run_ids: list[str]
    used: bool
    supports: str
    amount_sent: AmountSummary
    amount_sent_reader: AmountSummary
    reader_agreement: dict[str, AgreementClass]
    #: None for the base condition itself (and in reports computed before the shift existed).
    shift_from_base: ConditionShift | None = None
    #: Of the condition's replies, those RoleScope's reader left invalid (None in reports computed before it was counted).
    invalid_replies: Count | None = None


class PerKind(BaseModel):
    """A count per kind of answer."""

    model_config = ConfigDict(extra="forbid")

    beliefs: int
    transfers: int
    forecasts: int
    rounds: int


class TrustModelReport(ModelReport):
    """One model's trust document (``cli.metrics_json``)."""

    population: dict[str, StrategyReport]
    conditioning: dict[str, ConditioningReport]
    individual: IndividualReport
    endowment: int | None
    endowments: dict[str, dict[str, EndowmentSummary]]
    invalid: PerKind
    n_rows: PerKind
    invalid_replies: PerKind
    n_replies: PerKind
    invalid_reasons: dict[str, dict[str, int]]
    behaviour: BehaviourReport
    play: dict[str, PlayReport]
    configuration: dict[str, str]
    configurations: dict[str, list[dict[str, Any]]]
    personas: dict[str, PersonaSource]
    imported: dict[str, ImportedEntry]


class TrustReport(Report):
    """The trust report: every model's document."""

    models: dict[str, TrustModelReport]


def chance_bands(report: Mapping[str, Any]) -> dict[str, Any]:
    """``Method.chance``: per model ``{"population": {strategy: null bands}, "individual": null bands}``, each its
    report's ``chance`` section of that part."""
    return {m: {"population": {s: p.get("chance") for s, p in d["population"].items()},
                "individual": d["individual"].get("chance")} for m, d in report["models"].items()}
