"""Plotly figures of the Stick to Your Role! pages (pure: frames in, figures out; styling from ``analysis.figures.style``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from analysis.figures.palette import GRID, MODEL_SEQUENCE, NEUTRAL, PAIR
from analysis.figures.style import BELOW_TOOLBAR, _err, _style, _wrap
from analysis.methods.values.report_types import THEORY_POINTS, VALUES


def circumplex(layout: pd.DataFrame, centroids: pd.DataFrame | None, item_text: Mapping[str, str] | None = None,
               *, title: str | None = None) -> go.Figure:
    """Items of an MDS solution coloured by value, value centroids, the theoretical circle and value sectors; an
    item's customdata is [item_id]."""

    item_text = item_text or {}
    radius = float(np.sqrt(layout["x"] ** 2 + layout["y"] ** 2).max() or 1.0) * 1.08
    fig = go.Figure()
    theta = np.linspace(0, 2 * np.pi, 241)
    fig.add_trace(go.Scatter(x=radius * np.cos(theta), y=radius * np.sin(theta), mode="lines", hoverinfo="skip",
                             line=dict(color="#b0b0b0", dash="dot", width=1), showlegend=False))
    angles = {v: math.atan2(y, x) for v, (x, y) in THEORY_POINTS.items()}
    ordered = sorted(angles.items(), key=lambda kv: kv[1])
    for (_, a1), (_, a2) in zip(ordered, ordered[1:] + ordered[:1]):
        gap = (a2 - a1) % (2 * math.pi)
        mid = a1 + gap / 2
        fig.add_trace(go.Scatter(x=[0, radius * math.cos(mid)], y=[0, radius * math.sin(mid)], mode="lines",
                                 line=dict(color=GRID, width=1), hoverinfo="skip", showlegend=False))
    nudge = {"Conformity": math.radians(7), "Tradition": -math.radians(7)}  # nearly the same theoretical angle
    for value, a in angles.items():
        a += nudge.get(value, 0.0)
        fig.add_annotation(x=1.16 * radius * math.cos(a), y=1.16 * radius * math.sin(a), text=value, showarrow=False,
                           font=dict(color=value_color(value), size=12))
    for value in [v for v in VALUES if v in set(layout["value"])]:
        sub = layout[layout["value"] == value]
        hover = [f"<b>Item {i}</b> · {value}" + (f"<br>{_wrap(item_text[str(i)])}" if str(i) in item_text else "")
                 for i in sub["item_id"]]
        fig.add_trace(go.Scatter(x=sub["x"], y=sub["y"], mode="markers+text", name=value, text=sub["item_id"],
                                 textposition="top center", textfont=dict(size=9, color=value_color(value)),
                                 marker=dict(size=10, color=value_color(value), line=dict(color="white", width=1)),
                                 customdata=[[i] for i in sub["item_id"]], hovertext=hover, hoverinfo="text"))
    if centroids is not None and len(centroids):
        fig.add_trace(go.Scatter(x=centroids["x"], y=centroids["y"], mode="markers", name="value centroid",
                                 marker=dict(symbol="diamond", size=15, color=[value_color(v) for v in centroids["value"]],
                                             line=dict(color="black", width=1.5)),
                                 hovertext=[f"<b>{v}</b> centroid" for v in centroids["value"]], hoverinfo="text"))
    lim = radius * 1.35
    fig.update_xaxes(range=[-lim, lim], visible=False)
    fig.update_yaxes(range=[-lim, lim], visible=False, scaleanchor="x", scaleratio=1)
    return _style(fig, height=620, title=title)

def value_bars(frame: pd.DataFrame, score: str, *, label: str, lo: str | None = None, hi: str | None = None,
               reference: float | None = None) -> go.Figure:
    """One bar per value (value colours, circle order), optional CI whiskers and a reference line."""
    order = {v: i for i, v in enumerate(VALUES)}
    frame = frame.sort_values("value", key=lambda s: s.map(order))
    fig = go.Figure(go.Bar(x=frame["value"], y=frame[score], marker_color=[value_color(v) for v in frame["value"]],
                           error_y=_err(frame, score, lo, hi) if lo and hi else None,
                           hovertemplate="%{x}: %{y:.3f}<extra></extra>"))
    if reference is not None:
        fig.add_hline(y=reference, line=dict(color="#666", dash="dash", width=1))
    fig.update_yaxes(title=label, gridcolor=GRID, zeroline=True, zerolinecolor="#999")
    return _style(fig, height=380, legend=False)


