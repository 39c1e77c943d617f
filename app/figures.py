"""Plotly figure builders for the pages (one palette: ``app.palette``). Pure: frames in, figures out."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from analysis.methods.mbti import DIMENSION_NAMES, DIMENSIONS, OPTIONS, POLES
from analysis.methods.values import VALUES
from app.palette import CORRELATION_SCALE, GRID, MBTI_OPTION_COLORS, MODEL_SEQUENCE, NEUTRAL, PAIR, value_color

FONT = dict(size=13)


def _style(fig: go.Figure, *, height: int = 420, title: str | None = None, legend: bool = True) -> go.Figure:
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=50 if title else 20, b=10), font=FONT,
                      showlegend=legend, title=dict(text=title, x=0, xanchor="left") if title else None,
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="left", x=0))
    return fig


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


# -- values ---------------------------------------------------------------------------------------
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


def circumplex(layout: pd.DataFrame, centroids: pd.DataFrame | None, item_text: Mapping[str, str] | None = None,
               *, title: str | None = None) -> go.Figure:
    """Items of an MDS solution coloured by value, value centroids, the theoretical circle and value sectors; an
    item's customdata is [item_id]."""
    from analysis.methods.values.structure import THEORY_POINTS  # scipy.stats: paid only when a circumplex is drawn

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


def correlation_heatmap(matrix: pd.DataFrame, *, title: str | None = None, zmin: float = -1.0, zmax: float = 1.0) -> go.Figure:
    """Annotated context x context matrix on a diverging scale."""
    fig = go.Figure(go.Heatmap(z=matrix.to_numpy(), x=list(matrix.columns), y=list(matrix.index), zmin=zmin, zmax=zmax,
                               colorscale=CORRELATION_SCALE, texttemplate="%{z:.2f}",
                               hovertemplate="%{y} vs %{x}: %{z:.3f}<extra></extra>", colorbar=dict(thickness=12)))
    fig.update_yaxes(autorange="reversed")
    n = len(matrix)
    return _style(fig, height=min(640, 160 + 60 * n), title=title, legend=False)


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
    _style(fig, height=340 * rows + 70)
    fig.update_layout(margin=dict(t=80), legend=dict(y=1.0, yref="container", yanchor="top"))
    return fig


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


# -- MBTI -----------------------------------------------------------------------------------------
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


# -- comparison -----------------------------------------------------------------------------------
def difference_forest(diffs: pd.DataFrame, a: str, b: str) -> go.Figure:
    """A − B per headline with its paired-bootstrap CI (where there is one); 0 = no difference."""
    diffs = diffs.reset_index(drop=True)
    labels = [f"{m}: {t}" for m, t in zip(diffs["method"], diffs["metric"])]
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


def persona_bars(labels: Sequence[str], values: Sequence[float], highlight: Sequence[bool], *, label: str,
                 yrange: tuple[float, float] | None = (-1.0, 1.0), keys: Sequence[object] | None = None) -> go.Figure:
    """One bar per persona (highlighted ones in the second pair colour); ``keys`` (persona ids) become customdata."""
    fig = go.Figure(go.Bar(x=list(labels), y=list(values), marker_color=[PAIR[1] if h else PAIR[0] for h in highlight],
                           customdata=[[k] for k in keys] if keys is not None else None,
                           hovertemplate="%{x}: %{y:.3f}<extra></extra>"))
    fig.update_yaxes(title=label, gridcolor=GRID, range=list(yrange) if yrange else None)
    fig.update_xaxes(tickangle=-40)
    return _style(fig, height=380, legend=False)


# -- trust game -----------------------------------------------------------------------------------
def _ci_whiskers(values: Sequence[float | None], cis: Sequence[Sequence[float | None] | None]) -> dict:
    up, down = [], []
    for v, ci in zip(values, cis):
        lo, hi = (ci or [None, None])[:2] if ci else (None, None)
        up.append(0.0 if v is None or hi is None else max(0.0, hi - v))
        down.append(0.0 if v is None or lo is None else max(0.0, v - lo))
    return dict(type="data", symmetric=False, array=up, arrayminus=down, thickness=1.5, width=4, color="#444")


def trust_attributes(attributes: Mapping[str, Mapping]) -> go.Figure:
    """Per attribute: Spearman(belief ranking, behaviour ranking) with CI | η² of belief vs of behaviour."""
    names = list(attributes)
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Spearman: belief vs behaviour ranking", "Effect size η²"),
                        horizontal_spacing=0.12)
    rho = [attributes[a].get("spearman") for a in names]
    fig.add_trace(go.Bar(x=names, y=rho, marker_color=PAIR[0], name="Spearman", showlegend=False,
                         error_y=_ci_whiskers(rho, [attributes[a].get("spearman_ci") for a in names]),
                         hovertemplate="%{x}: ρ = %{y:.2f}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Bar(x=names, y=[attributes[a].get("eta2_belief") for a in names], name="η² belief (stated)",
                         marker_color="#9ecae1"), row=1, col=2)
    beh = [attributes[a].get("eta2_behaviour") for a in names]
    fig.add_trace(go.Bar(x=names, y=beh, name="η² behaviour (played)", marker_color=PAIR[1],
                         error_y=_ci_whiskers(beh, [attributes[a].get("eta2_behaviour_ci") for a in names])), row=1, col=2)
    fig.update_yaxes(range=[-1, 1], gridcolor=GRID, zeroline=True, zerolinecolor="#999", row=1, col=1)
    fig.update_yaxes(range=[0, 1], gridcolor=GRID, row=1, col=2)
    fig.update_layout(barmode="group")
    _style(fig, height=420)
    fig.update_layout(margin=dict(t=80), legend=dict(y=1.0, yref="container", yanchor="top", x=0.55))
    return fig


