"""Published LLM figures beside the cross-method pairs: the one values ↔ Big Five figure published for LLMs, the r of
IPIP-NEO-300 Conscientiousness with PVQ-RR Achievement, Conformity and Security per model (Serapio-García et al. 2025,
Nature Machine Intelligence, external validity; github google-deepmind/personality_in_llms @ c3fea44,
``figures_data/external_validity_CON.csv``), read from the inventory's bundled file
(``analysis.methods.inventory.published``).

These are LLM figures (r across each model's 1,250 simulated response profiles on unshaped persona descriptions), not
human ones: a pair's ``human_r`` stays as ``pairs.json`` has it. They are shown beside this store's r, never pooled,
ranked or used in the pattern.
"""

from __future__ import annotations

from typing import Any

#: pair (a, b) of ``pairs.json`` -> (the paper's IPIP-NEO domain code, criterion scale code) of its external validity.
LINKS: dict[tuple[str, str], tuple[str, str]] = {
    ("values:Achievement", "inventory:C"): ("CON", "ACHV"),
    ("values:Conformity", "inventory:C"): ("CON", "CONF"),
    ("values:Security", "inventory:C"): ("CON", "SCRT"),
}


def published_for(a: str, b: str) -> list[dict[str, Any]]:
    """The published per-model r of the pair (a, b), either order: [{"model", "model_id", "r", "measures", "source"}]
    in the source's model order; [] for a pair without one."""
    link = LINKS.get((a, b)) or LINKS.get((b, a))
    if link is None:
        return []
    from analysis.methods.inventory.published import domains, external_rows

    domain, scale = link
    measures = f"IPIP-NEO-300 {domains()['domains'][domain]['name']} × {domains()['scales'][scale]['name']}"
    return [{"model": r["model"], "model_id": r["model_id"], "r": r["value"], "measures": measures, "source": r["source"]}
            for r in external_rows(domain, scale)]
