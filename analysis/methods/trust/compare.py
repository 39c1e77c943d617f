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


def _median(values: list[float]) -> float:
    values = sorted(values)
    n = len(values)
    return float("nan") if not n else (values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2)


def _median_on_common(strategy: str, a: Mapping[str, Any], b: Mapping[str, Any], headline: bool = False) -> Difference:
    """Median Spearman of each side over the attributes both have a defined ρ for (the same columns on both sides);
    the note says when the runs' attribute sets differ. ``headline``: both models' headline is this strategy's median,
    so the row is that headline (``Difference.key``) when the two have a defined ρ for exactly the same attributes."""
    label = f"Median Spearman belief vs behaviour ({strategy})"
    ra = {k: _f(v.get("spearman")) for k, v in (a.get("attributes") or {}).items()}
    rb = {k: _f(v.get("spearman")) for k, v in (b.get("attributes") or {}).items()}
    if not ra and not rb:  # a document without per-attribute rows: the medians as reported
        return difference("Trust", label, a.get("median_spearman"), b.get("median_spearman"),
                          key="trust_spearman" if headline else None)
    common = [k for k in ra if k in rb and math.isfinite(ra[k]) and math.isfinite(rb[k])]
    note = f"over the {len(common)} attributes with a defined ρ on both sides"
    if set(ra) != set(rb) or len(common) < len(ra):
        note += f" (A has {len(ra)}, B {len(rb)}: the others are left out)"
    if not common:
        return Difference("Trust", label, float("nan"), float("nan"), float("nan"),
                          note="undefined: no attribute has a defined ρ on both sides")
    whole = set(common) == {k for k, v in ra.items() if math.isfinite(v)} == {k for k, v in rb.items() if math.isfinite(v)}
    return difference("Trust", label, _median([ra[k] for k in common]), _median([rb[k] for k in common]), note=note,
                      key="trust_spearman" if headline and whole else None)


def compare_trust(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any]) -> list[Difference]:
    """Trust headlines side by side per strategy (the trust metrics carry per-model CIs, not paired ones)."""
    out = []
    pa, pb = doc_a.get("population") or {}, doc_b.get("population") or {}
    shown = {((doc.get("headlines") or {}).get("trust_spearman") or {}).get("strategy") for doc in (doc_a, doc_b)}
    for strategy in [s for s in pa if s in pb]:
        out.append(_median_on_common(strategy, pa[strategy], pb[strategy], headline=shown == {strategy}))
    ia = (doc_a.get("individual") or {}).get("archetypes") or {}
    ib = (doc_b.get("individual") or {}).get("archetypes") or {}
    common = [k for k in ia if k in ib]
    if common:
        out.append(difference("Trust", "Forecast MAE, mean over archetypes (lower is better)",
                         _mean_defined(ia[k].get("mae") for k in common), _mean_defined(ib[k].get("mae") for k in common)))
    out.extend(_amounts_sent(doc_a, doc_b))
    return out


def _amounts_sent(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any]) -> list[Difference]:
    """Imported published play (``imported``): the mean amount sent in the condition a side's headline uses, when both
    models have it, from the source's extraction and from RoleScope's reading (no paired CI: the report holds each
    model's summary)."""
    by_a = {e.get("condition"): e for e in (doc_a.get("imported") or {}).values()}
    by_b = {e.get("condition"): e for e in (doc_b.get("imported") or {}).values()}
    out = []
    shown = [c for c in by_a if c in by_b and (by_a[c].get("used") or by_b[c].get("used"))]  # the page's configuration
    for condition in shown:
        for key, who in (("amount_sent", "the source's extraction"), ("amount_sent_reader", "RoleScope's reading")):
            a, b = (by_a[condition].get(key) or {}).get("mean") or {}, (by_b[condition].get(key) or {}).get("mean") or {}
            out.append(difference("Trust", f"Amount sent, mean $ ({condition}, {who})", a.get("value"), b.get("value"),
                                  note="published play, imported; each model's mean (no paired CI)"))
    return out


def compare_sides(a: Any, b: Any, *, n_boot: int = 1000) -> list[Difference]:
    """``Method.compare``: from the two reports (medians over the personas both answered; no bootstrap)."""
    return compare_trust(a.doc, b.doc)
