"""Cached reads of the cross-method report its page draws (``app.data``'s conventions; nothing here computes a
metric)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis.methods.base import doc_frame
from analysis.methods.cross_method import figures
from app.data import chance, has_rows, report
from app.stores import StoreRef


def doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "cross_method")


def models(ref: StoreRef) -> list[str]:
    return sorted(doc(ref)["models"]) if has_rows(ref, "cross_method_parts") else []


def bands(ref: StoreRef, model: str) -> dict[str, Any]:
    """The model's null bands: ``convergent``, ``pattern`` ({"permutation": summary}), ``cells`` ("a|b" -> band, its
    verdict family-wise), ``pairs`` ("a|b" -> band with its Holm-adjusted p) and ``families`` (their sizes)."""
    return chance(ref, "cross_method").get(model) or {}


def scores(mdoc: dict[str, Any]) -> pd.DataFrame:
    """The persona join: persona_id, name, key and one column per construct (``method:construct``)."""
    return doc_frame(mdoc["scores"])


PUBLISHED_LABEL = figures.PUBLISHED_LABEL
matrix = figures.matrix  # the report's matrix with the chance bands filled in


def published_table(mdoc: dict[str, Any]) -> pd.DataFrame:
    """The report's published LLM figures (each pair's ``published`` list) wide: one row per published model in the
    source's order (not ranked), one column per pair that has them; empty when no pair has any."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for p in mdoc["pairs"]:
        for f in p.get("published") or []:
            rows.setdefault((f["model"], f["model_id"]), {"model": f["model"], "model id": f["model_id"]})[p["label"]] = f["r"]
    return pd.DataFrame(list(rows.values()))


def family_caption(fam: dict[str, Any]) -> str:
    """The family-wise threshold of the heatmap's cells across methods, or why there is none (never "—" as a
    threshold)."""
    if fam.get("band") is not None and fam.get("n_sims"):
        return (f"Family-wise: {fam['size']} cells across methods, |r| must exceed {fam['band']:.2f} "
                f"({fam['n_sims']} shuffles).")
    why = ("no cell has an r across methods to shuffle" if not fam.get("size") else
           "no shuffle gave a defined r (too few personas scored by both methods)")
    return f"Family-wise: {fam.get('size', 0)} cells across methods, no threshold: {why}."


def pair_vs_chance(band: dict[str, Any] | None) -> str:
    """A pair's table cell: its own p, its Holm-adjusted p over the family of theory pairs and the verdict read from the
    adjusted p ('p = 0.005, Holm 0.070 of 15 · chance-like'); '—' without a band."""
    if not band or band.get("p") is None:
        return "—"
    if band.get("p_holm") is None:
        return f"p = {band['p']:.3f} · {band.get('verdict')}"
    return f"p = {band['p']:.3f}, Holm {band['p_holm']:.3f} of {band['family_size']} · {band.get('verdict')}"
