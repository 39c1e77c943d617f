"""Plotly figures of the trust-game pages (pure: frames in, figures out; styling from ``analysis.figures.style``)."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from analysis.figures.palette import GRID, MODEL_SEQUENCE, PAIR
from analysis.figures.style import BELOW_TOOLBAR, _ci_whiskers, _style, _wrap


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
    return _style(fig, height=420, top=BELOW_TOOLBAR)

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


#: The x axis of a histogram of amounts sent (``analysis.methods.trust.behaviour.dollar_bins``).
BINS_TITLE = "$ sent, in bins [d, d+1)"


def trust_behaviour(behaviour: Mapping[str, object]) -> go.Figure:
    """Play alone: how many personas sent each amount | η² of the send by each attribute's levels."""
    counts = behaviour.get("sent_counts") or {}
    attrs = behaviour.get("attributes") or {}
    names = sorted(attrs, key=lambda a: -(attrs[a].get("eta2") or 0.0))
    fig = make_subplots(rows=1, cols=2, column_widths=[0.4, 0.6], horizontal_spacing=0.12,
                        subplot_titles=("Amount sent ($)", "Effect of each attribute on the send (η²)"))
    fig.add_trace(go.Bar(x=list(counts), y=list(counts.values()), marker_color=PAIR[1],
                         hovertemplate="$%{x}: %{y} personas<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Bar(x=names, y=[attrs[a].get("eta2") for a in names], marker_color=PAIR[1],
                         customdata=[_wrap(", ".join(f"{lv} {m:.1f} (n={attrs[a]['n'][lv]})"
                                                     for lv, m in attrs[a]["means"].items()), 50) for a in names],
                         hovertemplate="%{x}: η² = %{y:.2f}<br>mean sent by level:<br>%{customdata}<extra></extra>"),
                  row=1, col=2)
    fig.update_xaxes(title=BINS_TITLE, type="category", row=1, col=1)
    fig.update_yaxes(title="personas", gridcolor=GRID, row=1, col=1)
    fig.update_yaxes(range=[0, 1], gridcolor=GRID, row=1, col=2)
    return _style(fig, height=400, legend=False, top=BELOW_TOOLBAR)


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


def trust_imported_distribution(entry: Mapping[str, Mapping]) -> go.Figure:
    """An imported configuration: personas per dollar sent, by the source's extraction and by RoleScope's reading."""
    fig = go.Figure()
    series = (("amount_sent", "the source's amounts", PAIR[1]), ("amount_sent_reader", "RoleScope's reading", PAIR[0]))
    for key, label, color in series:
        dist = (entry.get(key) or {}).get("distribution") or {}
        fig.add_trace(go.Bar(x=list(dist), y=list(dist.values()), name=label, marker_color=color,
                             hovertemplate="$%{x}: %{y} personas<extra>" + label + "</extra>"))
    fig.update_layout(barmode="group")
    fig.update_xaxes(title=BINS_TITLE, type="category")
    fig.update_yaxes(title="personas", gridcolor=GRID, rangemode="tozero")
    return _style(fig, height=360)
