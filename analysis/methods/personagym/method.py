"""The PersonaGym method as a runnable: its registration as 'personagym' (plans are built in
``analysis.methods.personagym.plan``)."""

from __future__ import annotations

from typing import Any

from analysis.methods.base import Difference, Headline, Method, Shows, Side
from analysis.llm.specs import ModelSpec
from analysis.methods.personagym.session import PersonaGymPlan, PersonaGymSession
from analysis.runs.executor import Executor
from analysis.runs.store import Store
from analysis.methods.personagym.families import FAMILY
from analysis.methods.personagym.options import PersonaGymOptions
from analysis.methods.personagym.published import PUBLISHED
from analysis.methods.personagym.readers import READERS


def _n_calls(plan: dict[str, Any]) -> int:
    return PersonaGymPlan.model_validate(plan).n_calls()


def _session(plan: dict[str, Any], executor: Executor, store: Store, run_id: str, spec: ModelSpec) -> PersonaGymSession:
    return PersonaGymSession(PersonaGymPlan.model_validate(plan), executor, store, run_id, spec)


def _report(store: Store, model: str | None = None, *, config: Any = None, n_boot: int = 1000, chance: int = 0) -> dict[str, Any]:
    """``n_boot`` is not used: no PersonaGym number is bootstrapped."""
    from analysis.methods.personagym.cli import metrics_json

    return metrics_json(store, model, config=config, chance=chance)


def _chance(store: Store, n_sims: int, *, config: Any = None, report: dict[str, Any] | None = None) -> dict[str, Any]:
    return {m: d.get("chance") for m, d in _report(store, config=config, chance=n_sims)["models"].items()}


def _can_show(plan: dict[str, Any], n_runs: int = 1) -> Shows:
    from analysis.methods.personagym.can_show import can_show

    return can_show(plan, n_runs)


def _compare(a: Side, b: Side, *, n_boot: int = 1000) -> list[Difference]:
    from analysis.methods.personagym.compare import compare_personagym

    return compare_personagym(a.doc, b.doc, n_boot=n_boot)


def _plans(args: Any, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    from analysis.methods.personagym.cli import plan_from_args

    return [("", plan_from_args(args, spec))]


def _tokens(plan: dict[str, Any]) -> tuple[float, float] | str:
    return "not modelled: its prompts hold replies not yet made; measured after a first run"


def _import(kind: str, paths: list[Any], store_path: Any, as_json: bool) -> int:
    from analysis.methods.personagym.cli import import_command

    return import_command(kind, paths, store_path, as_json)


def _samples(store: Any, run_ids: Any = None) -> Any:
    from analysis.methods.personagym.samples import samples

    return samples(store, run_ids)


def _persona_plan(options: Any, personas: list[Any], spec: ModelSpec,
                  constructs: frozenset[str] = frozenset()) -> dict[str, Any]:
    from analysis.methods.personagym.shared_personas import persona_plan

    return persona_plan(options, personas, spec, constructs)


METHOD = Method(
    persona_plan=_persona_plan,
    samples=_samples,
    name="personagym", title="PersonaGym", label="PersonaGym", order=4,
    tables=("personagym_questions", "personagym_answers", "personagym_grades", "personagym_published"),
    sources=("analysis/methods/base.py", "analysis/persona_scores.py", "analysis/runs/comparable.py", "analysis/reliability.py", "analysis/chance.py"),
    help="PersonaGym: environments, questions, rubric grading, PersonaScore", plans=_plans,
    n_calls=_n_calls, tokens=_tokens, session=_session, report=_report, chance=_chance, can_show=_can_show,
    compare=_compare,
    families=(FAMILY,),
    options=PersonaGymOptions,
    published=PUBLISHED,
    readers=READERS,
    importers=("personagym",), run_import=_import,
    headlines=(Headline("personagym_score", "PersonaGym: PersonaScore ↑",
                        null=lambda band, entry: (band.get("metrics") or {}).get("persona_score")),),
)

