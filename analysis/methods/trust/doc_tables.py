"""The trust method's generated doc tables (``analysis.doc_tables``), from its report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.doc_tables import fmt, table

CLASSES = ("both_equal", "both_different", "only_source", "only_reader", "both_invalid")


def _mean_sd(summary: Mapping[str, Any]) -> str:
    return f"{fmt((summary.get('mean') or {}).get('value'))} ({fmt((summary.get('sd') or {}).get('value'))})"


def agent_trust_readers(report: Mapping[str, Any]) -> str:
    """agent-trust's base condition per model: the authors' amounts and RoleScope's reading (valid of n, mean (SD)) and
    the reader-agreement classes (``imported`` entries of the report)."""
    rows = []
    for model in sorted(report["models"]):
        for entry in (report["models"][model].get("imported") or {}).values():
            if entry.get("condition") != "base" or entry.get("source") != "camel-ai/agent-trust":
                continue
            src, mine, agree = entry["amount_sent"], entry["amount_sent_reader"], entry["reader_agreement"]
            rows.append([model, f"{src['valid']}/{src['n']}", _mean_sd(src), f"{mine['valid']}/{mine['n']}",
                         _mean_sd(mine), *(str(agree[c]["n"]) for c in CLASSES)])
    return table(["model", "source valid", "source mean (SD)", "reader valid", "reader mean (SD)", "equal", "different",
                  "only source", "only reader", "both invalid"], rows)
