"""The cross-method page's figures, drawn from the report's frames (nothing here computes a metric)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from analysis.figures.palette import PAIR, model_colors
from analysis.figures.style import legend_below


def _fmt(x: Any, digits: int = 2) -> str:
    return "—" if x is None or (isinstance(x, float) and not np.isfinite(x)) else f"{x:.{digits}f}"


def heatmap(matrix: pd.DataFrame, order: Sequence[str], labels: Mapping[str, str]) -> go.Figure:
    """The MTMM matrix: r of every pair of constructs across personas, one square per cell coloured −1 (blue) .. +1
    (red), grey where undefined; the hover holds the bootstrap CI, the cell's chance band and p, the family-wise
    threshold and p over all cells and the verdict read from it (or why it is undefined). Squares of a scatter trace, so that a click selects a cell (customdata: a, b)."""
    pos = {c: i for i, c in enumerate(order)}
    cells: list[dict[str, Any]] = []
    for row in matrix.itertuples(index=False):
        if row.a not in pos or row.b not in pos:
            continue
        defined = row.r is not None and not pd.isna(row.r)
        family = getattr(row, "p_family", None)
        band = "within one method" if row.within else (
            f"chance [{_fmt(row.chance_lo)}, {_fmt(row.chance_hi)}], p = {_fmt(row.p, 3)}"
            + (f"<br>family-wise: |r| > {_fmt(getattr(row, 'family_hi', None))}, p = {_fmt(family, 3)}"
               if family is not None and not pd.isna(family) else "") + f" · {row.verdict}"
            if row.chance_lo is not None and not pd.isna(row.chance_lo) else "no chance band")
        hover = (f"{labels[row.a]} × {labels[row.b]}<br>r = {_fmt(row.r)} [{_fmt(row.lo)}, {_fmt(row.hi)}], n = {row.n}"
                 f"<br>{band}" if defined else f"{labels[row.a]} × {labels[row.b]}<br>—: {row.reason}")
        for x, y in ((row.a, row.b), (row.b, row.a)):
            cells.append({"x": labels[x], "y": labels[y], "r": float(row.r) if defined else None, "hover": hover,
                          "a": row.a, "b": row.b})
    k = len(order)
    size = max(8, min(28, int(600 / max(k, 1))))
    fig = go.Figure()
    for defined in (True, False):
        part = [c for c in cells if (c["r"] is not None) == defined]
        if not part:
            continue
        marker: dict[str, Any] = {"symbol": "square", "size": size, "line": {"width": 0}}
        if defined:
            marker |= {"color": [c["r"] for c in part], "colorscale": "RdBu_r", "cmin": -1, "cmax": 1,
                       "colorbar": {"title": "r"}}
        else:
            marker["color"] = "#d9d9d9"
        fig.add_trace(go.Scatter(x=[c["x"] for c in part], y=[c["y"] for c in part], mode="markers", marker=marker,
                                 text=[c["hover"] for c in part], customdata=[[c["a"], c["b"]] for c in part],
                                 hovertemplate="%{text}<extra></extra>", showlegend=False))
    names = [labels[c] for c in order]
    side = size * k + 200
    fig.update_layout(height=side, margin={"t": 20, "l": 10, "r": 10, "b": 10}, plot_bgcolor="white",
                      xaxis={"categoryorder": "array", "categoryarray": names, "tickangle": -50, "showgrid": False},
                      yaxis={"categoryorder": "array", "categoryarray": names[::-1], "showgrid": False})
    return fig


def pairs_chart(pairs: Sequence[Mapping[str, Any]], title: str) -> go.Figure:
    """Each pair a row: its r with the bootstrap CI (dark), the central 95 % of its permutation null (grey bar), the
    predicted direction (hollow marker at 0 or ±0.3) and the published human r where bundled (diamond)."""
    pairs = list(pairs)[::-1]
    y = [p["label"] for p in pairs]
    fig = go.Figure()
    fig.add_trace(go.Bar(
        y=y, x=[(p.get("chance") or {}).get("hi", 0) - (p.get("chance") or {}).get("lo", 0) if p.get("chance") and
                p["chance"].get("lo") is not None else 0 for p in pairs],
        base=[(p.get("chance") or {}).get("lo") if p.get("chance") else None for p in pairs], orientation="h",
        marker_color="rgba(150,150,150,0.35)", name="chance (95 % of shuffles)", hoverinfo="skip"))
    defined = [p for p in pairs if p.get("r") is not None]
    fig.add_trace(go.Scatter(
        y=[p["label"] for p in defined], x=[p["r"] for p in defined], mode="markers", name="r (95 % CI)",
        marker={"color": PAIR[0], "size": 9},
        error_x={"type": "data", "symmetric": False,
                 "array": [(p["hi"] - p["r"]) if p.get("hi") is not None else 0 for p in defined],
                 "arrayminus": [(p["r"] - p["lo"]) if p.get("lo") is not None else 0 for p in defined]},
        customdata=[[p["a"], p["b"]] for p in defined],
        hovertemplate="%{y}: r = %{x:.2f}<extra></extra>"))
    fig.add_trace(go.Scatter(y=y, x=[0.3 * p["expected"] for p in pairs], mode="markers", name="predicted direction",
                             marker={"symbol": "circle-open", "size": 11, "color": "#555"}, hoverinfo="skip"))
    human = [p for p in pairs if p.get("human_r") is not None]
    if human:
        fig.add_trace(go.Scatter(y=[p["label"] for p in human], x=[p["human_r"] for p in human], mode="markers",
                                 name="published human r", marker={"symbol": "diamond", "size": 11, "color": PAIR[1]},
                                 hovertemplate="%{y}: human r = %{x:.2f}<extra></extra>"))
    fig.add_vline(x=0, line_color="#999", line_width=1)
    fig.update_layout(title=title, height=max(260, 34 * len(pairs) + 110), barmode="overlay",
                      xaxis={"range": [-1, 1], "title": "r across personas"}, margin={"t": 40, "l": 10, "r": 10, "b": 10})
    return legend_below(fig)


def scatter(scores: pd.DataFrame, a: str, b: str, labels: Mapping[str, str]) -> go.Figure:
    """The personas' scores on two constructs (customdata: persona_id); personas missing either are left out."""
    both = scores[scores[a].notna() & scores[b].notna()]
    fig = go.Figure(go.Scatter(x=both[a], y=both[b], mode="markers+text", text=both["persona_id"], textposition="top center",
                               customdata=both[["persona_id"]].to_numpy(), marker={"size": 10, "color": PAIR[0]},
                               hovertemplate="%{customdata[0]}: (%{x:.2f}, %{y:.2f})<extra></extra>"))
    fig.update_layout(xaxis={"title": labels[a]}, yaxis={"title": labels[b]}, height=380,
                      margin={"t": 20, "l": 10, "r": 10, "b": 40})
    return fig


