"""The trust-game figures built once per store state and selection (``app.charts``' conventions: hashable arguments,
shared cached objects that callers must not mutate); each draws the report's figure (``report_figures``) and adds what
the report does not hold (chance bands)."""

from __future__ import annotations

import plotly.graph_objects as go

from analysis.figures import style as shared
from analysis.methods.trust import figures, plots
from app import data
from app.charts import _memo
from app.methods.trust import data as trust_data
from app.stores import StoreRef


@_memo
def trust_attributes(ref: StoreRef, model: str, strategy: str) -> go.Figure:
    return figures.attributes(trust_data.trust_doc(ref), model, strategy)

@_memo
def trust_conditioning(ref: StoreRef, model: str) -> go.Figure:
    return figures.conditioning(trust_data.trust_doc(ref), model)


@_memo
def forecast_mae(ref: StoreRef, model: str) -> go.Figure:
    fig = figures.forecast_mae(trust_data.trust_doc(ref), model)
    bands = ((data.chance(ref, "trust").get(model) or {}).get("individual") or {})
    lower = [(b.get("mae") or {}).get("uniform") for b in bands.values()]
    lower = [b for b in lower if b and b.get("lo") is not None]
    # the lowest random-forecast band: an MAE above it is no better than random forecasts for any archetype
    return shared.chance_band(fig, min(lower, key=lambda b: b["lo"], default=None),
                               label="random forecasts (95 %)")


@_memo
def trust_behaviour(ref: StoreRef, model: str) -> go.Figure:
    return figures.behaviour(trust_data.trust_doc(ref), model)


@_memo
def trust_play(ref: StoreRef, model: str) -> go.Figure:
    return figures.play(trust_data.trust_doc(ref), model)


@_memo
def trust_imported(ref: StoreRef, model: str, config_id: str) -> go.Figure:
    return plots.trust_imported_distribution(trust_data.trust_doc(ref)["models"][model]["imported"][config_id])
