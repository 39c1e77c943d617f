"""Published LLM figures beside the cross-method pairs, offered by the pair's own methods: each method that bundles
published external-validity figures (``Method.external_validity``; today the inventory's values ↔ Conscientiousness r
of Serapio-García et al. 2025) gives them for a pair it is part of.

These are LLM figures, not human ones: a pair's ``human_r`` stays as ``pairs.json`` has it. They are shown beside this
store's r, never pooled, ranked or used in the pattern.
"""

from __future__ import annotations

from typing import Any

from analysis.methods import get


def published_for(a: str, b: str) -> list[dict[str, Any]]:
    """The published per-model r of the pair (a, b) ("method:score" each, either order), from the first side whose
    method offers one: [{"model", "model_id", "r", "measures", "source"}]; [] for a pair without one."""
    for mine, other in ((a, b), (b, a)):
        method, _, score = mine.partition(":")
        offer = get(method).external_validity
        rows = offer(score, other) if offer else []
        if rows:
            return rows
    return []
