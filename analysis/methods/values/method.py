"""The values method as a runnable: its registration (plans are built in ``analysis.methods.values.plan``)."""

from __future__ import annotations

from typing import Any

from analysis.methods.base import Difference, Headline, Method, Shows, Side, invalid_share_gaps
from analysis.llm.specs import ModelSpec
from analysis.runs.executor import Executor
from analysis.runs.store import Store
from analysis.methods.values.questionnaire import ValuesPlan, ValuesSession
from analysis.methods.values.families import FAMILY
from analysis.methods.values.options import ValuesOptions
from analysis.methods.values.published import PUBLISHED
from analysis.methods.values.readers import READERS


def _n_calls(plan: dict[str, Any]) -> int:
    return ValuesPlan.model_validate(plan).n_calls()


def _session(plan: dict[str, Any], executor: Executor, store: Store, run_id: str, spec: ModelSpec) -> ValuesSession:
    return ValuesSession(ValuesPlan.model_validate(plan), executor, store, run_id, spec)


def _report(store: Store, model: str | None = None, *, config: Any = None, n_boot: int = 1000, chance: int = 0) -> dict[str, Any]:
    from analysis.methods.values.metrics import values_report  # scipy, scikit-learn: on first use

    return values_report(store, model, config=config, n_boot=n_boot, chance=chance)


def _chance(store: Store, n_sims: int, *, config: Any = None, report: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every model's circumplex and stability nulls, per context (the fit nulls are drawn on demand by the page)."""
    from analysis.methods.values.metrics import values_chance

    report = report if report is not None else _report(store, config=config, n_boot=0)
    return values_chance(store, report, config, n_sims=n_sims, slow=False)


def _can_show(plan: dict[str, Any], n_runs: int = 1) -> Shows:
    from analysis.methods.values.can_show import can_show  # the metrics' own functions: scipy & co.

    return can_show(plan, n_runs)


def _compare(a: Side, b: Side, *, n_boot: int = 1000) -> list[Difference]:
    from analysis.methods.values.compare import compare_values, context_scores
    from analysis.methods.values.metrics import latest_answers

    rows = [{r["model"]: r for r in side.report["leaderboard"]["rows"]}.get(side.model) for side in (a, b)]
    board = {name: row for name, row in zip(("A", "B"), rows) if row}
    sa, sb = (context_scores(latest_answers(s.store, s.model, config=s.config)) for s in (a, b))
    return compare_values(a.doc, b.doc, sa, sb, board, ("A", "B"), n_boot=n_boot)


def _plans(args: Any, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    from analysis.methods.values.cli import plans_from_args

    return plans_from_args(args, spec)


def _tokens(plan: dict[str, Any]) -> tuple[float, float] | str:
    from analysis.methods.values.tokens import plan_tokens

    return plan_tokens(ValuesPlan.model_validate(plan))


def _import(kind: str, paths: list[Any], store_path: Any, as_json: bool) -> int:
    from analysis.methods.values.cli import import_command

    return import_command(kind, paths, store_path, as_json)


def _leaderboard(store: Store, *, n_boot: int = 1000, chance: int = 0) -> dict[str, Any]:
    """The report's leaderboard (kept in the store, ``analysis.report_cache``), each row with its model's chance bands
    when asked for (``chance`` simulations per null): those of rank-order and ipsative stability, the numbers a row
    ranks by (its Stress and fit columns are means over contexts, which have no null of their own: each context's
    bands are in the full report, ``metrics values``)."""
    from analysis.methods.values.metrics import values_report
    from analysis.report_cache import cached_report

    options = {"n_boot": n_boot, "chance": chance, "chance_scope": "stability"}
    report = cached_report(store, "values", options,
                           lambda: values_report(store, n_boot=n_boot, chance=chance, chance_scope="stability"),
                           sources=METHOD.source_paths)
    board = dict(report["leaderboard"])
    board["rows"] = [row | ({"chance": report["models"][row["model"]].get("chance")} if chance else {})
                     for row in board["rows"]]
    board["invalid_gaps"] = invalid_share_gaps(report["models"])
    return board


def _samples(store: Any, run_ids: Any = None) -> Any:
    from analysis.methods.values.samples import samples

    return samples(store, run_ids)


def _persona_plan(options: Any, personas: list[Any], spec: ModelSpec,
                  constructs: frozenset[str] = frozenset()) -> dict[str, Any]:
    from analysis.methods.values.shared_personas import persona_plan

    return persona_plan(options, personas, spec, constructs)


METHOD = Method(
    persona_plan=_persona_plan,
    samples=_samples,
    name="values", title="Values (Stick to Your Role!)", label="Values", order=1,
    tables=("values_answers",),
    sources=("analysis/methods/base.py", "analysis/persona_scores.py", "analysis/runs/comparable.py", "analysis/reliability.py", "analysis/chance.py",
             "analysis/stats.py"),
    help="value questionnaires (Stick to Your Role!)", plans=_plans,
    n_calls=_n_calls, tokens=_tokens, session=_session, report=_report, chance=_chance, can_show=_can_show,
    compare=_compare,
    families=(FAMILY,),
    options=ValuesOptions,
    published=PUBLISHED,
    readers=READERS,
    leaderboard=_leaderboard,
    importers=("value-stability",), run_import=_import,
    headlines=(Headline("values_cardinal", "Values: Cardinal score ↑"),
               Headline("values_rank_order", "Values: rank-order stability ↑",
                        null=lambda band, entry: band.get("rank_order"))),
)

