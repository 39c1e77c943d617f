"""Cached reads of the inventory report and answers its page draws (``app.data``'s conventions; nothing here computes
a metric)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis.methods.inventory import figures
from app import data
from app.data import has_rows, report
from app.stores import StoreRef


def doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "inventory")


def models(ref: StoreRef) -> list[str]:
    return sorted(doc(ref)["models"]) if has_rows(ref, "inventory_answers") else []


def answers(ref: StoreRef, model: str) -> pd.DataFrame:
    """The answers the inventory report reads (``Method.answers``), for the samples panels: read, never scored here."""
    return data.answers(ref, "inventory", model)


PUBLISHED_LABEL = figures.PUBLISHED_LABEL


def published_convergent(ref: StoreRef) -> pd.DataFrame:
    """The paper's IPIP-NEO vs BFI convergent r per model and domain, long (model, model_id, domain, value, source), in
    the source's model order, as the report carries it."""
    return figures.published_convergent(doc(ref))


def published_convergent_table(ref: StoreRef) -> pd.DataFrame:
    """The same figures wide: one row per model (the source's order, not ranked), a column per domain and "Avg"."""
    long = published_convergent(ref)
    wide = long.pivot(index=["model", "model_id"], columns="domain", values="value")
    order = list(dict.fromkeys(zip(long["model"], long["model_id"])))
    return wide.reindex(order)[list(dict.fromkeys(long["domain"]))].reset_index().rename(columns={"model_id": "model id"})
