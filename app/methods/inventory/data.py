"""Cached reads of the inventory report and answers its page draws (``app.data``'s conventions; nothing here computes
a metric)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from app.data import CACHE, _store, has_rows, report
from app.stores import StoreRef


def doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "inventory")


def models(ref: StoreRef) -> list[str]:
    return sorted(doc(ref)["models"]) if has_rows(ref, "inventory_answers") else []


@st.cache_data(**CACHE)
def answers(ref: StoreRef, model: str) -> pd.DataFrame:
    """The answers the report used (``analysis.methods.inventory.report.selected_answers``)."""
    from analysis.methods.inventory.report import selected_answers

    return selected_answers(_store(ref), model, config=ref.chosen("inventory")).reset_index(drop=True)


PUBLISHED_LABEL = "published (Serapio-García et al. 2025, IPIP-NEO-300 × BFI)"


def published_convergent() -> pd.DataFrame:
    """The paper's IPIP-NEO vs BFI convergent r per model and domain, long (model, model_id, domain, value, source;
    ``analysis.methods.inventory.published.convergent_rows``), in the source's model order."""
    from analysis.methods.inventory.published import convergent_rows

    return pd.DataFrame(convergent_rows(), columns=["model", "model_id", "domain", "value", "source"])


def published_convergent_table() -> pd.DataFrame:
    """The same figures wide: one row per model (the source's order, not ranked), a column per domain and "Avg"."""
    long = published_convergent()
    wide = long.pivot(index=["model", "model_id"], columns="domain", values="value")
    order = list(dict.fromkeys(zip(long["model"], long["model_id"])))
    return wide.reindex(order)[list(dict.fromkeys(long["domain"]))].reset_index().rename(columns={"model_id": "model id"})
