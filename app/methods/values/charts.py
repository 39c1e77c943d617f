"""The Stick to Your Role! figures built once per store state and selection (``app.charts``' conventions: hashable arguments,
shared cached objects that callers must not mutate)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from app import data
from app import figures as shared
from app.charts import _memo
from app.methods.values import data as values_data
from app.methods.values import figures
from app.palette import PAIR, model_colors
from app.stores import StoreRef

@_memo
def leaderboard_bars(ref: StoreRef, models: tuple[str, ...], score: str, with_ci: bool) -> go.Figure:
    rows = values_data.leaderboard_rows(ref)
    rows = rows[rows["model"].isin(models)]
    colors = model_colors(data.models_in(ref))
    if with_ci:
        return shared.score_bars(rows, score, colors, label="rank-order stability", lo=f"{score}_lo", hi=f"{score}_hi")
    return shared.score_bars(rows, score, colors, label=score)

@_memo
def circumplex(ref: StoreRef, model: str, key: str) -> go.Figure:
    result = values_data.structure(ref, model, key)
    return figures.circumplex(result["layout"], result["centroids"], values_data.item_texts(ref, result["instrument"]))


@_memo
def rank_order_heatmap(ref: StoreRef, model: str) -> go.Figure:
    return shared.correlation_heatmap(values_data.stability(ref, model)["matrix"])


def _values_chance(ref: StoreRef, model: str, part: str) -> dict | None:
    return ((data.chance(ref, "values").get(model) or {}).get(part) or {}).get("uniform")


@_memo
def rank_order_by_value(ref: StoreRef, model: str) -> go.Figure:
    fig = figures.value_bars(values_data.stability(ref, model)["by_value"], "rank_order", label="rank-order stability",
                             lo="lo", hi="hi", reference=0.0)
    return shared.chance_band(fig, _values_chance(ref, model, "rank_order_value"), label="chance (random answers, 95 %)")


@_memo
def persona_profiles(ref: StoreRef, model: str, personas: tuple[int, ...]) -> go.Figure:
    people = values_data.personas_of(ref, model)
    return figures.persona_profiles(values_data.values_scores(ref, model), list(personas), persona_names(people))


def persona_names(people: pd.DataFrame) -> dict[int, str]:
    names = dict(zip(people["persona_id"], people["persona"])) if "persona" in people else {}
    return {int(p): (names.get(p) if isinstance(names.get(p), str) and names.get(p) else f"persona {p}")
            for p in people["persona_id"]}


@_memo
def ipsative_bars(ref: StoreRef, model: str, highlight: tuple[int, ...]) -> go.Figure:
    ips = values_data.stability(ref, model)["ipsative"]
    names = persona_names(values_data.personas_of(ref, model))
    fig = figures.persona_bars([names.get(int(p), str(p)) for p in ips["persona_id"]], ips["ipsative"],
                               [p in highlight for p in ips["persona_id"]], label="ipsative stability",
                               keys=[int(p) for p in ips["persona_id"]])
    return shared.chance_band(fig, _values_chance(ref, model, "ipsative_persona"), label="chance (random answers, 95 %)")


@_memo
def mean_profiles_pair(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, context: str, labels: tuple[str, str]) -> go.Figure:
    means = pd.concat([values_data.value_means(ref_a, a).assign(model=labels[0]), values_data.value_means(ref_b, b).assign(model=labels[1])])
    return figures.mean_profiles(means[means["context"] == context], "model", dict(zip(labels, PAIR)),
                                 label="mean ipsatised score")


@_memo
def stability_pair(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, labels: tuple[str, str]) -> go.Figure:
    return figures.value_stability_pair(values_data.stability(ref_a, a)["by_value"], values_data.stability(ref_b, b)["by_value"], labels)
