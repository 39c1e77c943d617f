"""The cross-method report's types (pydantic): what its pages, Compare and the Leaderboard read of it, checked on every
report before it is kept (``Method.report_model``).

A page module imports from ``analysis.methods.cross_method`` nothing but this module (today its pages need nothing
of it: they read the report through ``app.data`` and its frames with ``analysis.methods.base.doc_frame``). An r a
pair or a cell cannot have (a construct constant over the personas scored on both, too few of them, a method the
campaign did not run) is ``None`` with its ``reason``, never 0; a chance entry is ``None`` without draws
(``chance_reason`` says why).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from analysis.chance import NullSummary
from analysis.methods.report_model import Frame, ModelReport, Report

__all__ = ["MethodPart", "Construct", "ChanceBand", "PairChance", "CellChance", "ChanceSummary", "PublishedR",
           "PairReport", "Convergent", "Pattern", "Families", "CrossMethodModelReport", "CrossMethodReport"]


class MethodPart(BaseModel):
    """One method of the campaign: its run and configuration, how many personas it scored and which it did not (with
    the reason when it scored none)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str | None
    configuration: str | None
    reason: str | None
    n_scored: int
    missing: list[str]


class Construct(BaseModel):
    """A column of the persona join ("method:construct"): its method, construct and label."""

    model_config = ConfigDict(extra="forbid")

    method: str
    construct_: str = Field(alias="construct")  # (``construct`` is a BaseModel method's name)
    label: str


class ChanceBand(BaseModel):
    """A cell's null (``correlations.band``): the central 95 % of the shuffled r, their mean, the draws, p and the
    verdict (None without an observed r)."""

    model_config = ConfigDict(extra="forbid")

    lo: float | None
    hi: float | None
    mean: float | None
    n_sims: int
    p: float | None
    verdict: str | None


class PairChance(ChanceBand):
    """A theory pair's band with its Holm-adjusted p over the pairs (the verdict read from it)."""

    p_holm: float | None
    family_size: int
    uncorrected_verdict: str | None


class CellChance(ChanceBand):
    """A heatmap cell's band with the family-wise (max-|r|) threshold and p (None for a cell outside the family)."""

    family_hi: float | None
    p_family: float | None
    family_size: int | None
    family_verdict: str | None = None
    uncorrected_verdict: str | None


#: A headline against its permutation null: ``analysis.chance.NullSummary.to_dict``, its fields with their types and
#: the ``verdict`` and ``reason`` it adds.
ChanceSummary = create_model(
    "ChanceSummary", __config__=ConfigDict(extra="forbid"),
    **{name: (hint, ...) for name, hint in get_type_hints(NullSummary).items()},
    verdict=(str | None, ...), reason=(str | None, ...))


class PublishedR(BaseModel):
    """A published LLM figure for a pair (shown beside this store's r, never pooled)."""

    model_config = ConfigDict(extra="forbid")

    model: str
    model_id: str
    r: float
    measures: str
    source: str


class PairReport(BaseModel):
    """A convergent or discriminant pair: what theory predicts, its r with CI and n, its chance band."""

    model_config = ConfigDict(extra="forbid")

    a: str
    b: str
    label: str
    kind: Literal["convergent", "discriminant"]
    expected: float
    human_r: float | None
    source: str
    published: list[PublishedR]
    r: float | None
    lo: float | None
    hi: float | None
    n: int
    reason: str | None
    chance: PairChance | None
    chance_reason: str | None = None


class Convergent(BaseModel):
    """The mean r of the convergent pairs with a defined r, its CI and null."""

    model_config = ConfigDict(extra="forbid")

    value: float | None
    lo: float | None
    hi: float | None
    n_pairs: int
    reason: str | None
    chance: ChanceSummary | None


class Pattern(Convergent):
    """r_alerting-CV of the pairs' r against what is predicted (``against``)."""

    against: str


class CellsFamily(BaseModel):
    model_config = ConfigDict(extra="forbid")

    size: int
    n_sims: int
    band: float | None
    method: str


class PairsFamily(BaseModel):
    model_config = ConfigDict(extra="forbid")

    size: int
    method: str
    min_draws: int | None


class Families(BaseModel):
    """The families the verdicts are corrected over: the heatmap's cells across methods and the theory pairs."""

    model_config = ConfigDict(extra="forbid")

    cells: CellsFamily
    pairs: PairsFamily


class CrossMethodModelReport(ModelReport):
    """One model's campaign document (``report.model_doc`` and its configuration)."""

    campaign: str
    n_personas: int
    methods: dict[str, MethodPart]
    constructs: dict[str, Construct]
    scores: Frame
    persona_ids: dict[str, dict[str, str]]
    matrix: Frame
    pairs: list[PairReport]
    convergent: Convergent
    pattern: Pattern
    chance: dict[str, dict[str, ChanceSummary]]
    cells_chance: dict[str, CellChance]
    pairs_chance: dict[str, PairChance]
    families: Families | None
    configuration: str
    configurations: list[dict[str, Any]]


class CrossMethodReport(Report):
    """The cross-method report: every model's campaign and the pairs' sources (key -> citation)."""

    models: dict[str, CrossMethodModelReport]
    sources: dict[str, str]


def chance_bands(report: Mapping[str, Any]) -> dict[str, Any]:
    """``Method.chance``, per model: the headlines' nulls (``convergent``, ``pattern``: ``{"permutation": summary}``) and
    every cross-method cell's band (``cells``: ``"a|b"`` -> band, verdict family-wise), each theory pair's (``pairs``,
    Holm) and the families' sizes (``families``), read from the report's chance sections."""
    return {m: (d.get("chance") or {}) | {"cells": d.get("cells_chance") or {}, "pairs": d.get("pairs_chance") or {},
                                          "families": d.get("families") or {}} for m, d in report["models"].items()}
