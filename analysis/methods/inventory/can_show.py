"""What an inventory plan can show, found by computing it: ``measures.statistics`` on placeholder answers of the
plan's design (its personas, items and orders), each a seeded random option, so every defined number is defined
for the design's sake alone."""

from __future__ import annotations

from typing import Any

import numpy as np

from analysis.methods.base import Shows, dry_run_shows
from analysis.methods.inventory.scoring import Sheets
from analysis.methods.inventory.session import InventoryPlan


def placeholder(plan: InventoryPlan, seed: int = 0) -> Sheets:
    rng = np.random.default_rng(seed)
    inv = plan.inventory
    shape = (len(plan.personas), len(plan.orders), len(inv.items))
    X = rng.integers(1, inv.n_options + 1, size=shape).astype(float)
    return Sheets([p.id for p in plan.personas], list(plan.orders), [i.id for i in inv.items],
                  np.array([i.domain for i in inv.items], dtype=object), np.array([i.facet for i in inv.items], dtype=object),
                  X, X.copy(), X.copy(), inv.n_options, [dict(p.targets) for p in plan.personas],
                  [p.sex for p in plan.personas], [p.age for p in plan.personas])


def can_show(plan: dict[str, Any], n_runs: int = 1) -> Shows:
    from analysis.methods.inventory.measures import statistics

    design = InventoryPlan.model_validate(plan)
    stats = statistics(placeholder(design), with_omega=False)
    inv = design.inventory

    def value(key: str) -> float | None:
        v = stats.get(key, (float("nan"), None))[0]
        return float(v) if np.isfinite(v) else None

    domains = list(dict.fromkeys(i.domain for i in inv.items if i.domain))
    # the placeholder's numbers in the report's shape (``models[m]["domains"]``), so one probe reads both
    doc = {"domains": {d: {"score": 1.0, "percentile": 50.0 if inv.norms is not None else None,
                           "alpha": value(f"alpha/{d}"), "test_retest": value(f"test_retest/{d}"),
                           "shaping_rho": value(f"shaping/{d}")} for d in domains}}

    def shown(metric: str) -> Any:
        return lambda d: any((e or {}).get(metric) is not None for e in (d.get("domains") or {}).values())

    return dry_run_shows(
        f"{len(design.personas)} persona(s) × {len(inv.items)} items of {inv.name} × {len(design.orders)} order(s)", doc, (
            ("domain scores", shown("score"), ""),
            ("norm percentiles", shown("percentile"), "needs IPIP-NEO-120 or -300 with every item"),
            ("α, ω, λ6", shown("alpha"), "needs ≥ 3 answer sheets and ≥ 2 items per domain"),
            ("test–retest", shown("test_retest"), "needs both option orders and ≥ 3 personas"),
            ("shaping ρ", shown("shaping_rho"), "needs ≥ 3 personas shaped on a domain at ≥ 2 levels"),
        ))
