"""Cross-method validity as a runnable: registration as 'cross_method' (``run cross-method`` on the command line)."""

from __future__ import annotations

from typing import Any

from analysis.llm.specs import ModelSpec
from analysis.methods.base import Difference, Headline, Method, Shows, Side
from analysis.methods.cross_method.families import FAMILY
from analysis.methods.cross_method.options import CrossMethodOptions


def _plans(args: Any, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    from analysis.methods.cross_method.plan import build_plan
    from analysis.methods.options import from_args

    options = args if isinstance(args, CrossMethodOptions) else from_args(CrossMethodOptions, args)
    return [("", build_plan(options, spec).model_dump())]


def _n_calls(plan: dict[str, Any]) -> int:
    from analysis.methods.cross_method.plan import CampaignPlan

    return CampaignPlan.model_validate(plan).n_calls()


def _tokens(plan: dict[str, Any]) -> tuple[float, float] | str:
    """The parts' modelled tokens summed; a part that cannot be modelled makes the whole unmodelled (its reason)."""
    from analysis import methods
    from analysis.methods.cross_method.plan import CampaignPlan

    total_in = total_out = 0.0
    for part in CampaignPlan.model_validate(plan).parts:
        tokens = methods.get(part.method).tokens(part.plan)
        if isinstance(tokens, str):
            return f"{part.method}: {tokens}"
        total_in, total_out = total_in + tokens[0], total_out + tokens[1]
    return total_in, total_out


def _parts(plan: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    from analysis.methods.cross_method.plan import CampaignPlan

    return [(part.method, part.plan) for part in CampaignPlan.model_validate(plan).parts]


def _session(plan: dict[str, Any], executor: Any, store: Any, run_id: str, spec: ModelSpec) -> Any:
    from analysis.methods.cross_method.plan import CampaignPlan
    from analysis.methods.cross_method.session import CampaignSession

    return CampaignSession(CampaignPlan.model_validate(plan), executor, store, run_id, spec)


def _report(store: Any, model: str | None = None, *, config: Any = None, n_boot: int = 1000, chance: int = 0) -> dict[str, Any]:
    from analysis.methods.cross_method.report import metrics_json

    return metrics_json(store, model, config=config, n_boot=n_boot, chance=chance)


def _chance(store: Any, n_sims: int, *, config: Any = None, report: dict[str, Any] | None = None) -> dict[str, Any]:
    """Per model: the headlines' nulls (``convergent``, ``pattern``: ``{"permutation": summary}``) and every
    cross-method cell's band (``cells``: ``"a|b"`` -> band, verdict family-wise), each theory pair's (``pairs``, Holm)
    and the families' sizes (``families``), from the report computed with ``n_sims`` draws."""
    doc = METHOD.cached_report(store, config=config, n_boot=0, chance=n_sims)
    return {m: (d.get("chance") or {}) | {"cells": d.get("cells_chance") or {}, "pairs": d.get("pairs_chance") or {},
                                          "families": d.get("families") or {}} for m, d in doc["models"].items()}


def _can_show(plan: dict[str, Any], n_runs: int = 1) -> Shows:
    from analysis.methods.cross_method.can_show import can_show

    return can_show(plan, n_runs)


def _compare(a: Side, b: Side, *, n_boot: int = 1000) -> list[Difference]:
    from analysis.methods.cross_method.compare import compare_cross

    return compare_cross(a, b, n_boot=n_boot)


def _samples(store: Any, run_ids: Any = None) -> Any:
    from analysis.methods.cross_method.samples import samples

    return samples(store, run_ids)


METHOD = Method(
    name="cross_method", title="Cross-method validity", label="Cross-method", order=6,
    tables=("cross_method_parts",),
    # its report reads every method's report: their folders are its sources
    sources=("analysis/methods", "analysis/persona_scores.py", "analysis/runs/comparable.py", "analysis/chance.py",
             "analysis/stats.py"),
    help="one persona set through every method that takes one, and whether the methods agree about each persona",
    options=CrossMethodOptions, plans=_plans, n_calls=_n_calls, tokens=_tokens, session=_session, report=_report,
    chance=_chance, can_show=_can_show, compare=_compare, samples=_samples, families=(FAMILY,), parts=_parts,
    headlines=(
        Headline("cross_convergent", "Cross-method: convergent r ↑",
                 null=lambda band, entry: band.get("convergent")),
        Headline("cross_pattern", "Cross-method: pattern r ↑", null=lambda band, entry: band.get("pattern")),
    ),
)
