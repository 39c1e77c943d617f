"""The PersonaGym report's types (pydantic): what its pages, Compare and the Leaderboard read of it, checked on every
report before it is kept (``Method.report_model``), the vocabulary its fields are keyed by (``TASKS``, ``COLUMNS``)
and the helpers that lay it out as the paper's tables (``report``).

A page module imports from ``analysis.methods.personagym`` nothing but this module. A score no valid grade gives (a
task nobody was graded on, PersonaScore without a persona scored on all five tasks, an SD over one persona) is
``None``, never 0. Task-keyed sections hold exactly the five tasks (and ``PersonaScore`` in Table 1's).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict

from analysis.methods.personagym import TASKS
from analysis.methods.personagym.report import (
    COLUMNS,
    evaluator_frame,
    figure4_frame,
    series_name,
    source_label,
    table1_frame,
)
from analysis.methods.report_model import ModelReport, Report

__all__ = ["TASKS", "COLUMNS", "evaluator_frame", "figure4_frame", "series_name", "source_label", "table1_frame",
           "TaskScores", "Table1Cell", "PaperCell", "RoleTable", "SelfGraded", "EvaluatorScores", "PersonaReport",
           "Judges", "ConfigurationEntry", "PersonaGymModelReport", "PublishedScores", "JudgeRankings", "Table1",
           "Refusals", "PersonaGymReport"]


def _keyed(keys: Collection[str]) -> AfterValidator:
    """A mapping's keys are exactly ``keys``."""
    def check(value: dict[str, Any]) -> dict[str, Any]:
        if set(value) != set(keys):
            raise ValueError(f"keys {sorted(value)}, expected {sorted(keys)}")
        return value

    return AfterValidator(check)


def _by_task(value: Any) -> Any:
    return Annotated[dict[str, value], _keyed(TASKS)]


def _by_column(value: Any) -> Any:
    return Annotated[dict[str, value], _keyed(COLUMNS)]


#: A score per task (1–5, None when undefined).
TaskScores = _by_task(float | None)


class PaperCell(BaseModel):
    """A cell of the paper's Table 1 (bundled figures): mean and SD over personas."""

    model_config = ConfigDict(extra="forbid")

    mean: float | None
    sd: float | None


class Table1Cell(PaperCell):
    """A cell of our Table 1 rows: mean and SD over ``n_personas`` personas (SD None over fewer than two)."""

    n_personas: int


class RoleCell(BaseModel):
    model_config = ConfigDict(extra="forbid")

    declines: int
    answers: int


class RoleTable(BaseModel):
    """The answers 2 × 2: stepping out of the role or staying in character × declining or answering."""

    model_config = ConfigDict(extra="forbid")

    steps_out: RoleCell
    in_character: RoleCell


class SelfGraded(BaseModel):
    """Whether the agent also played a judging role, and which."""

    model_config = ConfigDict(extra="forbid")

    value: bool
    roles: list[str]


class EvaluatorScores(BaseModel):
    """One evaluator's task scores and PersonaScore."""

    model_config = ConfigDict(extra="forbid")

    tasks: TaskScores
    persona_score: float | None


class PersonaReport(BaseModel):
    """One persona (keyed by its description): its id(s), task scores, PersonaScore and its answers' counts."""

    model_config = ConfigDict(extra="forbid")

    id: str | list[str]
    tasks: TaskScores
    persona_score: float | None
    n_graded: int
    invalid: int
    refusals: int
    truncated: int


class Judges(BaseModel):
    """The evaluators' agreement, ICC(2,1) (None with the reason when undefined)."""

    model_config = ConfigDict(extra="forbid")

    icc2: float | None
    n_answers: int
    evaluators: list[str]
    reason: str | None


class ConfigurationEntry(BaseModel):
    """One configuration of the model (``analysis.runs.comparable.describe``): its runs, whether the report uses it,
    how it differs from the one used."""

    model_config = ConfigDict(extra="forbid")

    id: str
    runs: list[str]
    latest: float
    used: bool
    differs: dict[str, Any]
    signature: dict[str, Any] | None = None


class PersonaGymModelReport(ModelReport):
    """One agent model's PersonaGym document (``cli.model_metrics`` and its configuration)."""

    tasks: TaskScores
    persona_score: float | None
    n_graded: int
    invalid: int
    refusals: int
    role_table: RoleTable
    truncated: int
    graded_incomplete_examples: int
    self_graded: SelfGraded
    table1: _by_column(Table1Cell)
    n_answers: int
    not_graded: int
    n_grades: int
    shortfall: int
    spread: TaskScores
    evaluators: list[str]
    by_evaluator: dict[str, EvaluatorScores]
    personas: dict[str, PersonaReport]
    configuration: str
    configurations: list[ConfigurationEntry]
    judges: Judges
    chance: dict[str, Any] | None = None


class PublishedScores(BaseModel):
    """Imported reference scores of one model (never mixed with ours)."""

    model_config = ConfigDict(extra="forbid")

    tasks: TaskScores
    persona_score: float | None
    mean_of_tasks: float | None
    consistent: bool | None
    note: str | None
    date: str | None
    run_id: str


class RankingWithout(BaseModel):
    """The models ranked with one evaluator dropped."""

    model_config = ConfigDict(extra="forbid")

    ranking: list[str]
    persona_scores: dict[str, float | None]
    changed: bool


class JudgeRankings(BaseModel):
    """Models ranked by PersonaScore with every evaluator and without each one."""

    model_config = ConfigDict(extra="forbid")

    all: list[str]
    without: dict[str, RankingWithout]


class PaperTable1(BaseModel):
    """The paper's Table 1 (bundled): its source, its rows and their spread."""

    model_config = ConfigDict(extra="forbid")

    source: str
    models: dict[str, _by_column(PaperCell)]
    spread: _by_column(float | None)


class Table1(BaseModel):
    """The paper's Table 1 for this store's models and the paper's, each group with its spread (max − min)."""

    model_config = ConfigDict(extra="forbid")

    models: dict[str, _by_column(Table1Cell)]
    spread: _by_column(float | None)
    paper: PaperTable1


class Refusals(BaseModel):
    """The paper's Fig. 4 for one model: refusals of its answers."""

    model_config = ConfigDict(extra="forbid")

    refusals: int
    n_answers: int


class PersonaGymReport(Report):
    """The PersonaGym report: every model's document, imported published scores, the judges' rankings, Table 1 and
    Fig. 4."""

    models: dict[str, PersonaGymModelReport]
    published: dict[str, PublishedScores]
    judges: JudgeRankings
    table1: Table1
    figure4: dict[str, Refusals]


def chance_bands(report: Mapping[str, Any]) -> dict[str, Any]:
    """``Method.chance``: each model's null bands, its report's ``chance`` section."""
    return {m: d.get("chance") for m, d in report["models"].items()}
