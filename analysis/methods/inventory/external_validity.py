"""The inventory's published external validity beside a cross-method pair: the one values ↔ Big Five figure published
for LLMs, the r of IPIP-NEO-300 Conscientiousness with PVQ-RR Achievement, Conformity and Security per model
(Serapio-García et al. 2025, Nature Machine Intelligence, external validity; github google-deepmind/personality_in_llms
@ c3fea44, ``figures_data/external_validity_CON.csv``), read from the bundled file (``published.domains``).

These are LLM figures (r across each model's 1,250 simulated response profiles on unshaped persona descriptions), not
human ones. The cross-method report shows them beside its own r, never pooled, ranked or used in the pattern.
"""

from __future__ import annotations

from typing import Any

from analysis.methods.inventory.published import domains, external_rows

#: (this inventory's domain score, the other score "method:score") -> (the paper's IPIP-NEO domain code, its
#: criterion scale code).
LINKS: dict[tuple[str, str], tuple[str, str]] = {
    ("C", "values:Achievement"): ("CON", "ACHV"),
    ("C", "values:Conformity"): ("CON", "CONF"),
    ("C", "values:Security"): ("CON", "SCRT"),
}


def external_validity(score: str, other: str) -> list[dict[str, Any]]:
    """The published per-model r of the inventory's ``score`` with ``other``: [{"model", "model_id", "r", "measures",
    "source"}] in the source's model order; [] for a pair without one."""
    link = LINKS.get((score, other))
    if link is None:
        return []
    domain, scale = link
    measures = f"IPIP-NEO-300 {domains()['domains'][domain]['name']} × {domains()['scales'][scale]['name']}"
    return [{"model": r["model"], "model_id": r["model_id"], "r": r["value"], "measures": measures, "source": r["source"]}
            for r in external_rows(domain, scale)]
