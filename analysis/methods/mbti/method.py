"""The MBTI method as a runnable: its registration as 'mbti' (plans are built in ``analysis.methods.mbti.plan``)."""

from __future__ import annotations

from typing import Any

from analysis.methods.base import BundledImport, Difference, Headline, Method, Shows, Side
from analysis.llm.specs import ModelSpec
from analysis.methods.mbti.session import MbtiPlan, MbtiSession
from analysis.runs.executor import Executor
from analysis.runs.store import Store
from analysis.methods.mbti.families import FAMILY
from analysis.methods.mbti.options import MbtiOptions
from analysis.methods.mbti.readers import READERS

def _n_calls(plan: dict[str, Any]) -> int:
    return MbtiPlan.model_validate(plan).n_calls()


def _session(plan: dict[str, Any], executor: Executor, store: Store, run_id: str, spec: ModelSpec) -> MbtiSession:
    return MbtiSession(MbtiPlan.model_validate(plan), executor, store, run_id, spec)


def _report(store: Store, model: str | None = None, *, config: Any = None, n_boot: int = 1000, chance: int = 0) -> dict[str, Any]:
    """``n_boot`` is not used: no MBTI number is bootstrapped."""
    from analysis.methods.mbti.report import metrics_json

    return metrics_json(store, model, config=config, chance=chance)


def _chance(store: Store, n_sims: int, *, config: Any = None, report: dict[str, Any] | None = None) -> dict[str, Any]:
    return {m: d.get("chance") for m, d in _report(store, config=config, chance=n_sims)["models"].items()}


def _can_show(plan: dict[str, Any], n_runs: int = 1) -> Shows:
    from analysis.methods.mbti.can_show import can_show  # the report's own metric function

    return can_show(plan, n_runs)


def _compare(a: Side, b: Side, *, n_boot: int = 1000) -> list[Difference]:
    from analysis.methods.mbti.report import selected_answers
    from analysis.methods.mbti.compare import compare_mbti
    from analysis.methods.mbti.scoring import scores_by_testing

    ta, tb = (scores_by_testing(selected_answers(s.store, s.model, config=s.config)) for s in (a, b))
    return compare_mbti(a.doc, b.doc, ta, tb, n_boot=n_boot)


def _plans(args: Any, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    from analysis.methods.mbti.cli import plan_from_args

    return [("", plan_from_args(args, spec))]


def _tokens(plan: dict[str, Any]) -> tuple[float, float] | str:
    from analysis.methods.mbti.tokens import plan_tokens

    design = MbtiPlan.model_validate(plan)
    if design.answer_mode == "text" and design.text_max_tokens is None:
        return "not modelled: replies have the model's own length (no --max-tokens); measured after a first run"
    return plan_tokens(design)


def _import(kind: str, paths: list[Any], store_path: Any, as_json: bool) -> int:
    from analysis.methods.mbti.cli import import_command

    return import_command(kind, paths, store_path, as_json)


def _samples(store: Any, run_ids: Any = None) -> Any:
    from analysis.methods.mbti.samples import samples

    return samples(store, run_ids)


def _bundled_chatgpt_mbti(store: Any, path: Any) -> list[str]:
    from analysis.methods.mbti.importer import parse_files, store_parsed

    return store_parsed(store, parse_files([path], text=False))


METHOD = Method(
    samples=_samples,
    name="mbti", title="MBTI", label="MBTI", order=2,
    tables=("mbti_answers",),
    sources=("analysis/methods/base.py", "analysis/runs/comparable.py", "analysis/reliability.py", "analysis/chance.py"),
    help="MBTI assessment of subjects (ChatGPT-MBTI)", plans=_plans,
    n_calls=_n_calls, tokens=_tokens, session=_session, report=_report, chance=_chance, can_show=_can_show,
    compare=_compare,
    families=(FAMILY,),
    options=MbtiOptions,
    readers=READERS,
    importers=("chatgpt-mbti",), run_import=_import,
    bundled_imports=(BundledImport("chatgpt-mbti", "chatgpt_mbti", _bundled_chatgpt_mbti),),
    headlines=(Headline("mbti_consistency", "MBTI: consistency ↑",
                        null=lambda band, entry: (band.get("metrics") or {}).get("consistency")),),
)

