"""Personality inventories as a runnable: registration as 'inventory'."""

from __future__ import annotations

from typing import Any

from analysis.llm.specs import ModelSpec
from analysis.methods.base import BundledImport, Difference, Headline, Method, Published, Shows, Side
from analysis.methods.inventory.families import FAMILY
from analysis.methods.inventory.options import InventoryOptions
from analysis.methods.inventory.readers import READERS
from analysis.methods.inventory.session import InventoryPlan, InventorySession


def _plans(args: Any, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    from analysis.methods.inventory.plan import plan_from_args

    return [("", plan_from_args(args, spec))]


def _n_calls(plan: dict[str, Any]) -> int:
    return InventoryPlan.model_validate(plan).n_calls()


def _tokens(plan: dict[str, Any]) -> tuple[float, float] | str:
    from analysis.methods.inventory.tokens import plan_tokens

    return plan_tokens(InventoryPlan.model_validate(plan))


def _session(plan: dict[str, Any], executor: Any, store: Any, run_id: str, spec: ModelSpec) -> InventorySession:
    return InventorySession(InventoryPlan.model_validate(plan), executor, store, run_id, spec)


def _report(store: Any, model: str | None = None, *, config: Any = None, n_boot: int = 1000, chance: int = 0) -> dict[str, Any]:
    """``n_boot`` is not used: the report bootstraps nothing (Compare does)."""
    from analysis.methods.inventory.report import metrics_json

    return metrics_json(store, model, config=config, chance=chance)


def _chance(store: Any, n_sims: int, *, config: Any = None, report: dict[str, Any] | None = None) -> dict[str, Any]:
    doc = _report(store, config=config, chance=n_sims)
    return {m: (d.get("chance") or {}).get(d["inventory"], {}) | {"_all": d.get("chance") or {}}
            for m, d in doc["models"].items()}


def _can_show(plan: dict[str, Any], n_runs: int = 1) -> Shows:
    from analysis.methods.inventory.can_show import can_show

    return can_show(plan, n_runs)


def _compare(a: Side, b: Side, *, n_boot: int = 1000) -> list[Difference]:
    from analysis.methods.inventory.compare import compare_inventory

    return compare_inventory(a, b, n_boot=n_boot)


def _samples(store: Any, run_ids: Any = None) -> Any:
    from analysis.methods.inventory.samples import samples

    return samples(store, run_ids)


def _published_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    from analysis.methods.inventory.published import rows

    return rows(doc)


def _import(kind: str, paths: list[Any], store_path: Any, as_json: bool) -> int:
    from analysis.methods.inventory.cli import import_command

    return import_command(kind, paths, store_path, as_json)


def _bundled_persona_llm(store: Any, path: Any) -> list[str]:
    from analysis.methods.inventory.importer import import_source

    return import_source(store, [path], text=False)


def _external_validity(score: str, other: str) -> list[dict[str, Any]]:
    from analysis.methods.inventory.external_validity import external_validity

    return external_validity(score, other)


def _persona_plan(options: Any, personas: list[Any], spec: ModelSpec,
                  constructs: frozenset[str] = frozenset()) -> dict[str, Any]:
    from analysis.methods.inventory.shared_personas import persona_plan

    return persona_plan(options, personas, spec, constructs)


METHOD = Method(
    persona_plan=_persona_plan, external_validity=_external_validity,
    name="inventory", title="Personality inventories", label="Inventory", order=5,
    tables=("inventory_answers",),
    sources=("analysis/methods/base.py", "analysis/persona_scores.py", "analysis/runs/comparable.py", "analysis/reliability.py", "analysis/chance.py"),
    help="personality inventories (IPIP-NEO, any Likert inventory) given to shaped personas (Serapio-García et al. 2023)",
    options=InventoryOptions, plans=_plans, n_calls=_n_calls, tokens=_tokens, session=_session, report=_report,
    chance=_chance, can_show=_can_show, compare=_compare, samples=_samples, readers=READERS, families=(FAMILY,),
    importers=("persona-llm",), run_import=_import,
    bundled_imports=(BundledImport("persona-llm", "persona_llm", _bundled_persona_llm),),
    published=Published("../analysis/methods/inventory/published.json", _published_rows),
    headlines=(
        Headline("inventory_shaping", "Inventory: shaping ρ ↑", null=lambda band, entry: band.get("shaping")),
        Headline("inventory_alpha", "Inventory: α ↑", null=lambda band, entry: band.get("alpha")),
    ),
)
