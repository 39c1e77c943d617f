"""The PersonaGym figures drawn from a PersonaGym report alone (pure: report in, figures out). The pages draw them
through ``app/methods/personagym/charts.py`` (cached per store; published scores and chance bands added there);
``report_figures`` is the method's ``figures`` hook for a paper."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

from analysis.figures.style import drawn
from analysis.methods.personagym import plots
from analysis.methods.personagym.report_types import TASKS, figure4_frame, series_name

#: Colours of published series beside a store's models (hatched bars).
PUBLISHED_COLORS = ("#bab0ac", "#9d755d", "#eeca3b", "#72b7b2")


def tasks(report: dict[str, Any], models: list[str], colors: Mapping[str, str],
          published: Mapping[str, Mapping[str, float | None]] | None = None) -> go.Figure:
    """Task scores of ``models`` (each named as the report names its series: 'self-graded' marked), then each
    ``published`` series (name -> task scores, drawn hatched as '<name> (published)')."""
    colors = dict(colors) | {series_name(report, m): colors[m] for m in models if m in colors}
    series = {series_name(report, m): report["models"][m]["tasks"] for m in models}
    for k, (name, scores) in enumerate((published or {}).items()):
        series[f"{name} (published)"] = scores
        colors[f"{name} (published)"] = PUBLISHED_COLORS[k % len(PUBLISHED_COLORS)]
    return plots.task_scores(series, colors, TASKS)


def personas(report: dict[str, Any], model: str) -> go.Figure:
    """One model's task scores per persona."""
    found = report["models"][model]["personas"]
    return plots.persona_task_scores({p: d.get("tasks") or {} for p, d in found.items()}, TASKS)


def refusals(report: dict[str, Any], models: list[str]) -> go.Figure | None:
    """The paper's Fig. 4 as shares of each model's answers (None when no model has answers to count)."""
    frame = figure4_frame(report, models)
    return plots.refusal_bars(frame) if len(frame) else None


def report_figures(report: dict[str, Any], models: list[str]) -> dict[str, go.Figure]:
    """The view's ``figures`` hook: the task scores of ``models`` ('tasks'), their refusals (Fig. 4, 'refusals'), then
    each model's task scores per persona ('personas:<model>')."""
    from analysis.figures.palette import model_colors

    present = [m for m in models if m in report["models"]]
    found = {"tasks": tasks(report, present, model_colors(list(report["models"]))) if present else None,
             "refusals": refusals(report, present) if present else None}
    found |= {f"personas:{m}": personas(report, m) for m in present if report["models"][m].get("personas")}
    return drawn(found)
