"""The cross-method figures drawn from a cross-method report alone (pure: report in, figures out; its chance bands are
the report's own ``cells_chance`` and ``pairs_chance``): the pieces its page draws with, and ``report_figures``,
the method's ``figures`` hook for a paper."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from analysis import methods
from analysis.figures.style import drawn
from analysis.methods.base import doc_frame
from analysis.methods.cross_method import plots

#: The two kinds of theory pairs, each with its chart's title.
PAIR_KINDS = (("convergent", "Convergent pairs (expected > 0)"), ("discriminant", "Discriminant pairs (expected ≈ 0)"))
PUBLISHED_LABEL = "published (Serapio-García et al. 2025, LLMs: IPIP-NEO-300 × PVQ-RR)"


def labels(mdoc: dict[str, Any]) -> dict[str, str]:
    """Each construct of a model's document -> 'Method: construct'."""
    return {c: f"{methods.get(d['method']).label}: {d['label']}" for c, d in mdoc["constructs"].items()}


def matrix(mdoc: dict[str, Any], cells: dict[str, Any]) -> pd.DataFrame:
    """The report's matrix with each cross-method cell's chance band (from the chance document) filled in."""
    frame = doc_frame(mdoc["matrix"])
    if frame is None or frame.empty:
        return pd.DataFrame(columns=["a", "b", "within", "r", "lo", "hi", "n", "reason", "chance_lo", "chance_hi", "p",
                                     "p_family", "family_hi", "verdict", "pair"])
    for col in ("p_family", "family_hi"):  # documents written before the family-wise band
        if col not in frame:
            frame[col] = None
    for col, key in (("chance_lo", "lo"), ("chance_hi", "hi"), ("p", "p"), ("p_family", "p_family"),
                     ("family_hi", "family_hi"), ("verdict", "verdict")):
        frame[col] = [(cells.get(f"{a}|{b}") or {}).get(key, v) for a, b, v in zip(frame["a"], frame["b"], frame[col])]
    return frame


def order(frame: pd.DataFrame, names: dict[str, str]) -> list[str]:
    """The constructs of the matrix ``frame``, in the document's order."""
    present = set(frame["a"]) | set(frame["b"])
    return [c for c in names if c in present]


def pairs_with_chance(mdoc: dict[str, Any], bands: dict[str, Any]) -> list[dict[str, Any]]:
    """The theory pairs, each with its chance band from ``bands`` ("a|b" -> band) under "chance"."""
    return [p | {"chance": bands.get(f"{p['a']}|{p['b']}")} for p in mdoc["pairs"]]


def heatmap(mdoc: dict[str, Any]) -> go.Figure:
    """A model's MTMM matrix with the report's chance bands."""
    names = labels(mdoc)
    frame = matrix(mdoc, mdoc.get("cells_chance") or {})
    return plots.heatmap(frame, order(frame, names), names)


def published_pairs(report: dict[str, Any], models: list[str], model: str | None = None) -> go.Figure | None:
    """The pairs of ``model`` (default: the first of ``models``) with published LLM figures, their r beside each of
    ``models``' (None when no pair has any)."""
    shown = model or (models[0] if models else None)
    published = [p for p in report["models"][shown]["pairs"] if p.get("published")] if shown else []
    if not published:
        return None
    mine = {m: {p["label"]: p["r"] for p in report["models"][m]["pairs"]} for m in models}
    return plots.published_pairs_chart(published, mine, PUBLISHED_LABEL)


def report_figures(report: dict[str, Any], models: list[str]) -> dict[str, go.Figure]:
    """The view's ``figures`` hook: per model its MTMM matrix ('matrix:<model>') and its convergent and discriminant
    pairs ('convergent:<model>', 'discriminant:<model>'), then the pairs beside the published LLM figures
    ('published_pairs')."""
    present = [m for m in models if m in report["models"]]
    found: dict[str, go.Figure | None] = {}
    for model in present:
        mdoc = report["models"][model]
        found[f"matrix:{model}"] = heatmap(mdoc)
        pairs = pairs_with_chance(mdoc, mdoc.get("pairs_chance") or {})
        for kind, title in PAIR_KINDS:
            chosen = [p for p in pairs if p["kind"] == kind]
            if chosen:
                found[f"{kind}:{model}"] = plots.pairs_chart(chosen, title)
    found["published_pairs"] = published_pairs(report, present)
    return drawn(found)
