"""Plotly figure builders the pages share (one palette: ``analysis.figures.palette``; a method's own figures are in its folder).
Pure: frames in, figures out."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from analysis.figures.palette import CORRELATION_SCALE, GRID, NEUTRAL, PAIR

FONT = dict(size=13)
#: Where every chart's legend goes: in rows under the plot, at the bottom of the figure's own canvas. Above the plot it
#: sat under the chart's toolbar (drawn over the top right corner on hover), and beside the plot a legend taller than
#: the plot scrolls, which an exported image cuts. In the canvas' coordinates (``yref`` "container") plotly.js reserves
#: a bottom margin of the legend's height, every row it wraps into included (up to half the figure's height, its
#: ``maxheight`` for a horizontal legend), and draws the x axis' title above it: the whole legend lies inside the
#: figure's width × height, on screen and in an exported image of any width.
LEGEND = dict(orientation="h", xanchor="left", x=0, yref="container", yanchor="bottom", y=0)
#: The top margin of a figure with text along the top of its plots (subplots' titles): the text below the toolbar
#: (about 30 px from the figure's top), which would hide the titles of the right-hand plots.
BELOW_TOOLBAR = 60


def legend_below(fig: go.Figure) -> go.Figure:
    """Place ``fig``'s legend as ``LEGEND`` says (its title, font and other settings kept): every figure with a
    legend goes through here, through ``_style`` or its builder."""
    return fig.update_layout(legend=LEGEND)


def _style(fig: go.Figure, *, height: int = 420, title: str | None = None, legend: bool = True,
           top: int | None = None) -> go.Figure:
    """The shared look: ``height``, margins (``top``: the top one, e.g. ``BELOW_TOOLBAR``), font, title, legend."""
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=top or (50 if title else 20), b=10), font=FONT,
                      showlegend=legend, title=dict(text=title, x=0, xanchor="left") if title else None)
    return legend_below(fig)


def chance_band(fig: go.Figure, summary: Mapping[str, object] | None, *, axis: str = "y",
                label: str = "chance (95 %)") -> go.Figure:
    """Shade the 95 % band of a null distribution (an ``analysis.chance`` summary) across the plot: a grey
    horizontal band (``axis="y"``) or vertical one (``axis="x"``), labelled; nothing when the band is undefined."""
    if not summary or summary.get("lo") is None or summary.get("hi") is None:
        return fig
    shape = dict(fillcolor="rgba(120,120,120,0.18)", line_width=0, layer="below", annotation_text=label,
                 annotation_font_size=11, annotation_font_color="#555")
    if axis == "y":
        fig.add_hrect(y0=summary["lo"], y1=summary["hi"], annotation_position="top left", **shape)
    else:
        fig.add_vrect(x0=summary["lo"], x1=summary["hi"], annotation_position="top right", **shape)
    return fig


def _wrap(text: str, width: int = 60) -> str:
    return "<br>".join(textwrap.wrap(str(text), width)) if text else ""


def _err(frame: pd.DataFrame, est: str, lo: str, hi: str) -> dict:
    return dict(type="data", symmetric=False, array=(frame[hi] - frame[est]).clip(lower=0).to_numpy(),
                arrayminus=(frame[est] - frame[lo]).clip(lower=0).to_numpy(), thickness=1.5, width=4, color="#444")


# -- scores and correlations ----------------------------------------------------------------------
def score_bars(rows: pd.DataFrame, score: str, colors: Mapping[str, str], *, label: str, lo: str | None = None,
               hi: str | None = None, height: int | None = None) -> go.Figure:
    """Horizontal bars of one score per model (best on top), optional CI whiskers."""
    rows = rows.dropna(subset=[score]).sort_values(score, kind="stable")
    fig = go.Figure(go.Bar(
        x=rows[score], y=rows["model"], orientation="h", marker_color=[colors.get(m, NEUTRAL) for m in rows["model"]],
        error_x=_err(rows, score, lo, hi) if lo and hi else None, texttemplate=None if lo and hi else "%{x:.3f}",
        textposition="inside",
        hovertemplate="%{y}<br>" + label + " %{x:.3f}<extra></extra>"))
    fig.update_xaxes(title=label, gridcolor=GRID)
    return _style(fig, height=height or max(180, 70 + 42 * len(rows)), legend=False)


def correlation_heatmap(matrix: pd.DataFrame, *, title: str | None = None, zmin: float = -1.0, zmax: float = 1.0) -> go.Figure:
    """Annotated context x context matrix on a diverging scale."""
    fig = go.Figure(go.Heatmap(z=matrix.to_numpy(), x=list(matrix.columns), y=list(matrix.index), zmin=zmin, zmax=zmax,
                               colorscale=CORRELATION_SCALE, texttemplate="%{z:.2f}",
                               hovertemplate="%{y} vs %{x}: %{z:.3f}<extra></extra>", colorbar=dict(thickness=12)))
    fig.update_yaxes(autorange="reversed")
    n = len(matrix)
    return _style(fig, height=min(640, 160 + 60 * n), title=title, legend=False)



# -- comparison -----------------------------------------------------------------------------------
def row_label(method: str, metric: str) -> str:
    """"Method: metric", once: a headline's label that already starts with its method's name keeps only its own."""
    return metric if metric.casefold().startswith(f"{method.casefold()}:") else f"{method}: {metric}"


def difference_forest(diffs: pd.DataFrame, a: str, b: str) -> go.Figure:
    """A − B per headline with its paired-bootstrap CI (where there is one); 0 = no difference. A row whose A − B is
    undefined (NaN: a side undefined, or the comparison says the two are on no common footing) is not plotted."""
    diffs = diffs[np.isfinite(diffs["diff"].astype(float))].reset_index(drop=True)
    labels = [row_label(m, t) for m, t in zip(diffs["method"], diffs["metric"])]
    has_ci = diffs["lo"].notna() & diffs["hi"].notna()
    fig = go.Figure(go.Scatter(
        x=diffs["diff"], y=labels, mode="markers", marker=dict(size=11, color=[PAIR[0] if c else NEUTRAL for c in has_ci]),
        error_x=dict(type="data", symmetric=False, array=(diffs["hi"] - diffs["diff"]).fillna(0).to_numpy(),
                     arrayminus=(diffs["diff"] - diffs["lo"]).fillna(0).to_numpy(), thickness=1.5, width=5),
        hovertemplate="%{y}<br>A − B = %{x:.3f}<extra></extra>"))
    fig.add_vline(x=0, line=dict(color="#444", dash="dash", width=1))
    fig.update_xaxes(title=f"{a} − {b}", gridcolor=GRID, zeroline=False)
    fig.update_yaxes(autorange="reversed")
    return _style(fig, height=120 + 40 * len(diffs), legend=False)


# -- generic --------------------------------------------------------------------------------------
def lines(frame: pd.DataFrame, x: str, y: str, group: str, colors: Mapping[str, str], *, xlabel: str, ylabel: str,
          lo: str | None = None, hi: str | None = None) -> go.Figure:
    fig = go.Figure()
    for name, sub in frame.groupby(group, sort=False):
        fig.add_trace(go.Scatter(x=sub[x], y=sub[y], name=str(name), mode="lines+markers",
                                 line=dict(color=colors.get(name, NEUTRAL), width=2),
                                 error_y=_err(sub, y, lo, hi) if lo and hi else None))
    fig.update_xaxes(title=xlabel, gridcolor=GRID)
    fig.update_yaxes(title=ylabel, gridcolor=GRID)
    return _style(fig, height=380)


# -- confidence intervals -------------------------------------------------------------------------
def _ci_whiskers(values: Sequence[float | None], cis: Sequence[Sequence[float | None] | None]) -> dict:
    up, down = [], []
    for v, ci in zip(values, cis):
        lo, hi = (ci or [None, None])[:2] if ci else (None, None)
        up.append(0.0 if v is None or hi is None else max(0.0, hi - v))
        down.append(0.0 if v is None or lo is None else max(0.0, v - lo))
    return dict(type="data", symmetric=False, array=up, arrayminus=down, thickness=1.5, width=4, color="#444")


# -- figures for a paper --------------------------------------------------------------------------
def has_data(fig: go.Figure) -> bool:
    """Whether ``fig`` draws a point: a trace each of whose coordinates it gives (x, y, z) holds a value that is not
    missing (a bar of None heights over named categories draws nothing)."""
    for trace in fig.data:
        given = [v for v in (getattr(trace, axis, None) for axis in ("x", "y", "z")) if v is not None]
        if given and all(pd.notna(np.asarray(v, dtype=object).ravel()).any() for v in given):
            return True
    return False


def drawn(found: Mapping[str, go.Figure | None]) -> dict[str, go.Figure]:
    """The figures of ``found`` that draw something, in their order (a ``MethodView.figures`` hook leaves a chart
    with no data out rather than drawing it empty)."""
    return {name: fig for name, fig in found.items() if fig is not None and has_data(fig)}
