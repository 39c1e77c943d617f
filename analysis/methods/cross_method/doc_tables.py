"""The cross-method analysis's generated doc tables (``analysis.doc_tables``), from its report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.doc_tables import fmt, table


def _interval(entry: Mapping[str, Any]) -> str:
    if entry.get("value") is None:
        return "— (" + str(entry.get("reason") or "undefined") + ")"
    return f"{fmt(entry['value'])} [{fmt(entry.get('lo'))}, {fmt(entry.get('hi'))}]"


def _band(entry: Mapping[str, Any]) -> str:
    band = entry.get("chance") or {}
    if band.get("lo") is None:
        return "—"
    return f"[{fmt(band['lo'])}, {fmt(band['hi'])}], p = {fmt(band.get('p'))}" + (
        f" ({band['verdict']})" if band.get("verdict") else "")


def demo_summary(report: Mapping[str, Any]) -> str:
    """Per model: personas joined, convergent pairs with an r (of all), the mean convergent r [95 % CI] and its band
    under shuffled personas, and the pattern r (``convergent``, ``pattern``, ``pairs`` of the report)."""
    rows = []
    for model, doc in sorted(report["models"].items()):
        pairs = [p for p in doc.get("pairs") or [] if p.get("kind") == "convergent"]
        defined = sum(1 for p in pairs if p.get("r") is not None)
        conv, pattern = doc.get("convergent") or {}, doc.get("pattern") or {}
        rows.append([model, str(doc.get("n_personas")), f"{defined} of {len(pairs)}", _interval(conv), _band(conv),
                     _interval(pattern)])
    return table(["model", "personas", "convergent pairs with an r", "mean convergent r [95 % CI]",
                  "shuffled personas' band", "pattern r [95 % CI]"], rows)
