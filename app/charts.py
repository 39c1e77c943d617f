"""Figures built once per store state and selection, then reused (plotly's object construction and
validation cost more than the rest of a page rerun). Each function takes hashable arguments (a
``StoreRef`` and selections), reads through ``app.data`` and draws with ``app.figures``. The cached
figure objects are shared: callers must not mutate them."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import data, figures
from app.palette import PAIR, model_colors
from app.stores import StoreRef

_memo = st.cache_resource(show_spinner=False, max_entries=256)


@_memo
def leaderboard_bars(ref: StoreRef, models: tuple[str, ...], score: str, with_ci: bool) -> go.Figure:
    rows = data.leaderboard_rows(ref)
    rows = rows[rows["model"].isin(models)]
    colors = model_colors(data.models_in(ref))
    if with_ci:
        return figures.score_bars(rows, score, colors, label="rank-order stability", lo=f"{score}_lo", hi=f"{score}_hi")
    return figures.score_bars(rows, score, colors, label=score)


@_memo
def circumplex(ref: StoreRef, model: str, key: str) -> go.Figure:
    result = data.structure(ref, model, key)
    return figures.circumplex(result["layout"], result["centroids"], data.item_texts(result["instrument"]))


@_memo
def rank_order_heatmap(ref: StoreRef, model: str) -> go.Figure:
    return figures.correlation_heatmap(data.stability(ref, model)["matrix"])


def _values_chance(ref: StoreRef, model: str, part: str) -> dict | None:
    return ((data.chance(ref, "values").get(model) or {}).get(part) or {}).get("uniform")


@_memo
def rank_order_by_value(ref: StoreRef, model: str) -> go.Figure:
    fig = figures.value_bars(data.stability(ref, model)["by_value"], "rank_order", label="rank-order stability",
                             lo="lo", hi="hi", reference=0.0)
    return figures.chance_band(fig, _values_chance(ref, model, "rank_order_value"), label="chance (random answers, 95 %)")


@_memo
def persona_profiles(ref: StoreRef, model: str, personas: tuple[int, ...]) -> go.Figure:
    people = data.personas_of(ref, model)
    return figures.persona_profiles(data.values_scores(ref, model), list(personas), persona_names(people))


def persona_names(people: pd.DataFrame) -> dict[int, str]:
    names = dict(zip(people["persona_id"], people["persona"])) if "persona" in people else {}
    return {int(p): (names.get(p) if isinstance(names.get(p), str) and names.get(p) else f"persona {p}")
            for p in people["persona_id"]}


@_memo
def ipsative_bars(ref: StoreRef, model: str, highlight: tuple[int, ...]) -> go.Figure:
    ips = data.stability(ref, model)["ipsative"]
    names = persona_names(data.personas_of(ref, model))
    fig = figures.persona_bars([names.get(int(p), str(p)) for p in ips["persona_id"]], ips["ipsative"],
                               [p in highlight for p in ips["persona_id"]], label="ipsative stability",
                               keys=[int(p) for p in ips["persona_id"]])
    return figures.chance_band(fig, _values_chance(ref, model, "ipsative_persona"), label="chance (random answers, 95 %)")


@_memo
def mbti_subject(ref: StoreRef, model: str, subject: str) -> go.Figure:
    sdoc = data.mbti_doc(ref)["models"][model]["subjects"][subject]
    color = model_colors(data.models_in(ref)).get(model)
    fig = figures.mbti_dimensions({subject: sdoc["scores"]}, {subject: data.mbti_spread(ref, model).get(subject, {})},
                                  {subject: color})
    band = (((data.chance(ref, "mbti").get(model) or {}).get("metrics") or {}).get("dimension_score") or {}).get("uniform")
    return figures.chance_band(fig, band, axis="x", label="random answers (95 %)")


@_memo
def mbti_subjects(ref: StoreRef, model: str) -> go.Figure:
    subjects = data.mbti_doc(ref)["models"][model]["subjects"]
    return figures.mbti_dimensions({s: d["scores"] for s, d in subjects.items()})


@_memo
def mbti_distribution(ref: StoreRef, model: str, subject: str, order: str) -> go.Figure:
    return figures.answer_distribution(data.mbti_distribution(ref, model, subject, order))


@_memo
def difference_forest(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, labels: tuple[str, str]) -> go.Figure:
    return figures.difference_forest(data.compare(ref_a, a, ref_b, b), *labels)


@_memo
def mean_profiles_pair(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, context: str, labels: tuple[str, str]) -> go.Figure:
    means = pd.concat([data.value_means(ref_a, a).assign(model=labels[0]), data.value_means(ref_b, b).assign(model=labels[1])])
    return figures.mean_profiles(means[means["context"] == context], "model", dict(zip(labels, PAIR)),
                                 label="mean ipsatised score")


@_memo
def stability_pair(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, labels: tuple[str, str]) -> go.Figure:
    return figures.value_stability_pair(data.stability(ref_a, a)["by_value"], data.stability(ref_b, b)["by_value"], labels)


@_memo
def mbti_pair(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, subject: str, labels: tuple[str, str]) -> go.Figure:
    da, db = data.mbti_doc(ref_a)["models"][a], data.mbti_doc(ref_b)["models"][b]
    la, lb = labels
    return figures.mbti_dimensions({la: da["subjects"][subject]["scores"], lb: db["subjects"][subject]["scores"]},
                                   {la: data.mbti_spread(ref_a, a).get(subject, {}), lb: data.mbti_spread(ref_b, b).get(subject, {})},
                                   dict(zip(labels, PAIR)))


@_memo
def trust_attributes(ref: StoreRef, model: str, strategy: str) -> go.Figure:
    return figures.trust_attributes(data.trust_doc(ref)["models"][model]["population"][strategy]["attributes"])


@_memo
def trust_conditioning(ref: StoreRef, model: str) -> go.Figure:
    conditioning = data.trust_doc(ref)["models"][model]["conditioning"]
    return figures.trust_conditioning({c: d for c, d in conditioning.items() if d.get("attributes")})


@_memo
def forecast_mae(ref: StoreRef, model: str) -> go.Figure:
    fig = figures.forecast_mae(data.trust_doc(ref)["models"][model]["individual"]["archetypes"])
    bands = ((data.chance(ref, "trust").get(model) or {}).get("individual") or {})
    lower = [(b.get("mae") or {}).get("uniform") for b in bands.values()]
    lower = [b for b in lower if b and b.get("lo") is not None]
    # the lowest random-forecast band: an MAE above it is no better than random forecasts for any archetype
    return figures.chance_band(fig, min(lower, key=lambda b: b["lo"], default=None),
                               label="random forecasts (95 %)")


@_memo
def trust_behaviour(ref: StoreRef, model: str) -> go.Figure:
    return figures.trust_behaviour(data.trust_doc(ref)["models"][model].get("behaviour") or {})


@_memo
def trust_play(ref: StoreRef, model: str) -> go.Figure:
    return figures.trust_play(data.trust_doc(ref)["models"][model].get("play") or {})


@_memo
def personagym_tasks(ref: StoreRef, models: tuple[str, ...], published: tuple[str, ...]) -> go.Figure:
    from analysis.methods.personagym import TASKS

    doc = data.personagym_doc(ref)
    colors = model_colors(data.models_in(ref))
    series = {m: doc["models"][m]["tasks"] for m in models}
    for k, name in enumerate(published):
        series[f"{name} (published)"] = data.personagym_published(ref).get(name, {}).get("tasks", {})
        colors[f"{name} (published)"] = ("#bab0ac", "#9d755d", "#eeca3b", "#72b7b2")[k % 4]
    fig = figures.task_scores(series, colors, TASKS)
    bands = [((data.chance(ref, "personagym").get(m) or {}).get("metrics") or {}).get(f"task/{t}", {}).get("uniform")
             for m in models for t in TASKS]
    bands = [b for b in bands if b and b.get("lo") is not None]
    widest = max(bands, key=lambda b: b["hi"] - b["lo"], default=None)
    return figures.chance_band(fig, widest, label="a task score under random grades (95 %)")


@_memo
def personagym_personas(ref: StoreRef, model: str) -> go.Figure:
    from analysis.methods.personagym import TASKS

    personas = data.personagym_doc(ref)["models"][model]["personas"]
    return figures.persona_task_scores({p: d.get("tasks") or {} for p, d in personas.items()}, TASKS)
