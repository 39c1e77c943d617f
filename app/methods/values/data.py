"""Cached reads of the Stick to Your Role! report and answers that its pages draw (``app.data``'s conventions: each function takes
a ``StoreRef`` so it is recomputed exactly when the store changes; nothing here computes a metric)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from app.data import CACHE, CHANCE_SIMS, N_BOOT, _store, has_rows, report
from app.stores import StoreRef

def values_doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "values")


def values_board(ref: StoreRef) -> dict[str, Any]:
    """Leaderboard document (Cardinal, Ordinal, group means, diversity, sensitivity): the values report's."""
    return values_doc(ref)["leaderboard"]


@st.cache_data(**CACHE)
def values_answers(ref: StoreRef, model: str | None = None) -> pd.DataFrame:
    from analysis.methods.values.metrics import latest_answers

    return latest_answers(_store(ref), model, config=ref.chosen("values"))


def values_models(ref: StoreRef) -> list[str]:
    """The models with values answers (no answers are read from a store without any)."""
    if not has_rows(ref, "values_answers"):
        return []
    answers = values_answers(ref)
    return sorted(answers["model"].unique()) if len(answers) else []


@st.cache_data(**CACHE)
def context_keys(ref: StoreRef, model: str) -> dict[str, tuple[str, str]]:
    """Display key (as in the metrics document) -> (context, instrument) for one model's answers."""
    from analysis.methods.values.metrics import _context_keys

    answers = values_answers(ref, model)
    return {key: pair for pair, key in _context_keys(answers).items()} if len(answers) else {}


@st.cache_data(**CACHE)
def values_scores(ref: StoreRef, model: str) -> pd.DataFrame:
    """One model's value scores (long table) with contexts named by their display keys."""
    from analysis.methods.values.compare import context_scores

    return context_scores(values_answers(ref, model))


@st.cache_data(**CACHE)
def structure(ref: StoreRef, model: str, key: str) -> dict[str, Any]:
    """Circumplex layout and centroids, Stress, CFA fits and loadings, separability of one model x context, as the
    values report holds them (nothing is refitted); only the random-start Stress is computed here."""
    from analysis.methods.base import doc_frame

    context, instrument = context_keys(ref, model)[key]
    doc = values_doc(ref)["models"][model]["contexts"][key]
    figures = doc["figures"]
    cfa = pd.DataFrame([{"group": g, **fit} for g, fit in (doc.get("cfa") or {}).items()],
                       columns=["group", "n", "chi2", "df", "cfi", "tli", "rmsea", "srmr", "converged", "reason"])
    cfa = cfa.astype({k: float for k in ("chi2", "cfi", "tli", "rmsea", "srmr")})  # a failed fit's null: NaN, drawn "—"
    return {
        "context": context,
        "instrument": instrument,
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
        "random_start_stress": random_start_stress(ref, model, key) if figures["layout"] else None,
        "reliability": doc.get("reliability") or {},
    }


@st.cache_data(**CACHE)
def random_start_stress(ref: StoreRef, model: str, key: str) -> float:
    """Lowest Stress of MDS from random starts on one model x context (``analysis.methods.values.chance``)."""
    from analysis.methods.values import chance as values_chance
    from analysis.methods.values.scores import item_matrix

    context, instrument = context_keys(ref, model)[key]
    answers = values_answers(ref, model)
    sub = answers[(answers["context"] == context) & (answers["instrument"] == instrument)]
    keyed = {k: v for k, v in zip(sub["item_id"].astype(str), sub["value"]) if isinstance(v, str) and v}
    return values_chance.random_start_stress(item_matrix(sub, context=context, instrument=instrument), keyed)


@st.cache_data(**CACHE)
def item_texts(instrument: str) -> dict[str, str]:
    """item_id -> wording for an instrument the app can load (the bundled pvq-rs); empty otherwise."""
    from analysis.methods.values.instruments import load_instrument

    names = {"pvq-rs": "pvq", "pvq": "pvq"}
    if instrument not in names:
        return {}
    try:
        inst = load_instrument(names[instrument])
    except Exception:  # noqa: BLE001 - a missing instrument only means no hover text
        return {}
    return {i.id: i.wording("male") for i in inst.items}


@st.cache_data(**CACHE)
def stability(ref: StoreRef, model: str) -> dict[str, Any]:
    """Context x context rank-order matrix, per-value stability with CIs, ipsative per persona: as the values report
    holds them (``stability_figures``; nothing is recomputed here)."""
    from analysis.methods.base import doc_frame

    doc = values_doc(ref)["models"][model]
    contexts = list(doc.get("contexts") or {})
    figures = doc.get("stability_figures")
    if len(contexts) < 2 or not figures:
        return {"contexts": contexts, "matrix": None, "by_value": None, "ipsative": None}
    return {"contexts": contexts, "matrix": doc_frame(figures["matrix"]).set_index("context").rename_axis(None),
            "by_value": doc_frame(figures["by_value"]), "ipsative": doc_frame(figures["ipsative"])}


@st.cache_data(**CACHE)
def personas_of(ref: StoreRef, model: str) -> pd.DataFrame:
    answers = values_answers(ref, model)
    if answers.empty:
        return pd.DataFrame(columns=["persona_id", "persona", "gender"])
    cols = [c for c in ("persona_id", "persona", "gender") if c in answers]
    return answers[cols].drop_duplicates("persona_id").sort_values("persona_id").reset_index(drop=True)


@st.cache_data(**CACHE)
def values_fit_chance(ref: StoreRef, model: str, key: str) -> dict[str, Any]:
    """Null bands of separability and the CFA fit of one model × context (``analysis.methods.values.fit_chance``: kept
    in the store beside the report; simulated on a first visit, ~0.5 s per draw)."""
    from analysis.methods.values.fit_chance import cached_fit_chance

    return cached_fit_chance(_store(ref), model, key, CHANCE_SIMS, config=ref.chosen("values"), n_boot=N_BOOT)


@st.cache_data(**CACHE)
def values_columns(ref: StoreRef) -> pd.DataFrame:
    """Models x leaderboard columns (RO:a|b, 1-Stress:ctx, CFI:ctx, 1-SRMR:ctx, 1-RMSEA:ctx): the report's."""
    from analysis.methods.base import doc_frame

    table = values_board(ref).get("column_table")
    if not table or not table["data"]:
        return pd.DataFrame()
    return doc_frame(table).set_index("model").rename_axis(None).astype(float)


@st.cache_data(**CACHE)
def value_means(ref: StoreRef, model: str) -> pd.DataFrame:
    from analysis.methods.values.compare import value_means

    return value_means(values_scores(ref, model))


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
    rows["invalid_share"] = [doc[m]["invalid"] / max(1, doc[m]["n_answers"]) for m in rows["model"]]
    rows["personas"] = [doc[m]["n_personas"] for m in rows["model"]]
    numeric = [c for c in rows.columns if c not in ("model", "n_columns", "personas")]
    return rows.astype({c: float for c in numeric})
