"""What an MBTI plan can show, found by computing it: the report's metric function (``metrics.model_metrics``) on
placeholder answers with the plan's design (its subjects, option orders, testings and statements).

Each placeholder testing answers every statement with a seeded random option, so the testings of a subject differ
(as a real model's do) and every defined number is defined for the design's sake alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.base import Shows, dry_run_shows
from analysis.methods.mbti import OPTIONS
from analysis.methods.mbti.session import MbtiPlan


def placeholder_answers(plan: MbtiPlan, seed: int = 0) -> pd.DataFrame:
    """One valid ``mbti_answers`` row per subject × order × testing × statement of ``plan``."""
    rng = np.random.default_rng(seed)
    rows = [{"model": "dry-run", "subject": subject.name, "order_mode": order, "run_id": "dry-run", "testing": t,
             "statement_id": s.id, "dimension": s.dimension, "direction": s.direction,
             "option_index": int(rng.integers(len(OPTIONS))), "valid": 1, "truncated": 0}
            for subject in plan.subjects for order in plan.orders for t in range(plan.testings)
            for s in plan.statements.statements]
    return pd.DataFrame(rows)


def can_show(plan: dict[str, Any], n_runs: int = 1) -> Shows:
    """Consistency, robustness and fairness lines, from the metrics of placeholder answers with the plan's design."""
    from analysis.methods.mbti.metrics import model_metrics
    from analysis.methods.mbti.scoring import scores_by_testing

    design = MbtiPlan.model_validate(plan)
    doc = model_metrics(scores_by_testing(placeholder_answers(design)))
    return dry_run_shows(f"{len(design.subjects)} subject(s) × {design.testings} testing(s) × "
                         f"{len(design.statements.statements)} statements", doc, (
        ("consistency", lambda d: any(s.get("consistency") is not None for s in (d.get("subjects") or {}).values()),
         "needs ≥ 2 testings of a subject"),
        ("robustness", lambda d: any(v is not None for v in (d.get("robustness") or {}).values()),
         "needs option order 'both' (fixed and permuted testings of a subject)"),
        ("fairness", lambda d: any(v is not None for v in (d.get("fairness") or {}).values()),
         "needs Men and Women (or Boys and Girls)"),
    ))
