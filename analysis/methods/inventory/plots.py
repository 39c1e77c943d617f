"""The inventory's figures, pure functions of report frames (no metric is computed here)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from analysis.figures.palette import model_colors
from analysis.figures.style import legend_below

DOMAIN_COLORS = {"O": "#8e6bbf", "C": "#3b7dd8", "E": "#e0a030", "A": "#3aa876", "N": "#d0504a"}  # O, C, E, A, N


def profiles(frame: pd.DataFrame, personas: list[str], n_options: int) -> go.Figure:
    """Domain scores of the chosen personas (one line each) over the human 25–75 % norm band (grey)."""
    fig = go.Figure()
    present = list(dict.fromkeys(frame["domain"]))
    domains = [d for d in DOMAIN_COLORS if d in present] + [d for d in present if d not in DOMAIN_COLORS]
    names = dict(zip(frame["domain"], frame["domain_name"]))
    for x, d in enumerate(domains):
        band = frame[(frame["domain"] == d) & frame["norm_lo"].notna()]
        if len(band):
            fig.add_shape(type="rect", x0=x - 0.35, x1=x + 0.35, y0=band["norm_lo"].mean(), y1=band["norm_hi"].mean(),
                          fillcolor="rgba(120,120,120,0.18)", line_width=0, layer="below")
    colors = model_colors(personas)
    for pid in personas:
        rows = frame[frame["persona_id"] == pid].set_index("domain").reindex(domains)
        fig.add_trace(go.Scatter(x=[f"{d} · {names[d]}" for d in domains], y=rows["score"], mode="lines+markers",
                                 name=pid, line={"color": colors.get(pid)}, customdata=[[pid, d] for d in domains],
                                 hovertemplate="%{customdata[0]} · %{x}: %{y:.2f}<extra></extra>"))
    fig.update_layout(yaxis={"title": f"mean item score (1–{n_options})", "range": [0.8, n_options + 0.2]},
                      height=380, margin={"t": 30, "b": 30}, legend={"title": "persona"})
    return legend_below(fig)


def shaping(curve: pd.DataFrame, n_options: int) -> go.Figure:
    """Target level against the mean score of the shaped domain, one line per domain (± 1 SD over personas)."""
    fig = go.Figure()
    for d, rows in curve.groupby("domain", sort=False):
        rows = rows.sort_values("target_level")
        fig.add_trace(go.Scatter(x=rows["target_level"], y=rows["score"], mode="lines+markers", name=str(d),
                                 line={"color": DOMAIN_COLORS.get(str(d))},
                                 error_y={"type": "data", "array": rows["sd"].fillna(0), "visible": True},
                                 customdata=[[str(d), lv] for lv in rows["target_level"]],
                                 hovertemplate=f"{d} · level %{{x}}: %{{y:.2f}}<extra></extra>"))
    fig.update_layout(xaxis={"title": "target level (1 = extremely low … 9 = extremely high)", "dtick": 1},
                      yaxis={"title": "score of the shaped domain", "range": [0.8, n_options + 0.2]},
                      height=360, margin={"t": 30, "b": 30})
    return legend_below(fig)


def positions(shares: dict[str, float | None], chance_share: float) -> go.Figure:
    """How often each number was given, against 1/k (what no position preference gives)."""
    keys = list(shares)
    fig = go.Figure(go.Bar(x=keys, y=[shares[k] or 0 for k in keys], marker_color="#3b7dd8",
                           hovertemplate="number %{x}: %{y:.1%}<extra></extra>"))
    fig.add_hline(y=chance_share, line_dash="dash", annotation_text=f"no preference ({chance_share:.0%})")
    fig.update_layout(xaxis={"title": "number given"}, yaxis={"title": "share of valid answers", "tickformat": ".0%"},
                      height=280, margin={"t": 30, "b": 30})
    return fig


def mtmm(matrix: pd.DataFrame) -> go.Figure:
    """The multitrait–multimethod correlation heatmap."""
    labels = list(matrix["scale"])
    values = matrix[labels].to_numpy(float)
    fig = go.Figure(go.Heatmap(z=values, x=labels, y=labels, zmin=-1, zmax=1, colorscale="RdBu", reversescale=True,
                               text=[[f"{v:.2f}" if v == v else "—" for v in row] for row in values],
                               texttemplate="%{text}", hovertemplate="%{y} × %{x}: r = %{z:.2f}<extra></extra>"))
    fig.update_layout(height=120 + 32 * len(labels), margin={"t": 30, "b": 30}, yaxis={"autorange": "reversed"})
    return fig


def beside_published(published: pd.DataFrame, mine: dict[str, float]) -> go.Figure:
    """The paper's convergent validity per model (grey) with this store's models' (coloured) on the same axis:
    labelled, not ranked together (different inventories, personas and prompt sets)."""
    pub = published[published["metric"] == "mtmm/convergent"].sort_values("value")
    fig = go.Figure(go.Scatter(x=pub["value"], y=pub["model"], mode="markers", name="published (paper, IPIP-NEO-300 × BFI)",
                               marker={"color": "#999999", "size": 9},
                               hovertemplate="%{y}: %{x:.2f} (published)<extra></extra>"))
    colors = model_colors(list(mine))
    for model, value in mine.items():
        fig.add_vline(x=value, line_color=colors.get(model), line_dash="dash",
                      annotation_text=f"{model} (this store)", annotation_position="top")
    fig.update_layout(xaxis={"title": "convergent validity (mean same-domain r across two inventories)",
                             "range": [-0.3, 1.05]}, height=120 + 22 * len(pub), margin={"t": 40, "b": 30},
                      showlegend=False)
    return fig


def domains_beside_published(published: pd.DataFrame, mine: dict[str, dict[str, float | None]], label: str) -> go.Figure:
    """Per domain, the paper's convergent r of each of its models (grey, named ``label``; hover: the model) and this
    store's models' (coloured diamonds): one axis, not ranked or averaged together."""
    domains = [d for d in DOMAIN_COLORS if d in set(published["domain"])]
    pub = published[published["domain"].isin(domains)]
    fig = go.Figure(go.Scatter(x=pub["value"], y=pub["domain"], mode="markers", name=label, text=pub["model"],
                               marker={"color": "#999999", "size": 8, "opacity": 0.7},
                               hovertemplate="%{text}, %{y}: r = %{x:.2f} (published)<extra></extra>"))
    colors = model_colors(list(mine))
    for model, per in mine.items():
        shown = [d for d in domains if per.get(d) is not None]
        fig.add_trace(go.Scatter(x=[per[d] for d in shown], y=shown, mode="markers", name=f"{model} (this store)",
                                 marker={"color": colors.get(model), "size": 13, "symbol": "diamond"},
                                 hovertemplate=f"{model}, %{{y}}: r = %{{x:.2f}} (this store)<extra></extra>"))
    fig.update_layout(xaxis={"title": "convergent r per domain (same domain, two inventories)"},
                      yaxis={"title": "domain", "categoryorder": "array", "categoryarray": domains[::-1]},
                      height=320, margin={"t": 30, "b": 30})
    return legend_below(fig)
