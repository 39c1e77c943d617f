"""The Stick to Your Role! figures built once per store state and selection (``app.charts``' conventions: hashable arguments,
shared cached objects that callers must not mutate); each draws the report's figure (``report_figures``) and adds what
the report does not hold (chance bands)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from analysis.figures import style as shared
from analysis.figures.palette import PAIR, model_colors
from analysis.methods.values import figures, plots, reads
from app import data
from app.charts import _memo
from app.methods.values import data as values_data
from app.stores import StoreRef

persona_names = reads.persona_names


@_memo
def leaderboard_bars(ref: StoreRef, models: tuple[str, ...], score: str, with_ci: bool) -> go.Figure:
    return figures.leaderboard_bars(values_data.values_doc(ref), models, score, with_ci,
                                           model_colors(data.models_in(ref)))


@_memo
def circumplex(ref: StoreRef, model: str, key: str) -> go.Figure:
    return figures.circumplex(values_data.values_doc(ref), model, key)


@_memo
def rank_order_heatmap(ref: StoreRef, model: str) -> go.Figure:
    return figures.rank_order_heatmap(values_data.values_doc(ref), model)


def _values_chance(ref: StoreRef, model: str, part: str) -> dict | None:
    return ((data.chance(ref, "values").get(model) or {}).get(part) or {}).get("uniform")


@_memo
def rank_order_by_value(ref: StoreRef, model: str) -> go.Figure:
    fig = figures.rank_order_by_value(values_data.values_doc(ref), model)
    return shared.chance_band(fig, _values_chance(ref, model, "rank_order_value"), label="chance (random answers, 95 %)")


@_memo
def persona_profiles(ref: StoreRef, model: str, personas: tuple[int, ...]) -> go.Figure:
    people = values_data.personas_of(ref, model)
    return plots.persona_profiles(values_data.values_scores(ref, model), list(personas), persona_names(people))


@_memo
def ipsative_bars(ref: StoreRef, model: str, highlight: tuple[int, ...]) -> go.Figure:
    fig = figures.ipsative_bars(values_data.values_doc(ref), model, highlight)
    return shared.chance_band(fig, _values_chance(ref, model, "ipsative_persona"), label="chance (random answers, 95 %)")


@_memo
def mean_profiles_pair(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, context: str, labels: tuple[str, str]) -> go.Figure:
    means = pd.concat([values_data.value_means(ref_a, a).assign(model=labels[0]), values_data.value_means(ref_b, b).assign(model=labels[1])])
    return plots.mean_profiles(means[means["context"] == context], "model", dict(zip(labels, PAIR)),
                                 label="mean ipsatised score")


@_memo
def stability_pair(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, labels: tuple[str, str]) -> go.Figure:
    return plots.value_stability_pair(values_data.stability(ref_a, a)["by_value"], values_data.stability(ref_b, b)["by_value"], labels)
