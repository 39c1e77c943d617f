"""The MBTI report's types (pydantic): what its pages, Compare and the Leaderboard read of it, checked on every report
before it is kept (``Method.report_model``), and the vocabulary its fields are keyed by (dimensions, poles, options).

A page module imports from ``analysis.methods.mbti`` nothing but this module. A number that cannot be computed (a
consistency from one testing, a fairness pair missing a subject) is ``None``, never 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from analysis.methods.mbti import DIMENSION_NAMES, DIMENSIONS, OPTIONS, POLES, type_with_role
from analysis.methods.mbti.labels import decided_text, gap_rows, score_rows
from analysis.methods.report_model import Frame, ModelReport, Number, Report

__all__ = ["decided_text", "gap_rows", "score_rows", "DIMENSIONS", "DIMENSION_NAMES", "OPTIONS", "POLES", "type_with_role", "Letter", "SubjectUncertainty", "DimensionGap", "TypeGap", "Distribution", "SubjectReport",
           "MbtiModelReport", "MbtiReport"]


class Letter(BaseModel):
    """One dimension's letter of a subject's type with its uncertainty: the pole its 95 % CI over statements lies on
    (``decided``), or both poles "E/I" (its CI includes 50, or too few statements) / "X" (no valid answer) with the ``reason``."""

    model_config = ConfigDict(extra="forbid")

    letter: str
    decided: bool
    reason: str | None


class SubjectUncertainty(BaseModel):
    """A subject's statement bootstrap (``uncertainty.subject_uncertainty``): per dimension the 95 % CI of its score
    ([lo, hi], None when undefined), the statements it rests on and the decided letter; the type with "[E/I]" for an
    undecided letter, and how many of its four letters are decided."""

    model_config = ConfigDict(extra="forbid")

    scores_ci: dict[str, tuple[float | None, float | None]]
    n_statements: dict[str, int]
    letters: dict[str, Letter]
    type: str
    n_decided: int
    decidable: bool
    n_boot: int


class DimensionGap(BaseModel):
    """One dimension of a pair's type gap: X_first − X_second with its paired 95 % CI over the statements either
    answered (``n_shared``: both), the two letters (as the report's types give them) and whether they differ."""

    model_config = ConfigDict(extra="forbid")

    diff: Number
    ci: tuple[float | None, float | None]
    n_statements: int
    n_shared: int
    letters: tuple[str | None, str | None]
    letters_differ: bool


class TypeGap(BaseModel):
    """The type gap of a subject pair ("Men|Women"): per dimension, and how many of the four type letters differ."""

    model_config = ConfigDict(extra="forbid")

    dimensions: dict[str, DimensionGap]
    n_letters_differ: int


class SubjectReport(BaseModel):
    """One subject ("Men", "Doctors"): its dimension scores (percent towards the first pole), type, consistency over
    its testings, and the SD of each score over them (the chart's whiskers)."""

    model_config = ConfigDict(extra="forbid")

    scores: dict[str, float | None]
    type: str | None
    role: str | None
    background: str | None
    consistency: float | None
    n_testings: int
    invalid: int
    truncated: int
    sd: dict[str, float | None] | None = None
    uncertainty: SubjectUncertainty | None = None


class Distribution(BaseModel):
    """The answers-per-statement chart of one subject × option order: per statement, its option counts over the
    testings, invalid count and most frequent option (``statements``)."""

    model_config = ConfigDict(extra="forbid")

    subject: str
    order_mode: str
    statements: Frame


class MbtiModelReport(ModelReport):
    """One model's MBTI document."""

    subjects: dict[str, SubjectReport]
    robustness: dict[str, float | None]
    fairness: dict[str, float | None]
    #: "Men|Women" -> the pair's type gap (only pairs whose two subjects were asked).
    type_gaps: dict[str, TypeGap] = {}
    reliability: dict[str, Any]
    distributions: list[Distribution]
    configuration: str
    configurations: list[dict[str, Any]]
    chance: dict[str, Any] | None = None


class MbtiReport(Report):
    """The MBTI report: every model's document."""

    models: dict[str, MbtiModelReport]


def chance_bands(report: Mapping[str, Any]) -> dict[str, Any]:
    """``Method.chance``: each model's null bands, its report's ``chance`` section."""
    return {m: d.get("chance") for m, d in report["models"].items()}
