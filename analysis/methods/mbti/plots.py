"""Plotly figures of the MBTI pages (pure: frames in, figures out; styling from ``analysis.figures.style``)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from analysis.figures.palette import GRID, MODEL_SEQUENCE
from analysis.figures.style import _style
from analysis.methods.mbti.report_types import DIMENSION_NAMES, DIMENSIONS, OPTIONS, POLES


def mbti_dimensions(scores: Mapping[str, Mapping[str, float | None]], sd: Mapping[str, Mapping[str, float]] | None = None,
                    colors: Mapping[str, str] | None = None) -> go.Figure:
    """Diverging bars from 50 per dimension (right = first pole E/N/T/J/A), one series per key of ``scores``."""
    fig = go.Figure()
    labels = []
    for d in DIMENSIONS:
        first, second = DIMENSION_NAMES[d].split(" vs ")
        labels.append(f"{second} ({POLES[d][1]}) ◄ ► {first} ({POLES[d][0]})")
    for k, (name, dims) in enumerate(scores.items()):
        x = [dims.get(d) for d in DIMENSIONS]
        dev = [None if v is None else v - 50 for v in x]
        err = None
        if sd and name in sd:
            err = dict(type="data", array=[sd[name].get(d, 0) or 0 for d in DIMENSIONS], thickness=1.5, width=4)
        fig.add_trace(go.Bar(y=labels, x=dev, base=50, orientation="h", name=str(name), error_x=err,
                             marker_color=(colors or {}).get(name, MODEL_SEQUENCE[k % len(MODEL_SEQUENCE)]),
                             customdata=x, hovertemplate="%{y}<br>score %{customdata:.1f}<extra>" + str(name) + "</extra>"))
    fig.add_vline(x=50, line=dict(color="#444", width=1))
    fig.update_xaxes(range=[0, 100], title="score (% towards the right-hand pole)", gridcolor=GRID)
    fig.update_yaxes(autorange="reversed")
    fig.update_layout(barmode="group")
    return _style(fig, height=120 + 70 * len(DIMENSIONS) * max(1, len(scores)) ** 0.5, legend=len(scores) > 1)

def answer_distribution(dist: pd.DataFrame, *, max_rows: int = 60) -> go.Figure:
    """Stacked bars per statement: how often each option (Correct .. Wrong, invalid) was chosen; customdata
    [statement_id]."""
    dist = dist.head(max_rows)
    ylab = [f"{sid} · {textwrap.shorten(str(t or ''), 60, placeholder='…')}"
            for sid, t in zip(dist["statement_id"], dist["statement"])]
    ids = [[sid] for sid in dist["statement_id"]]
    fig = go.Figure()
    for k, option in enumerate(OPTIONS):
        fig.add_trace(go.Bar(y=ylab, x=dist[option], name=option, orientation="h", marker_color=MBTI_OPTION_COLORS[k],
                             customdata=ids, hovertemplate="%{y}<br>" + option + ": %{x}<extra></extra>"))
    fig.add_trace(go.Bar(y=ylab, x=dist["invalid"], name="invalid", orientation="h", marker_color="#e0e0e0",
                         marker_pattern_shape="/", customdata=ids, hovertemplate="%{y}<br>invalid: %{x}<extra></extra>"))
    fig.update_layout(barmode="stack")
    fig.update_yaxes(autorange="reversed", tickfont=dict(size=10))
    fig.update_xaxes(title="testings", gridcolor=GRID)
    return _style(fig, height=120 + 22 * len(dist))

#: The seven MBTI options, Correct (green) .. Wrong (red), neutral grey in the middle.
MBTI_OPTION_COLORS = ("#1a9850", "#66bd63", "#a6d96a", "#bdbdbd", "#fdae61", "#f46d43", "#d73027")
