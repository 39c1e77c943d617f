"""The inventory method's generated doc tables (``analysis.doc_tables``), from its report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.doc_tables import fmt, table

DOMAINS = ("E", "A", "C", "N", "O")


def _imported_from(doc: Mapping[str, Any], source: str) -> bool:
    return any((c.get("signature") or {}).get("source") == source and c.get("used") for c in doc.get("configurations") or [])


def persona_llm_shaping_d(report: Mapping[str, Any]) -> str:
    """PersonaLLM's models: shaping d per domain with its 95 % CI, on the 32 type means (``domains.<D>.shaping_d``,
    ``_lo``, ``_hi``: the headline) and over the 320 sheets (``shaping_d_sheets``: the published figure), both CIs
    resampling types; and α within type (median) beside the pooled, between-type α."""
    rows = []
    for model, doc in sorted(report["models"].items(), key=lambda kv: kv[0], reverse=True):
        if not _imported_from(doc, "hjian42/PersonaLLM"):
            continue
        domains = [doc["domains"][k] for k in DOMAINS]
        for label, key in (("d on type means", "shaping_d"), ("d over sheets", "shaping_d_sheets")):
            rows.append([model, label, *(f"{fmt(d.get(key))} [{fmt(d.get(key + '_lo'))}, {fmt(d.get(key + '_hi'))}]"
                                        for d in domains)])
        rows.append([model, "α within type (median)", *(fmt(d.get("alpha")) for d in domains)])
        rows.append([model, "α between types", *(fmt(d.get("alpha_between")) for d in domains)])
    return table(["model", "figure", *DOMAINS], rows)
