"""The trust-game figures drawn from a trust report alone (pure: report in, figures out). The pages draw them
through ``app/methods/trust/charts.py`` (cached per store, chance bands added there); ``report_figures`` is the
method's ``figures`` hook for a paper."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from analysis.figures.style import drawn
from analysis.methods.trust import plots


def attributes(report: dict[str, Any], model: str, strategy: str) -> go.Figure:
    """Belief vs behaviour per attribute of one model's population games under one prompting strategy."""
    return plots.trust_attributes(report["models"][model]["population"][strategy]["attributes"])


def conditioning(report: dict[str, Any], model: str) -> go.Figure:
    """Median Spearman with the prior in the prompt and with the original beliefs, per conditioning measured."""
    found = report["models"][model]["conditioning"]
    return plots.trust_conditioning({c: d for c, d in found.items() if d.get("attributes")})


def forecast_mae(report: dict[str, Any], model: str) -> go.Figure:
    """Forecast error by round per Trustee archetype (the page adds the random-forecast band)."""
    return plots.forecast_mae(report["models"][model]["individual"]["archetypes"])


def behaviour(report: dict[str, Any], model: str) -> go.Figure:
    """Play alone: the amounts sent and each attribute's effect on them."""
    return plots.trust_behaviour(report["models"][model].get("behaviour") or {})


def play(report: dict[str, Any], model: str) -> go.Figure:
    """Mean amount sent per round per Trustee archetype."""
    return plots.trust_play(report["models"][model].get("play") or {})


def report_figures(report: dict[str, Any], models: list[str]) -> dict[str, go.Figure]:
    """The view's ``figures`` hook, per model of ``models``: its play alone ('behaviour:<model>'), belief vs behaviour
    per prompting strategy ('attributes:<model>:<strategy>'), conditioning, play and forecast error over rounds."""
    found: dict[str, go.Figure] = {}
    for model in (m for m in models if m in report["models"]):
        mdoc = report["models"][model]
        if (mdoc.get("behaviour") or {}).get("n_personas"):
            found[f"behaviour:{model}"] = behaviour(report, model)
        for strategy in mdoc.get("population") or {}:
            found[f"attributes:{model}:{strategy}"] = attributes(report, model, strategy)
        found[f"conditioning:{model}"] = conditioning(report, model)
        if any(d.get("n_personas") for d in (mdoc.get("play") or {}).values()):
            found[f"play:{model}"] = play(report, model)
        if ((mdoc.get("individual") or {}).get("archetypes")):
            found[f"forecast_mae:{model}"] = forecast_mae(report, model)
    return drawn(found)
