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
