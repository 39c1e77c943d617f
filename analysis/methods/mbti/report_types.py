"""The MBTI report's types (pydantic): what its pages, Compare and the Leaderboard read of it, checked on every report
before it is kept (``Method.report_model``), and the vocabulary its fields are keyed by (dimensions, poles, options).

A page module imports from ``analysis.methods.mbti`` nothing but this module. A number that cannot be computed (a
consistency from one testing, a fairness pair missing a subject) is ``None``, never 0.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from analysis.methods.mbti import DIMENSION_NAMES, DIMENSIONS, OPTIONS, POLES, type_with_role
from analysis.methods.report_model import Frame, ModelReport, Report

__all__ = ["DIMENSIONS", "DIMENSION_NAMES", "OPTIONS", "POLES", "type_with_role", "Distribution", "SubjectReport",
           "MbtiModelReport", "MbtiReport"]


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
    reliability: dict[str, Any]
    distributions: list[Distribution]
    configuration: str
    configurations: list[dict[str, Any]]
    chance: dict[str, Any] | None = None


class MbtiReport(Report):
    """The MBTI report: every model's document."""

    models: dict[str, MbtiModelReport]
