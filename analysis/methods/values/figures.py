"""The Stick to Your Role! figures drawn from a values report alone (pure: report in, figures out). The pages draw them
through ``app/methods/values/charts.py`` (cached per store, chance bands added there); ``report_figures`` is the
method's ``figures`` hook for a paper."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

from analysis.figures import style as shared
from analysis.figures.palette import model_colors
from analysis.methods.values import plots, reads


def leaderboard_bars(report: dict[str, Any], models: tuple[str, ...], score: str, with_ci: bool,
                     colors: Mapping[str, str]) -> go.Figure:
    """One leaderboard score per model (rank-order stability with its 95 % CI when ``with_ci``)."""
    rows = reads.leaderboard_rows(report)
    rows = rows[rows["model"].isin(models)]
    if with_ci:
        return shared.score_bars(rows, score, colors, label="rank-order stability", lo=f"{score}_lo", hi=f"{score}_hi")
    return shared.score_bars(rows, score, colors, label=score)


def circumplex(report: dict[str, Any], model: str, key: str) -> go.Figure:
    """The MDS circumplex of one model × context, item texts in the hover where bundled."""
    result = reads.structure(report, model, key)
    return plots.circumplex(result["layout"], result["centroids"], reads.item_texts(report, result["instrument"]))


def rank_order_heatmap(report: dict[str, Any], model: str) -> go.Figure:
    """Context × context rank-order stability of one model."""
    return shared.correlation_heatmap(reads.stability(report, model)["matrix"])


def rank_order_by_value(report: dict[str, Any], model: str) -> go.Figure:
    """Rank-order stability per value with its 95 % CI (the page adds the chance band)."""
    return plots.value_bars(reads.stability(report, model)["by_value"], "rank_order", label="rank-order stability",
                              lo="lo", hi="hi", reference=0.0)


def ipsative_bars(report: dict[str, Any], model: str, highlight: tuple[int, ...] = ()) -> go.Figure:
    """Ipsative stability per persona (``highlight``: persona ids drawn in the second colour)."""
    ips = reads.stability(report, model)["ipsative"]
    names = reads.persona_names(reads.personas_of(report, model))
    return plots.persona_bars([names.get(int(p), str(p)) for p in ips["persona_id"]], ips["ipsative"],
                                [p in highlight for p in ips["persona_id"]], label="ipsative stability",
                                keys=[int(p) for p in ips["persona_id"]])


def report_figures(report: dict[str, Any], models: list[str]) -> dict[str, go.Figure]:
    """The view's ``figures`` hook: the leaderboard's Cardinal score and rank-order stability over ``models``, then per
    model its circumplex in each context and, with two contexts or more, its rank-order matrix, per-value and
    ipsative stability ('<chart>:<model>[:<context>]')."""
    present = [m for m in models if m in report["models"]]
    colors = model_colors(list(report["models"]))
    found: dict[str, go.Figure | None] = {
        "cardinal": leaderboard_bars(report, tuple(present), "cardinal", False, colors),
        "rank_order": leaderboard_bars(report, tuple(present), "rank_order", True, colors)}
    for model in present:
        for key in report["models"][model].get("contexts") or {}:
            if reads.structure(report, model, key)["layout"] is not None:
                found[f"circumplex:{model}:{key}"] = circumplex(report, model, key)
        if reads.stability(report, model)["matrix"] is not None:
            found[f"rank_order_matrix:{model}"] = rank_order_heatmap(report, model)
            found[f"rank_order_by_value:{model}"] = rank_order_by_value(report, model)
            found[f"ipsative:{model}"] = ipsative_bars(report, model)
    return shared.drawn(found)
