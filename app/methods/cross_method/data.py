"""Cached reads of the cross-method report its page draws (``app.data``'s conventions; nothing here computes a
metric)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis.methods.base import doc_frame
from app.data import chance, has_rows, report
from app.stores import StoreRef


def doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "cross_method")


def models(ref: StoreRef) -> list[str]:
    return sorted(doc(ref)["models"]) if has_rows(ref, "cross_method_parts") else []


def bands(ref: StoreRef, model: str) -> dict[str, Any]:
    """The model's null bands: ``convergent``, ``pattern`` ({"permutation": summary}) and ``cells`` ("a|b" -> band)."""
    return chance(ref, "cross_method").get(model) or {}


def matrix(mdoc: dict[str, Any], cells: dict[str, Any]) -> pd.DataFrame:
    """The report's matrix with each cross-method cell's chance band (from the chance document) filled in."""
    frame = doc_frame(mdoc["matrix"])
    if frame is None or frame.empty:
        return pd.DataFrame(columns=["a", "b", "within", "r", "lo", "hi", "n", "reason", "chance_lo", "chance_hi", "p",
                                     "verdict", "pair"])
    for col, key in (("chance_lo", "lo"), ("chance_hi", "hi"), ("p", "p"), ("verdict", "verdict")):
        frame[col] = [(cells.get(f"{a}|{b}") or {}).get(key, v) for a, b, v in zip(frame["a"], frame["b"], frame[col])]
    return frame


def scores(mdoc: dict[str, Any]) -> pd.DataFrame:
    """The persona join: persona_id, name, key and one column per construct (``method:construct``)."""
    return doc_frame(mdoc["scores"])


PUBLISHED_LABEL = "published (Serapio-García et al. 2025, LLMs: IPIP-NEO-300 × PVQ-RR)"


def published_table(mdoc: dict[str, Any]) -> pd.DataFrame:
    """The report's published LLM figures (each pair's ``published`` list) wide: one row per published model in the
    source's order (not ranked), one column per pair that has them; empty when no pair has any."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for p in mdoc["pairs"]:
        for f in p.get("published") or []:
            rows.setdefault((f["model"], f["model_id"]), {"model": f["model"], "model id": f["model_id"]})[p["label"]] = f["r"]
    return pd.DataFrame(list(rows.values()))
