"""Pure reads of the Stick to Your Role! report (document in, frames out): what the app's cached reads
(``app/methods/values/data.py``) return for a store and what the figures (``figures.py``) draw from a report alone. Nothing here computes a
number."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis.methods.base import doc_frame
from analysis.methods.values.report_types import fit_index_text


def leaderboard_rows(report: dict[str, Any]) -> pd.DataFrame:
    """Leaderboard rows of every model joined with its stability CIs, invalid share and persona count."""
    doc, board = report["models"], report["leaderboard"]
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


def structure(report: dict[str, Any], model: str, key: str) -> dict[str, Any]:
    """Circumplex layout and centroids, Stress and random-start Stress, CFA fits and loadings, separability of one
    model × context (its display key), as the values report holds them (nothing is refitted)."""
    doc = report["models"][model]["contexts"][key]
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


def cfa_shown(cfa: pd.DataFrame) -> pd.DataFrame:
    """``structure``'s CFA table as the page shows it: CFI and TLI as text (``report_types.fit_index_text``: "—"
    undefined, "≥ 1 (over-fitted)" above 1, never e.g. 1.500); the raw numbers stay in the report."""
    return cfa.assign(**{k: [fit_index_text(v) for v in cfa[k]] for k in ("cfi", "tli")})


def item_texts(report: dict[str, Any], instrument: str) -> dict[str, str]:
    """item_id -> wording of an instrument the report's store was asked with, where RoleScope bundles it; else empty."""
    return (report.get("item_texts") or {}).get(instrument) or {}


def stability(report: dict[str, Any], model: str) -> dict[str, Any]:
    """Context x context rank-order matrix, per-value stability with CIs, ipsative per persona: as the values report
    holds them (``stability_figures``; None without two contexts)."""
    doc = report["models"][model]
    contexts = list(doc.get("contexts") or {})
    figures = doc.get("stability_figures")
    if len(contexts) < 2 or not figures:
        return {"contexts": contexts, "matrix": None, "by_value": None, "ipsative": None}
    return {"contexts": contexts, "matrix": doc_frame(figures["matrix"]).set_index("context").rename_axis(None),
            "by_value": doc_frame(figures["by_value"]), "ipsative": doc_frame(figures["ipsative"])}


def personas_of(report: dict[str, Any], model: str) -> pd.DataFrame:
    """persona_id, persona, gender of one model's personas, as the report lists them."""
    return doc_frame(report["models"][model]["profile_figures"]["personas"])


def persona_names(people: pd.DataFrame) -> dict[int, str]:
    """persona_id -> its name ('persona <id>' where the report has none)."""
    names = dict(zip(people["persona_id"], people["persona"])) if "persona" in people else {}
    return {int(p): (names.get(p) if isinstance(names.get(p), str) and names.get(p) else f"persona {p}")
            for p in people["persona_id"]}
