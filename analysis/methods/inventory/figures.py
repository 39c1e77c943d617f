"""The inventory figures drawn from an inventory report alone (pure: report in, figures out): what its page draws and
``report_figures``, the method's ``figures`` hook for a paper."""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go

from analysis.figures.style import drawn
from analysis.methods.base import doc_frame
from analysis.methods.inventory import plots

#: The paper whose per-domain convergent r the report carries (``published_convergent``).
PUBLISHED_LABEL = "published (Serapio-García et al. 2025, IPIP-NEO-300 × BFI)"


def n_options(report: dict[str, Any], model: str, inventory: str | None = None) -> int:
    """How many numbers an item of the model's inventory (default: its main one) offers."""
    mdoc = report["models"][model]
    return len(mdoc["inventories"][inventory or mdoc["inventory"]]["position"]["shares"])


def profile_frame(report: dict[str, Any], model: str) -> pd.DataFrame | None:
    """Each persona's domain scores with the human norm band (the model's main inventory), or None."""
    return doc_frame(report["models"][model]["figures"]["profiles"])


def profiles(report: dict[str, Any], model: str, personas: list[str] | None = None) -> go.Figure | None:
    """Domain scores of ``personas`` (default: the first three) over the human norm band; None without profiles."""
    frame = profile_frame(report, model)
    if frame is None or frame.empty:
        return None
    people = list(dict.fromkeys(frame["persona_id"]))
    return plots.profiles(frame, personas or people[:3], n_options(report, model))


def shaping(report: dict[str, Any], model: str) -> go.Figure | None:
    """Target level against the shaped domain's score, one line per domain; None when no persona was shaped."""
    curve = doc_frame(report["models"][model]["figures"]["shaping"])
    if curve is None or curve.empty:
        return None
    return plots.shaping(curve, n_options(report, model))


def positions(report: dict[str, Any], model: str, inventory: str | None = None) -> go.Figure:
    """How often each number was given on one inventory (default: the model's main one), against no preference."""
    mdoc = report["models"][model]
    pos = mdoc["inventories"][inventory or mdoc["inventory"]]["position"]
    return plots.positions(pos["shares"], pos["chance_share"])


def mtmm(report: dict[str, Any], model: str) -> go.Figure | None:
    """The model's multitrait–multimethod heatmap across two inventories; None without one."""
    found = (report["models"][model].get("mtmm") or {}).get("matrix")
    return plots.mtmm(doc_frame(found)) if found else None


def unshaped_mtmm(report: dict[str, Any], models: list[str]) -> dict[str, dict[str, Any]]:
    """The MTMM of each of ``models`` computed on unshaped personas (the paper's Table 1 is: shaped ones are not set
    beside it)."""
    found = {m: report["models"][m].get("mtmm") or {} for m in models}
    return {m: mt for m, mt in found.items() if not mt.get("n_shaped")}


def published_convergent(report: dict[str, Any]) -> pd.DataFrame:
    """The paper's IPIP-NEO vs BFI convergent r per model and domain, long (model, model_id, domain, value, source), in
    the source's model order, as the report carries it."""
    return pd.DataFrame(report["published_convergent"], columns=["model", "model_id", "domain", "value", "source"])


def domains_beside_published(report: dict[str, Any], models: list[str]) -> go.Figure:
    """Per domain, the paper's convergent r of its models beside the unshaped MTMM's of ``models``."""
    mine = {m: mt.get("convergent_domains") or {} for m, mt in unshaped_mtmm(report, models).items()}
    return plots.domains_beside_published(published_convergent(report), {m: v for m, v in mine.items() if v},
                                           PUBLISHED_LABEL)


def report_figures(report: dict[str, Any], models: list[str]) -> dict[str, go.Figure]:
    """The view's ``figures`` hook: per model its profiles (the first three personas), shaping curve, position bias and
    MTMM ('<chart>:<model>'), then the per-domain convergent r beside the paper's ('published_domains')."""
    present = [m for m in models if m in report["models"]]
    found: dict[str, go.Figure | None] = {}
    for model in present:
        found |= {f"profiles:{model}": profiles(report, model), f"shaping:{model}": shaping(report, model),
                  f"positions:{model}": positions(report, model), f"mtmm:{model}": mtmm(report, model)}
    if any((mt.get("convergent_domains") for mt in unshaped_mtmm(report, present).values())):
        found["published_domains"] = domains_beside_published(report, present)
    return drawn(found)
