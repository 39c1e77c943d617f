"""Reads of the Stick to Your Role! report that its pages draw, and of the answers its samples panels list
(``app.data``'s conventions: each function takes a ``StoreRef`` so it is read again exactly when the store changes;
nothing here computes a number)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from analysis.methods.base import doc_frame
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
    """Circumplex layout and centroids, Stress and random-start Stress, CFA fits and loadings, separability of one
    model × context, as the values report holds them (nothing is refitted)."""
    doc = values_doc(ref)["models"][model]["contexts"][key]
    figures = doc["figures"]
    cfa = pd.DataFrame([{"group": g, **fit} for g, fit in (doc.get("cfa") or {}).items()],
                       columns=["group", "n", "chi2", "df", "cfi", "tli", "rmsea", "srmr", "converged", "reason"])
    cfa = cfa.astype({k: float for k in ("chi2", "cfi", "tli", "rmsea", "srmr")})  # a failed fit's null: NaN, drawn "—"
    return {
        "context": doc["context"],
        "instrument": doc["instrument"],
        "error": doc["error"],
        "stress": doc["stress"],
        "layout": doc_frame(figures["layout"]),
        "centroids": doc_frame(figures["centroids"]),
        "rank_distance": doc["order_distance"],
        "observed_order": figures["observed_order"],
        "cfa": cfa,
        "fit": {k: doc.get(k) for k in ("cfi", "tli", "rmsea", "srmr")} | {"reason": doc.get("cfa_reason")},
        "loadings": doc_frame(figures["loadings"]),
        "separability": figures["separability"],
        "movement": doc_frame(figures["movement"]),
        "random_start_stress": figures.get("random_start_stress"),
        "reliability": doc.get("reliability") or {},
    }


def item_texts(ref: StoreRef, instrument: str) -> dict[str, str]:
    """item_id -> wording of an instrument the report's store was asked with, where RoleScope bundles it; else empty."""
    return (values_doc(ref).get("item_texts") or {}).get(instrument) or {}


@st.cache_data(**CACHE)
def stability(ref: StoreRef, model: str) -> dict[str, Any]:
    """Context x context rank-order matrix, per-value stability with CIs, ipsative per persona: as the values report
    holds them (``stability_figures``; nothing is recomputed here)."""
    doc = values_doc(ref)["models"][model]
    contexts = list(doc.get("contexts") or {})
    figures = doc.get("stability_figures")
    if len(contexts) < 2 or not figures:
        return {"contexts": contexts, "matrix": None, "by_value": None, "ipsative": None}
    return {"contexts": contexts, "matrix": doc_frame(figures["matrix"]).set_index("context").rename_axis(None),
            "by_value": doc_frame(figures["by_value"]), "ipsative": doc_frame(figures["ipsative"])}


@st.cache_data(**CACHE)
def personas_of(ref: StoreRef, model: str) -> pd.DataFrame:
    """persona_id, persona, gender of one model's personas, as the report lists them."""
    return doc_frame(_profiles(ref, model)["personas"])


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
    doc, board = values_doc(ref)["models"], values_board(ref)
    rows = pd.DataFrame(board["rows"])
    if rows.empty:
        return rows
    for key in ("rank_order", "ipsative"):
        ci = {m: (doc[m].get("ci") or {}).get(key) or {} for m in rows["model"]}
        rows[key] = [doc[m].get(key) for m in rows["model"]]
        rows[f"{key}_lo"] = [ci[m].get("lo") for m in rows["model"]]
        rows[f"{key}_hi"] = [ci[m].get("hi") for m in rows["model"]]
    rows["invalid_share"] = [next((c["rate"] for c in doc[m]["counts"] if c["kind"] == "invalid answers"), None)
                             for m in rows["model"]]  # the report's share (undefined without answers, never 0)
    rows["personas"] = [doc[m]["n_personas"] for m in rows["model"]]
    numeric = [c for c in rows.columns if c not in ("model", "n_columns", "personas")]
    return rows.astype({c: float for c in numeric})
