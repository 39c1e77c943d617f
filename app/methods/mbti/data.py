"""Cached reads of the MBTI report and answers that its pages draw (``app.data``'s conventions: each function takes
a ``StoreRef`` so it is recomputed exactly when the store changes; nothing here computes a metric)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from app.data import CACHE, _store, has_rows, report
from app.stores import StoreRef

def mbti_doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "mbti")


@st.cache_data(**CACHE)
def mbti_answers(ref: StoreRef, model: str | None = None) -> pd.DataFrame:
    """The answers the MBTI metrics use: each model's chosen configuration (``analysis.methods.mbti.report.selected_answers``)."""
    from analysis.methods.mbti.report import selected_answers

    return selected_answers(_store(ref), model, config=ref.chosen("mbti")).reset_index(drop=True)


@st.cache_data(**CACHE)
def mbti_distribution(ref: StoreRef, model: str, subject: str, order_mode: str) -> pd.DataFrame:
    from analysis.methods.mbti.metrics import answer_distribution

    answers = mbti_answers(ref, model)
    mine = answers[(answers["subject"] == subject) & (answers["order_mode"] == order_mode)]
    dist = answer_distribution(mine)
    text = mine.drop_duplicates("statement_id").set_index("statement_id")
    dist["statement"] = dist["statement_id"].map(text["statement"]) if len(text) else None
    dist["dimension"] = dist["statement_id"].map(text["dimension"]) if len(text) else None
    return dist


def mbti_models(ref: StoreRef) -> list[str]:
    return sorted(mbti_doc(ref)["models"]) if has_rows(ref, "mbti_answers") else []


def mbti_spread(ref: StoreRef, model: str) -> dict[str, dict[str, float]]:
    """Per subject, the SD of each dimension score over its testings, as the MBTI report holds it."""
    return {s: d.get("sd") or {} for s, d in mbti_doc(ref)["models"][model]["subjects"].items()}