"""The MBTI figures built once per store state and selection (``app.charts``' conventions: hashable arguments,
shared cached objects that callers must not mutate)."""

from __future__ import annotations

import plotly.graph_objects as go

from analysis.figures import style as shared
from analysis.figures.palette import PAIR, model_colors
from analysis.methods.mbti import figures, plots
from app import data
from app.charts import _memo
from app.methods.mbti import data as mbti_data
from app.stores import StoreRef


@_memo
def mbti_subject(ref: StoreRef, model: str, subject: str) -> go.Figure:
    sdoc = mbti_data.mbti_doc(ref)["models"][model]["subjects"][subject]
    color = model_colors(data.models_in(ref)).get(model)
    fig = plots.mbti_dimensions({subject: sdoc["scores"]}, {subject: mbti_data.mbti_spread(ref, model).get(subject, {})},
                                  {subject: color})
    band = (((data.chance(ref, "mbti").get(model) or {}).get("metrics") or {}).get("dimension_score") or {}).get("uniform")
    return shared.chance_band(fig, band, axis="x", label="random answers (95 %)")

@_memo
def mbti_subjects(ref: StoreRef, model: str) -> go.Figure:
    return figures.subjects(mbti_data.mbti_doc(ref), model)


@_memo
def mbti_distribution(ref: StoreRef, model: str, subject: str, order: str) -> go.Figure:
    return plots.answer_distribution(mbti_data.mbti_distribution(ref, model, subject, order))


@_memo
def mbti_pair(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, subject: str, labels: tuple[str, str]) -> go.Figure:
    da, db = mbti_data.mbti_doc(ref_a)["models"][a], mbti_data.mbti_doc(ref_b)["models"][b]
    la, lb = labels
    return plots.mbti_dimensions({la: da["subjects"][subject]["scores"], lb: db["subjects"][subject]["scores"]},
                                   {la: mbti_data.mbti_spread(ref_a, a).get(subject, {}), lb: mbti_data.mbti_spread(ref_b, b).get(subject, {})},
                                   dict(zip(labels, PAIR)))
