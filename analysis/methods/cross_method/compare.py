"""Two models' cross-method summaries side by side (Compare)."""

from __future__ import annotations

from analysis.methods.base import Difference, Side, difference


def compare_cross(a: Side, b: Side, *, n_boot: int = 1000) -> list[Difference]:
    """The convergent mean r and the pattern r of each model, as its report holds them. No paired CI: the two
    campaigns' personas need not be the same, and each number carries its own CI on the page."""
    rows = []
    for key, label in (("convergent", "Convergent mean r"), ("pattern", "Pattern r (vs theory or human r)")):
        da, db = a.doc.get(key) or {}, b.doc.get(key) or {}
        rows.append(difference("cross_method", label, da.get("value"), db.get("value"),
                               note=f"A {_ci(da)}, B {_ci(db)}; unpaired"))
    return rows


def _ci(d: dict) -> str:
    if d.get("lo") is None:
        return "no CI"
    return f"CI [{d['lo']:.2f}, {d['hi']:.2f}]"
