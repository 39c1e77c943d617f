"""The inventory method's generated doc tables (``analysis.doc_tables``), from its report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.doc_tables import fmt, table

DOMAINS = ("E", "A", "C", "N", "O")


def _imported_from(doc: Mapping[str, Any], source: str) -> bool:
    return any((c.get("signature") or {}).get("source") == source and c.get("used") for c in doc.get("configurations") or [])


def persona_llm_shaping_d(report: Mapping[str, Any]) -> str:
    """PersonaLLM's models: shaping d per domain with its 95 % CI (``domains.<D>.shaping_d``, ``_lo``, ``_hi``)."""
    rows = []
    for model, doc in sorted(report["models"].items(), key=lambda kv: kv[0], reverse=True):
        if not _imported_from(doc, "hjian42/PersonaLLM"):
            continue
        cells = [f"{fmt(d.get('shaping_d'))} [{fmt(d.get('shaping_d_lo'))}, {fmt(d.get('shaping_d_hi'))}]"
                 for d in (doc["domains"][k] for k in DOMAINS)]
        rows.append([model, *cells])
    return table(["model", *DOMAINS], rows)