def persona_profiles(scores: pd.DataFrame, personas: Sequence[int], names: Mapping[int, str] | None = None,
                     column: str = "ipsatised") -> go.Figure:
    """Small multiples: for each persona, its value profile in every context (one line per context); each point's
    customdata is [persona_id, context, value]."""
    names = names or {}
    personas = list(personas)
    cols = min(3, max(1, len(personas)))
    rows = math.ceil(len(personas) / cols)
    titles = [str(names.get(p, f"persona {p}")) for p in personas]
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, shared_yaxes=True, vertical_spacing=0.16)
    contexts = list(dict.fromkeys(scores["context"]))
    colors = {c: MODEL_SEQUENCE[i % len(MODEL_SEQUENCE)] for i, c in enumerate(contexts)}
    order = {v: i for i, v in enumerate(VALUES)}
    for k, pid in enumerate(personas):
        sub = scores[scores["persona_id"] == pid]
        for ctx in contexts:
            line = sub[sub["context"] == ctx].sort_values("value", key=lambda s: s.map(order))
            fig.add_trace(go.Scatter(x=line["value"], y=line[column], mode="lines+markers", name=ctx, legendgroup=ctx,
                                     showlegend=k == 0, line=dict(color=colors[ctx], width=2), marker=dict(size=6),
                                     customdata=[[pid, ctx, v] for v in line["value"]],
                                     hovertemplate=f"{ctx}<br>%{{x}}: %{{y:.2f}}<extra></extra>"),
                          row=k // cols + 1, col=k % cols + 1)
    fig.update_xaxes(tickangle=-45, tickfont=dict(size=10), categoryorder="array", categoryarray=list(VALUES))
    fig.update_yaxes(gridcolor=GRID, zeroline=True, zerolinecolor="#999")
    return _style(fig, height=340 * rows + 70, top=BELOW_TOOLBAR)


def mean_profiles(frame: pd.DataFrame, group: str, colors: Mapping[str, str], *, label: str) -> go.Figure:
    """Grouped bars per value: one bar per ``group`` (context or model), whiskers = ±1 SD."""
    fig = go.Figure()
    for name, sub in frame.groupby(group, sort=False):
        fig.add_trace(go.Bar(x=sub["value"], y=sub["mean"], name=str(name), marker_color=colors.get(name, NEUTRAL),
                             error_y=dict(type="data", array=sub["sd"].fillna(0).to_numpy(), thickness=1, width=3)))
    fig.update_layout(barmode="group")
    fig.update_xaxes(categoryorder="array", categoryarray=list(VALUES))
    fig.update_yaxes(title=label, gridcolor=GRID, zeroline=True, zerolinecolor="#999")
    return _style(fig, height=400)


def value_stability_pair(a: pd.DataFrame, b: pd.DataFrame, names: tuple[str, str]) -> go.Figure:
    """Per-value rank-order stability of two models with their CIs."""
    fig = go.Figure()
    for frame, name, color in ((a, names[0], PAIR[0]), (b, names[1], PAIR[1])):
        if frame is None or frame.empty:
            continue
        fig.add_trace(go.Bar(x=frame["value"], y=frame["rank_order"], name=name, marker_color=color,
                             error_y=_err(frame, "rank_order", "lo", "hi")))
    fig.update_layout(barmode="group")
    fig.update_xaxes(categoryorder="array", categoryarray=list(VALUES))
    fig.update_yaxes(title="rank-order stability", gridcolor=GRID, zeroline=True, zerolinecolor="#999")
    return _style(fig, height=380)


def persona_bars(labels: Sequence[str], values: Sequence[float], highlight: Sequence[bool], *, label: str,
                 yrange: tuple[float, float] | None = (-1.0, 1.0), keys: Sequence[object] | None = None) -> go.Figure:
    """One bar per persona (highlighted ones in the second pair colour); ``keys`` (persona ids) become customdata."""
    fig = go.Figure(go.Bar(x=list(labels), y=list(values), marker_color=[PAIR[1] if h else PAIR[0] for h in highlight],
                           customdata=[[k] for k in keys] if keys is not None else None,
                           hovertemplate="%{x}: %{y:.3f}<extra></extra>"))
    fig.update_yaxes(title=label, gridcolor=GRID, range=list(yrange) if yrange else None)
    fig.update_xaxes(tickangle=-40)
    return _style(fig, height=380, legend=False)

#: Openness greens, Self-enhancement oranges, Conservation blues, Self-transcendence purples;
#: Hedonism (between Openness and Self-enhancement) in mustard. Order follows the circle.
VALUE_COLORS: dict[str, str] = {
    "Self-Direction": "#1b9e77",
    "Stimulation": "#66c2a5",
    "Hedonism": "#c9a400",
    "Achievement": "#f28e2b",
    "Power": "#c4400c",
    "Security": "#1f5fa8",
    "Conformity": "#6baed6",
    "Tradition": "#0b2e63",
    "Benevolence": "#d6409f",
    "Universalism": "#8e5db5",
}


def value_color(value: str | None) -> str:
    return VALUE_COLORS.get(value or "", NEUTRAL)
