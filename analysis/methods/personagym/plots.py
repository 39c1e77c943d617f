"""Plotly figures of the PersonaGym pages (pure: frames in, figures out; styling from ``analysis.figures.style``)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

from analysis.figures.palette import GRID, MODEL_SEQUENCE, NEUTRAL
from analysis.figures.style import _style, _wrap


def task_scores(series: Mapping[str, Mapping[str, float | None]], colors: Mapping[str, str], tasks: Sequence[str]) -> go.Figure:
    """Grouped bars per PersonaGym task (1–5), one series per model (published scores hatched)."""
    fig = go.Figure()
    for name, scores in series.items():
        published = name.endswith("(published)")
        fig.add_trace(go.Bar(x=list(tasks), y=[scores.get(t) for t in tasks], name=name, marker_color=colors.get(name, NEUTRAL),
                             marker_pattern_shape="/" if published else None,
                             hovertemplate=f"{name}<br>%{{x}}: %{{y:.2f}}<extra></extra>"))
    fig.update_layout(barmode="group")
    fig.update_yaxes(title="score (1–5)", range=[0, 5.2], gridcolor=GRID)
    return _style(fig, height=400)

def persona_task_scores(personas: Mapping[str, Mapping[str, float | None]], tasks: Sequence[str]) -> go.Figure:
    """Grouped bars per PersonaGym task (1–5), one series per persona of one model; customdata [persona, task]."""
    fig = go.Figure()
    for k, (persona, scores) in enumerate(personas.items()):
        fig.add_trace(go.Bar(x=list(tasks), y=[scores.get(t) for t in tasks], name=textwrap.shorten(persona, 40),
                             marker_color=MODEL_SEQUENCE[k % len(MODEL_SEQUENCE)], customdata=[[persona, t] for t in tasks],
                             hovertemplate=f"{_wrap(persona, 50)}<br>%{{x}}: %{{y:.2f}}<extra></extra>"))
    fig.update_layout(barmode="group")
    fig.update_yaxes(title="mean grade (1–5)", range=[0, 5.2], gridcolor=GRID)
    return _style(fig, height=380)


def refusal_bars(refusals: pd.DataFrame) -> go.Figure:
    """The paper's Fig. 4 as rates: per model the share of its answers that refused the persona, on a 0–1 axis, each
    bar labelled with its count ('1 of 27'), so one refusal is never drawn as a full bar."""
    rows = refusals.dropna(subset=["share"]).sort_values("share", kind="stable")
    fig = go.Figure(go.Bar(
        x=rows["share"], y=rows["model"], orientation="h", marker_color=NEUTRAL,
        text=[f"{int(r)} of {int(n)}" for r, n in zip(rows["refusals"], rows["n_answers"])], textposition="outside",
        hovertemplate="%{y}<br>%{text} answers refused (%{x:.1%})<extra></extra>"))
    fig.update_xaxes(title="share of the model's answers that refused the persona", range=[0, 1], tickformat=".0%",
                     gridcolor=GRID)
    return _style(fig, height=max(180, 70 + 42 * len(rows)), legend=False)
