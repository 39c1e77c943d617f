"""What a values plan can show, found by computing it: the report's metric functions run on placeholder answers
with the plan's design (its personas, contexts and instrument items), never from a list of rules.

The placeholder personas hold a value profile that every context blurs a little (as a stable model would answer),
so what decides is the design: how many personas, contexts and keyed items per value there are.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.base import Shows, dry_run_shows
from analysis.methods.values import VALUES
from analysis.methods.values.questionnaire import ValuesPlan

#: Context-to-context noise of the placeholder answers, in units of a profile's spread.
NOISE = 0.3


def placeholder_answers(plan: ValuesPlan, seed: int = 0) -> pd.DataFrame:
    """One valid answer per persona × context × item of ``plan`` (``values_answers`` columns the metrics read)."""
    inst = plan.instrument
    scores = sorted(o.score for o in inst.options)
    lo, hi = scores[0], scores[-1]
    rng = np.random.default_rng(seed)
    profile = rng.normal(size=(len(plan.personas), len(VALUES)))
    rows = []
    for ctx in plan.contexts:
        for p, persona in enumerate(plan.personas):
            for item in inst.items:
                latent = profile[p, VALUES.index(item.value)] if item.value in VALUES else 0.0
                score = float(np.clip(np.round((lo + hi) / 2 + (hi - lo) / 4 * (latent + NOISE * rng.normal())), lo, hi))
                rows.append({"run_id": "dry-run", "model": "dry-run", "persona_id": persona.id, "context": ctx.label,
                             "instrument": inst.name, "item_id": item.id, "value": item.value, "stage": "item",
                             "sample": 0, "score": score, "valid": 1})
    return pd.DataFrame(rows)


def can_show(plan: dict[str, Any], n_runs: int = 1) -> Shows:
    """The circumplex, stability and CFA lines, from the metrics of placeholder answers with the plan's design."""
    from analysis.methods.values.metrics import model_metrics  # scipy, scikit-learn

    design = ValuesPlan.model_validate(plan)
    doc = model_metrics(placeholder_answers(design), n_boot=0, with_separability=False)
    contexts = list(doc["contexts"].values())
    errors = [c["error"] for c in contexts if c.get("error")]
    fits = [g for c in contexts for g in (c.get("cfa") or {}).values()]
    reasons = [g.get("reason") for g in fits if not g.get("converged") and g.get("reason")]
    n, k = len(design.personas), len(design.contexts)
    return dry_run_shows(f"{n} persona{'s' * (n != 1)} × {k} context{'s' * (k != 1)} × {len(design.instrument.items)} items",
                         doc, (
        ("circumplex and Stress", lambda d: any(c.get("stress") is not None for c in (d.get("contexts") or {}).values()),
         errors[0] if errors else "no context"),
        ("rank-order and ipsative stability", lambda d: d.get("rank_order") is not None,
         "needs ≥ 2 contexts" if k < 2 else "undefined on this design (too few personas or items)"),
        ("CFA fit", lambda d: any(g.get("converged") for c in (d.get("contexts") or {}).values()
                                  for g in (c.get("cfa") or {}).values()),
         reasons[0] if reasons else "no value group can be fitted"),
    ))
