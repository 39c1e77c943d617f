"""What a trust plan can show, found by computing it: the report's metric function (``cli.model_metrics``) on
placeholder rows with the plan's design (its personas and their attributes, the elicited attributes and strategies,
the level, archetypes and rounds).

Every placeholder belief ranks the levels in a seeded random order and every transfer, action and forecast is a seeded
random amount, so behaviour varies as a real model's does and every defined number is defined for the design's sake.
The endowment ablation is the one line counted, not computed: it needs the other runs of the ablation.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.base import Shows, dry_run_shows
from analysis.methods.trust import DOLLAR_STRATEGY
from analysis.methods.trust.tables import BELIEFS, FORECASTS, PRIORS, ROUNDS, TRANSFERS


def _frame(table: Any, rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=[name for name, _ in table.columns])
    return frame.assign(_order=0.0)


def placeholder_rows(plan: dict[str, Any], seed: int = 0) -> dict[str, pd.DataFrame]:
    """``beliefs``, ``transfers``, ``priors``, ``rounds`` and ``forecasts`` of one valid run of ``plan``."""
    from analysis.methods.trust.personas import attribute_table

    rng = np.random.default_rng(seed)
    endowment = int(plan.get("endowment") or 10)
    personas = plan.get("personas") or []
    run = {"run_id": "dry-run", "model": "dry-run", "endowment": endowment, "valid": 1}
    beliefs, transfers, rounds = [], [], []
    if plan.get("level", "population") == "population":
        table = attribute_table(plan.get("attribute_set", "rolescope15"))
        for strategy in plan.get("strategies") or []:
            for attribute in plan.get("attributes") or []:
                levels = list(table[attribute].levels) if attribute in table else sorted(
                    {str(p["attributes"].get(attribute)) for p in personas})
                ranking = [levels[i] for i in rng.permutation(len(levels))]
                groups = {lv: [float(rng.uniform(0, endowment)), 1.0] for lv in levels}
                beliefs.append(run | {"strategy": strategy, "attribute": attribute, "levels": json.dumps(levels),
                                      "ranking": json.dumps(ranking), "effect_size": float(rng.uniform(0, 0.2)),
                                      "groups": json.dumps(groups) if strategy == DOLLAR_STRATEGY else None})
        transfers = [run | {"conditioning": plan.get("conditioning", "none"), "persona_id": p["id"],
                            "attributes": json.dumps(p["attributes"]), "sent": int(rng.integers(0, endowment + 1))}
                     for p in personas]
    else:
        rounds = [run | {"persona_id": p["id"], "archetype": int(k), "round": t + 1,
                         "forecast": int(rng.integers(0, endowment + 1)), "sent": int(rng.integers(0, endowment + 1)),
                         "forecast_valid": 1}
                  for p in personas for k in plan.get("archetypes") or [] for t in range(int(plan.get("rounds") or 1))]
    return {"beliefs": _frame(BELIEFS, beliefs), "transfers": _frame(TRANSFERS, transfers), "priors": _frame(PRIORS, []),
            "rounds": _frame(ROUNDS, rounds), "forecasts": _frame(FORECASTS, [])}


def can_show(plan: dict[str, Any], n_runs: int = 1) -> Shows:
    """The level's analyses, from the metrics of placeholder rows with the plan's design."""
    from analysis.methods.trust.cli import model_metrics
    from analysis.methods.trust.personas import plan_levels

    rows = placeholder_rows(plan)
    doc = model_metrics(rows["beliefs"], rows["transfers"], rows["priors"], rows["rounds"], rows["forecasts"], n_boot=0,
                        levels=plan_levels(plan))
    n = len(plan.get("personas") or [])
    design = f"{n} persona{'s' * (n != 1)}, {plan.get('level')} level"
    if plan.get("level", "population") == "population":
        split = next((s["reliability"] for s in doc["population"].values() if s.get("reliability")), {})
        return dry_run_shows(design, doc, (
            ("belief–behaviour Spearman ρ per attribute",
             lambda d: any(a.get("spearman") is not None for s in (d.get("population") or {}).values()
                           for a in s["attributes"].values()),
             "needs ≥ 2 personas (levels nobody plays are left out)"),
            ("split-half reliability of behaviour",
             lambda d: any((s.get("reliability") or {}).get("split_half") is not None
                           for s in (d.get("population") or {}).values()),
             split.get("reason") or "needs ≥ 4 personas with a valid transfer"),
            ("the endowment ablation (Table 9)", lambda d: len(d.get("endowments") or {}) > 1,
             "needs 'Endowment ablation'"),
        ), promised={"the endowment ablation (Table 9)": n_runs > 1})
    return dry_run_shows(design, doc, (
        ("forecast error per archetype",
         lambda d: any(a.get("mae") is not None for a in ((d.get("individual") or {}).get("archetypes") or {}).values()),
         "needs a persona"),
        ("forecasts vs actions over rounds",
         lambda d: any(len(a.get("mae_by_round") or []) >= 2
                       for a in ((d.get("individual") or {}).get("archetypes") or {}).values()),
         "needs ≥ 2 rounds"),
    ))
