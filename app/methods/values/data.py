"""Reads of the Stick to Your Role! report that its pages draw, and of the answers its samples panels list
(``app.data``'s conventions: each function takes a ``StoreRef`` so it is read again exactly when the store changes;
nothing here computes a number)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from analysis.methods.base import doc_frame
from analysis.methods.values import reads
from app.data import CACHE, answers, has_rows, part_chance, report
from app.stores import StoreRef


def values_doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "values")


def values_board(ref: StoreRef) -> dict[str, Any]:
    """Leaderboard document (Cardinal, Ordinal, group means, diversity, sensitivity): the values report's."""
    return values_doc(ref)["leaderboard"]


def values_answers(ref: StoreRef, model: str | None = None) -> pd.DataFrame:
    """The answers the values report reads (``Method.answers``), for the samples panels: read, never scored here."""
    return answers(ref, "values", model)


def values_models(ref: StoreRef) -> list[str]:
    """The models with values answers (no report is read from a store without any)."""
    return sorted(values_doc(ref)["models"]) if has_rows(ref, "values_answers") else []


def context_keys(ref: StoreRef, model: str) -> dict[str, tuple[str, str]]:
    """Display key (as in the report) -> (context, instrument) of one model's contexts, as the report names them."""
    return {key: (c["context"], c["instrument"]) for key, c in (values_doc(ref)["models"][model].get("contexts") or {}).items()}


def _profiles(ref: StoreRef, model: str) -> dict[str, Any]:
    return values_doc(ref)["models"][model]["profile_figures"]


@st.cache_data(**CACHE)
def values_scores(ref: StoreRef, model: str) -> pd.DataFrame:
    """One model's value scores per persona (long: context, persona_id, value, score, ipsatised), as the report holds
    them (contexts named by their display keys)."""
    return doc_frame(_profiles(ref, model)["profiles"])


@st.cache_data(**CACHE)
def structure(ref: StoreRef, model: str, key: str) -> dict[str, Any]:
    """Circumplex layout and centroids, Stress, CFA fits and loadings, separability of one model × context, as the
    values report holds them (``reads.structure``; nothing is refitted)."""
    return reads.structure(values_doc(ref), model, key)


def item_texts(ref: StoreRef, instrument: str) -> dict[str, str]:
    """item_id -> wording of an instrument the report's store was asked with, where RoleScope bundles it; else empty."""
    return reads.item_texts(values_doc(ref), instrument)


@st.cache_data(**CACHE)
def stability(ref: StoreRef, model: str) -> dict[str, Any]:
    """Context x context rank-order matrix, per-value stability with CIs, ipsative per persona: as the values report
    holds them (``reads.stability``; nothing is recomputed here)."""
    return reads.stability(values_doc(ref), model)


@st.cache_data(**CACHE)
def personas_of(ref: StoreRef, model: str) -> pd.DataFrame:
    """persona_id, persona, gender of one model's personas, as the report lists them."""
    return reads.personas_of(values_doc(ref), model)


def values_fit_chance(ref: StoreRef, model: str, key: str) -> dict[str, Any]:
    """Null bands of separability and the CFA fit of one model × context (``Method.part_chance``: kept beside the
    report; simulated on a first visit, ~0.5 s per draw)."""
    return part_chance(ref, "values", model, key)


@st.cache_data(**CACHE)
def values_columns(ref: StoreRef) -> pd.DataFrame:
    """Models x leaderboard columns (RO:a|b, 1-Stress:ctx, CFI:ctx, 1-SRMR:ctx, 1-RMSEA:ctx): the report's."""
    table = values_board(ref).get("column_table")
    if not table or not table["data"]:
        return pd.DataFrame()
    return doc_frame(table).set_index("model").rename_axis(None).astype(float)


@st.cache_data(**CACHE)
def value_means(ref: StoreRef, model: str) -> pd.DataFrame:
    """Mean ipsatised score per context × value over the model's personas (mean, sd, n), as the report holds it."""
    return doc_frame(_profiles(ref, model)["means"])


@st.cache_data(**CACHE)
def leaderboard_rows(ref: StoreRef) -> pd.DataFrame:
    """Leaderboard rows of every model joined with its stability CIs, invalid share and persona count."""
    return reads.leaderboard_rows(values_doc(ref))