def trust_conditioning(conditioning: Mapping[str, Mapping]) -> go.Figure:
    """Per conditioning: median Spearman of behaviour with the prior in the prompt and with the original beliefs."""
    conds = list(conditioning)
    fig = go.Figure()
    series = (("imposed", "with the prior in the prompt", PAIR[0]), ("original", "with the original beliefs", PAIR[1]))
    for key, label, color in series:
        vals = [conditioning[c].get(f"median_spearman_{key}") for c in conds]
        fig.add_trace(go.Bar(x=conds, y=vals, name=label, marker_color=color,
                             error_y=_ci_whiskers(vals, [conditioning[c].get(f"median_spearman_{key}_ci") for c in conds])))
    fig.update_layout(barmode="group")
    fig.update_yaxes(title="median Spearman over attributes", range=[-1, 1], gridcolor=GRID, zeroline=True, zerolinecolor="#999")
    fig.update_xaxes(title="conditioning of the role prompt")
    return _style(fig, height=380)


def forecast_mae(archetypes: Mapping[str, Mapping]) -> go.Figure:
    """MAE of forecast vs actual send by round (horizon), one line per Trustee archetype."""
    fig = go.Figure()
    for k, (arch, doc) in enumerate(sorted(archetypes.items(), key=lambda kv: int(kv[0]))):
        maes = doc.get("mae_by_round") or []
        fig.add_trace(go.Scatter(x=list(range(1, len(maes) + 1)), y=maes, mode="lines+markers",
                                 name=f"Trustee returns min(${arch}, 3×sent)",
                                 line=dict(color=MODEL_SEQUENCE[k % len(MODEL_SEQUENCE)], width=2)))
    fig.update_xaxes(title="round (forecast horizon)", dtick=1, gridcolor=GRID)
    fig.update_yaxes(title="mean |forecast − sent| ($)", gridcolor=GRID, rangemode="tozero")
    return _style(fig, height=380)


def trust_behaviour(behaviour: Mapping[str, object]) -> go.Figure:
    """Play alone: how many personas sent each amount | η² of the send by each attribute's levels."""
    counts = behaviour.get("sent_counts") or {}
    attrs = behaviour.get("attributes") or {}
    names = sorted(attrs, key=lambda a: -(attrs[a].get("eta2") or 0.0))
    fig = make_subplots(rows=1, cols=2, column_widths=[0.4, 0.6], horizontal_spacing=0.12,
                        subplot_titles=("Amount sent ($)", "Effect of each attribute on the send (η²)"))
    fig.add_trace(go.Bar(x=[int(v) for v in counts], y=list(counts.values()), marker_color=PAIR[1],
                         hovertemplate="$%{x}: %{y} personas<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Bar(x=names, y=[attrs[a].get("eta2") for a in names], marker_color=PAIR[1],
                         customdata=[_wrap(", ".join(f"{lv} {m:.1f} (n={attrs[a]['n'][lv]})"
                                                     for lv, m in attrs[a]["means"].items()), 50) for a in names],
                         hovertemplate="%{x}: η² = %{y:.2f}<br>mean sent by level:<br>%{customdata}<extra></extra>"),
                  row=1, col=2)
    fig.update_xaxes(title="$ sent", dtick=1, row=1, col=1)
    fig.update_yaxes(title="personas", gridcolor=GRID, row=1, col=1)
    fig.update_yaxes(range=[0, 1], gridcolor=GRID, row=1, col=2)
    return _style(fig, height=400, legend=False)


def trust_play(play: Mapping[str, Mapping]) -> go.Figure:
    """Mean amount sent per round, one line per Trustee archetype (valid played rounds only)."""
    fig = go.Figure()
    for k, (arch, doc) in enumerate(sorted(play.items(), key=lambda kv: int(kv[0]))):
        means = doc.get("mean_sent") or []
        fig.add_trace(go.Scatter(x=list(range(1, len(means) + 1)), y=means, mode="lines+markers",
                                 name=f"Trustee returns min(${arch}, 3×sent)", customdata=doc.get("n") or [],
                                 hovertemplate="round %{x}: $%{y:.2f} (n=%{customdata})<extra></extra>",
                                 line=dict(color=MODEL_SEQUENCE[k % len(MODEL_SEQUENCE)], width=2)))
    fig.update_xaxes(title="round", dtick=1, gridcolor=GRID)
    fig.update_yaxes(title="mean $ sent", gridcolor=GRID, rangemode="tozero")
    return _style(fig, height=380)


# -- PersonaGym -----------------------------------------------------------------------------------
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
