"""Reads of the MBTI report that its pages draw, and of the answers its samples panels list (``app.data``'s
conventions: each function takes a ``StoreRef`` so it is read again exactly when the store changes; nothing here
computes a number)."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import streamlit as st

from analysis.methods.base import doc_frame
from app.data import CACHE, answers, has_rows, report
from app.stores import StoreRef

def mbti_doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "mbti")


def mbti_answers(ref: StoreRef, model: str | None = None) -> pd.DataFrame:
    """The answers the MBTI report reads (``Method.answers``), for the samples panels: read, never scored here."""
    return answers(ref, "mbti", model)


def mbti_orders(ref: StoreRef, model: str, subject: str) -> list[str]:
    """The option orders (permuted, fixed) the model was tested with on ``subject``, as the report lists them."""
    found = {d["order_mode"] for d in mbti_doc(ref)["models"][model].get("distributions") or [] if d["subject"] == subject}
    return [o for o in ("permuted", "fixed") if o in found]


@st.cache_data(**CACHE)
def mbti_distribution(ref: StoreRef, model: str, subject: str, order_mode: str) -> pd.DataFrame:
    """Option counts per statement over the testings of one subject × option order (statement_id, dimension,
    statement, the options, invalid, mode ...), as the report holds them, statements in natural order (2 before 10)."""
    for d in mbti_doc(ref)["models"][model].get("distributions") or []:
        if d["subject"] == subject and d["order_mode"] == order_mode:
            frame = doc_frame(d["statements"])
            return frame.sort_values("statement_id", key=lambda ids: ids.map(natural_key), kind="stable",
                                     ignore_index=True)
    return pd.DataFrame(columns=["statement_id", "dimension", "statement"])


def natural_key(text: Any) -> tuple[tuple[int, Any], ...]:
    """A sort key reading the digit runs of an id as numbers: '2' < '10', 'E2' < 'E10', 'a' after every number."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.findall(r"\d+|\D+", str(text)))


def mbti_models(ref: StoreRef) -> list[str]:
    return sorted(mbti_doc(ref)["models"]) if has_rows(ref, "mbti_answers") else []


def mbti_spread(ref: StoreRef, model: str) -> dict[str, dict[str, float]]:
    """Per subject, the SD of each dimension score over its testings, as the MBTI report holds it."""
    return {s: d.get("sd") or {} for s, d in mbti_doc(ref)["models"][model]["subjects"].items()}