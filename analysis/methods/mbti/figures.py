"""The MBTI figures drawn from an MBTI report alone (pure: report in, figures out). The pages draw them
through ``app/methods/mbti/charts.py`` (cached per store, chance bands added there); ``report_figures`` is the
method's ``figures`` hook for a paper."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

from analysis.figures.palette import model_colors
from analysis.figures.style import drawn
from analysis.methods.mbti import plots


def subjects(report: dict[str, Any], model: str) -> go.Figure:
    """One model's dimension scores, one series per subject it assessed."""
    found = report["models"][model]["subjects"]
    return plots.mbti_dimensions({s: d["scores"] for s, d in found.items()})


def subject_models(report: dict[str, Any], models: list[str], subject: str, colors: Mapping[str, str]) -> go.Figure:
    """One subject's dimension scores, one series per model that assessed it (whiskers: SD over the testings)."""
    docs = {m: report["models"][m]["subjects"][subject] for m in models if subject in report["models"][m]["subjects"]}
    return plots.mbti_dimensions({m: d["scores"] for m, d in docs.items()}, {m: d.get("sd") or {} for m, d in docs.items()},
                                   colors)


def report_figures(report: dict[str, Any], models: list[str]) -> dict[str, go.Figure]:
    """The view's ``figures`` hook: each subject's dimension scores over ``models`` ('dimensions:<subject>'), then each
    model's scores over its subjects ('subjects:<model>')."""
    present = [m for m in models if m in report["models"]]
    colors = model_colors(list(report["models"]))
    names = dict.fromkeys(s for m in present for s in report["models"][m]["subjects"])
    found = {f"dimensions:{s}": subject_models(report, present, s, colors) for s in names}
    found |= {f"subjects:{m}": subjects(report, m) for m in present if report["models"][m]["subjects"]}
    return drawn(found)
