"""PersonaScore and its parts, as pure functions on the stage tables (Samuel et al. 2024, Sec. 3).

- Question score = mean of the valid grades of the evaluators (the ensemble, Sec. 3.2 "Ensembled
  Evaluation"); invalid grades (no parseable final score, out of range) are excluded and counted,
  never scored. An answer with no valid grade has no score (``not graded``).
- Persona task score = mean of that persona's question scores for the task.
- Model task score = mean over personas of the persona task scores (every persona weighs the same;
  the paper's Table 1 reports these means with their standard deviation across personas). With
  complete data it equals the mean over all questions of the task.
- PersonaScore of a persona = mean of its five task scores; undefined (None) unless all five tasks have
  a score. PersonaScore of a model = mean of its personas' PersonaScores, over the personas scored on all
  five tasks: the same personas as its standard deviation (``model_persona_score``). With complete data it
  equals the mean of the five model task scores.
- Refusals: answers flagged by ``detect_refusal`` (the agent steps out of the persona); they are graded like any
  answer and counted (per model: the paper's Fig. 4). ``role_table`` splits the answers 2 × 2: steps out of the role
  or stays in character, × declines what was asked or answers it (``parse.declines``), so a persona declining in
  character ("I won't discuss that — I'm a retired judge") is told apart from an out-of-role refusal.
- Table 1 (the paper's): per task the model task score with, in parentheses, the standard deviation
  (ddof 1) over personas of the persona task scores; PersonaScore with the standard deviation over
  personas of the persona PersonaScores (personas scored on all five tasks); its last row, the spread
  among models (max − min of their means).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from analysis.methods.personagym import TASKS

KEYS = ["model", "run_id", "persona", "task", "q_index"]
# Published scores are rounded to 2 decimals: the mean of five rounded values and the rounded
# PersonaScore can differ by up to 0.005 + 0.005; anything beyond 0.015 is a real mismatch.
PUBLISHED_TOLERANCE = 0.015


def question_scores(grades: pd.DataFrame) -> pd.DataFrame:
    """One row per graded answer: KEYS + score (mean of valid grades), n_valid, n_invalid."""
    cols = KEYS + ["score", "n_valid", "n_invalid"]
    if grades.empty:
        return pd.DataFrame(columns=cols)
    g = grades.assign(valid=(grades["status"] == "ok").astype(int), invalid=(grades["status"] == "invalid").astype(int),
                      value=pd.to_numeric(grades["score"], errors="coerce").where(grades["status"] == "ok"))
    out = g.groupby(KEYS, sort=False, dropna=False).agg(score=("value", "mean"), n_valid=("valid", "sum"),
                                                          n_invalid=("invalid", "sum")).reset_index()
    return out[cols]


def persona_task_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """Mean question score per (model, persona, task): columns model, persona, task, score, n."""
    graded = scores[scores["score"].notna()]
    if graded.empty:
        return pd.DataFrame(columns=["model", "persona", "task", "score", "n"])
    out = graded.groupby(["model", "persona", "task"], sort=False).agg(score=("score", "mean"), n=("score", "size"))
    return out.reset_index()


def persona_score(task_scores: Mapping[str, float | None]) -> float:
    """Mean of the five task scores; NaN unless every task has a score."""
    values = [task_scores.get(t) for t in TASKS]
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values):
        return math.nan
    return float(np.mean(values))


def model_task_scores(by_persona: pd.DataFrame) -> dict[str, float]:
    """Per task: mean over personas of the persona task scores (NaN when no persona has one)."""
    return {t: float(by_persona.loc[by_persona["task"] == t, "score"].mean()) if (by_persona["task"] == t).any() else math.nan
            for t in TASKS}


def task_spread(by_persona: pd.DataFrame) -> dict[str, float]:
    """Per task: standard deviation (ddof 1) over personas of the persona task scores (the paper's parentheses)."""
    out = {}
    for t in TASKS:
        s = by_persona.loc[by_persona["task"] == t, "score"]
        out[t] = float(s.std(ddof=1)) if len(s) > 1 else math.nan
    return out


def persona_scores(by_persona: pd.DataFrame) -> pd.Series:
    """PersonaScore of each persona (index: persona) that has a score on all five tasks."""
    if by_persona.empty:
        return pd.Series(dtype=float)
    wide = by_persona.pivot_table(index="persona", columns="task", values="score", aggfunc="mean", sort=False)
    wide = wide.reindex(columns=list(TASKS)).dropna()
    return wide.mean(axis=1)


def model_persona_score(by_persona: pd.DataFrame) -> float:
    """A model's PersonaScore: the mean of ``persona_scores`` (personas scored on all five tasks); NaN with none."""
    scores = persona_scores(by_persona)
    return float(scores.mean()) if len(scores) else math.nan


def _mean_sd(values: pd.Series) -> dict[str, float | int]:
    values = values.dropna()
    return {"mean": float(values.mean()) if len(values) else math.nan,
            "sd": float(values.std(ddof=1)) if len(values) > 1 else math.nan, "n_personas": int(len(values))}


def table1_row(by_persona: pd.DataFrame) -> dict[str, dict[str, float | int]]:
    """One model's row of the paper's Table 1: ``{task: {mean, sd, n_personas}, "PersonaScore": {...}}``.

    Task mean = mean over personas of the persona task scores (``model_task_scores``), sd = their standard deviation
    (ddof 1; NaN with one persona). PersonaScore mean and sd = mean and standard deviation of the PersonaScores of the
    personas scored on all five tasks: both over the same personas (``n_personas``); with complete data the mean is
    also the mean of the five task means."""
    row = {t: _mean_sd(by_persona.loc[by_persona["task"] == t, "score"]) for t in TASKS}
    return row | {"PersonaScore": _mean_sd(persona_scores(by_persona))}


def model_spread(rows: Mapping[str, Mapping[str, Mapping[str, float | None]]]) -> dict[str, float | None]:
    """Table 1's last row: per column, max − min over the models of their means (the paper, Sec. 4.2: "Action
    Justification and Persona Consistency show the highest spread among models (2.08 and 1.34)"); None with fewer
    than two models defined in that column."""
    out: dict[str, float | None] = {}
    for column in (*TASKS, "PersonaScore"):
        means = [r[column]["mean"] for r in rows.values() if column in r and r[column].get("mean") is not None
                 and not (isinstance(r[column]["mean"], float) and math.isnan(r[column]["mean"]))]
        out[column] = float(max(means) - min(means)) if len(means) >= 2 else None
    return out


def published_consistency(task_scores: Mapping[str, float], published: float,
                          tolerance: float = PUBLISHED_TOLERANCE) -> tuple[float, bool]:
    """(mean of the five published task scores, whether the published PersonaScore matches it within tolerance)."""
    mean = float(np.mean([task_scores[t] for t in TASKS]))
    return mean, abs(mean - published) <= tolerance


def role_table(refused: pd.Series, texts: pd.Series) -> dict[str, dict[str, int]]:
    """The 2 × 2 count of answers: ``{"steps_out" | "in_character": {"declines": n, "answers": n}}``, from the stored
    refusal flags (1 = steps out of the persona) and the answers' text (``declines``)."""
    from analysis.methods.personagym.parse import declines

    declined = texts.fillna("").astype(str).map(declines).astype(bool)
    out = refused.astype(int) == 1
    return {"steps_out": {"declines": int((out & declined).sum()), "answers": int((out & ~declined).sum())},
            "in_character": {"declines": int((~out & declined).sum()), "answers": int((~out & ~declined).sum())}}


def unread_grade_bound(grades: pd.DataFrame, low: float = 1.0, high: float = 5.0) -> tuple[float, float] | None:
    """The PersonaScore with every invalid grade read as ``low`` and as ``high`` (the rubric's ends), when under
    ``READ_SHARE_FLOOR`` of the grades could be read; else None (issue 56: the grades a reader could not read are no
    random sample, so the bound shows how far they could move the score)."""
    from analysis.methods.base import READ_SHARE_FLOOR

    ok, invalid = int((grades["status"] == "ok").sum()), int((grades["status"] == "invalid").sum())
    if not invalid or ok / (ok + invalid) >= READ_SHARE_FLOOR:
        return None
    ends = []
    for value in (low, high):
        filled = grades.copy()
        unread = filled["status"] == "invalid"
        filled.loc[unread, "score"] = value
        filled.loc[unread, "status"] = "ok"
        ends.append(model_persona_score(persona_task_scores(question_scores(filled))))
    return (ends[0], ends[1]) if all(math.isfinite(e) for e in ends) else None
