"""The trust method as a runnable: its session and registration as 'trust' (plans are built in
``analysis.methods.trust.plan``)."""

from __future__ import annotations

from typing import Any

from analysis.methods.base import BundledImport, Difference, Headline, Method, Shows, Side
from analysis.llm.specs import ModelSpec
from analysis.runs.executor import Executor
from analysis.runs.store import Store
from analysis.methods.trust.individual import IndividualSession
from analysis.methods.trust.plan import TrustPlan
from analysis.methods.trust.population import PopulationSession
from analysis.methods.trust.families import FAMILIES
from analysis.methods.trust.options import TrustOptions
from analysis.methods.trust.published import PUBLISHED
from analysis.methods.trust.readers import READERS

class TrustSession:
    """Runs a stored trust plan at its level."""

    def __init__(self, plan: TrustPlan, executor: Executor, store: Store, run_id: str, spec: ModelSpec):
        cls = PopulationSession if plan.level == "population" else IndividualSession
        self.inner = cls(plan, executor, store, run_id, spec)

    async def run(self) -> None:
        await self.inner.run()


def _n_calls(plan: dict[str, Any]) -> int:
    return TrustPlan.model_validate(plan).n_calls()


def _session(plan: dict[str, Any], executor: Executor, store: Store, run_id: str, spec: ModelSpec) -> TrustSession:
    return TrustSession(TrustPlan.model_validate(plan), executor, store, run_id, spec)


def _report(store: Store, model: str | None = None, *, config: Any = None, n_boot: int = 1000, chance: int = 0) -> dict[str, Any]:
    from analysis.methods.trust.cli import metrics_json

    return metrics_json(store, model, n_boot=n_boot, config=config, chance=chance)


def _chance(store: Store, n_sims: int, *, config: Any = None, report: dict[str, Any] | None = None) -> dict[str, Any]:
    """Per model ``{"population": {strategy: null bands}, "individual": null bands}``."""
    doc = _report(store, n_boot=0, config=config, chance=n_sims)
    return {m: {"population": {s: p.get("chance") for s, p in d["population"].items()},
                "individual": d["individual"].get("chance")} for m, d in doc["models"].items()}


def _can_show(plan: dict[str, Any], n_runs: int = 1) -> Shows:
    from analysis.methods.trust.can_show import can_show

    return can_show(plan, n_runs)


def _compare(a: Side, b: Side, *, n_boot: int = 1000) -> list[Difference]:
    from analysis.methods.trust.compare import compare_trust

    return compare_trust(a.doc, b.doc)


def _plans(args: Any, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    from analysis.methods.trust.cli import plans_from_args

    return plans_from_args(args, spec)


def _tokens(plan: dict[str, Any]) -> tuple[float, float] | str:
    return "not modelled: its prompts hold replies not yet made; measured after a first run"


def _import(kind: str, paths: list[Any], store_path: Any, as_json: bool) -> int:
    from analysis.methods.trust.cli import import_command

    return import_command(kind, paths, store_path, as_json)


def _samples(store: Any, run_ids: Any = None) -> Any:
    from analysis.methods.trust.samples import samples

    return samples(store, run_ids)


def _persona_plan(options: Any, personas: list[Any], spec: ModelSpec,
                  constructs: frozenset[str] = frozenset()) -> dict[str, Any]:
    from analysis.methods.trust.shared_personas import persona_plan

    return persona_plan(options, personas, spec, constructs)


def _bundled_agent_trust(store: Any, path: Any) -> list[str]:
    from analysis.methods.trust.importer import import_paths

    return import_paths(store, [path], text=False)


METHOD = Method(
    persona_plan=_persona_plan,
    samples=_samples,
    name="trust", title="Trust game", label="Trust", order=3,
    tables=("trust_transfers", "trust_beliefs", "trust_rounds"),
    sources=("analysis/methods/base.py", "analysis/persona_scores.py", "analysis/runs/comparable.py", "analysis/reliability.py", "analysis/chance.py",
             "analysis/stats.py"),
    help="trust game: belief-behaviour consistency", plans=_plans,
    n_calls=_n_calls, tokens=_tokens, session=_session, report=_report, chance=_chance, can_show=_can_show,
    compare=_compare,
    headlines=(Headline("trust_spearman", "Trust: belief–behaviour Spearman ↑",
                        null=lambda band, entry: ((band.get("population") or {}).get(entry.get("strategy")) or {}).get(
                            "median_spearman")),),
    families=FAMILIES,
    options=TrustOptions,
    published=PUBLISHED,
    readers=READERS,
    importers=("agent-trust",), run_import=_import,
    bundled_imports=(BundledImport("agent-trust", "agent_trust", _bundled_agent_trust),),
)

