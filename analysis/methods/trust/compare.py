"""Comparing two trust-game models: each strategy's median Spearman and the forecast error side by side (the trust
metrics carry per-model CIs, not paired ones)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from analysis.methods.base import Difference, difference


def _f(x: Any) -> float:
    return float("nan") if x is None else float(x)


def _mean_defined(values: Iterable[Any]) -> float:
    """Mean of the defined values; NaN (shown as undefined) when none is, without numpy's empty-slice warning."""
    defined = [v for v in map(_f, values) if math.isfinite(v)]
    return sum(defined) / len(defined) if defined else float("nan")


def compare_trust(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any]) -> list[Difference]:
    """Trust headlines side by side per strategy (the trust metrics carry per-model CIs, not paired ones)."""
    out = []
    pa, pb = doc_a.get("population") or {}, doc_b.get("population") or {}
    for strategy in [s for s in pa if s in pb]:
        out.append(difference("Trust", f"Median Spearman belief vs behaviour ({strategy})",
                         pa[strategy].get("median_spearman"), pb[strategy].get("median_spearman")))
    ia = (doc_a.get("individual") or {}).get("archetypes") or {}
    ib = (doc_b.get("individual") or {}).get("archetypes") or {}
    common = [k for k in ia if k in ib]
    if common:
        out.append(difference("Trust", "Forecast MAE, mean over archetypes (lower is better)",
                         _mean_defined(ia[k].get("mae") for k in common), _mean_defined(ib[k].get("mae") for k in common)))
    return out