def published_pairs_chart(pairs: Sequence[Mapping[str, Any]], mine: Mapping[str, Mapping[str, float | None]],
                          label: str) -> go.Figure:
    """Each pair with published LLM figures a row: every published model's r (grey, named ``label``; hover: the model)
    and this store's models' r (coloured diamonds, from the report): one axis, not ranked together."""
    pairs = [p for p in pairs if p.get("published")][::-1]
    rows = [(p["label"], f) for p in pairs for f in p["published"]]
    fig = go.Figure(go.Scatter(y=[y for y, _ in rows], x=[f["r"] for _, f in rows], mode="markers", name=label,
                               text=[f["model"] for _, f in rows], marker={"color": "#999999", "size": 8, "opacity": 0.7},
                               hovertemplate="%{text}, %{y}: r = %{x:.2f} (published)<extra></extra>"))
    colors = model_colors(list(mine))
    for model, values in mine.items():
        shown = [p["label"] for p in pairs if values.get(p["label"]) is not None]
        fig.add_trace(go.Scatter(y=shown, x=[values[y] for y in shown], mode="markers", name=f"{model} (this store)",
                                 marker={"color": colors.get(model), "size": 13, "symbol": "diamond"},
                                 hovertemplate=f"{model}, %{{y}}: r = %{{x:.2f}} (this store)<extra></extra>"))
    fig.add_vline(x=0, line_color="#999", line_width=1)
    fig.update_layout(height=max(240, 40 * len(pairs) + 150), xaxis={"range": [-1, 1], "title": "r"},
                      margin={"t": 20, "l": 10, "r": 10, "b": 10})
    return legend_below(fig)
