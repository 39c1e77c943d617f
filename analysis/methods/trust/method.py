"""The trust method as a runnable: plan building from user options, and registration as 'trust'."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from analysis.errors import InputError
from analysis.methods.base import BundledImport, Difference, Headline, Method, Shows, Side
from analysis.llm.specs import ModelSpec
from analysis.runs.executor import Executor
from analysis.runs.store import Store
from analysis.methods.trust import (
    CONDITIONINGS, DEFAULT_ARCHETYPES, DEFAULT_ENDOWMENT, DEFAULT_ROUNDS, STRATEGIES, STRATEGY_ALIASES,
)
from analysis.methods.trust.genagents import PAPER_PERSONA_FORM, load_genagents
from analysis.methods.trust.individual import IndividualSession
from analysis.methods.trust.personas import (
    DEFAULT_ATTRIBUTE_SET, Persona, attribute_table, check_attribute_set, default_attributes, generate_bank, select,
)
from analysis.methods.trust.plan import DEFAULT_MAX_TOKENS, TrustPlan
from analysis.methods.trust.population import PopulationSession
from analysis.methods.trust.families import FAMILIES
from analysis.methods.trust.options import TrustOptions
from analysis.methods.trust.published import PUBLISHED
from analysis.methods.trust.readers import READERS

# A generated bank of 250 has a test split of 50 personas: the paper's N = 50 (Sec. 4).
DEFAULT_BANK_SIZE = 250
# A GenAgents file under the paper's attribute set: a seeded sample of 50 of its agents (N = 50, Sec. 4).
DEFAULT_GENAGENTS_N = 50
# The paper's decoding (App. E): temperature 0.05, top_p 1.0, top_k 0 (no top-k cut); the model spec and
# --temperature override them. top_k is sent only to backends known to accept it (TOP_K_BACKENDS: the embedded
# llama.cpp server); OpenAI's API rejects the field, and other servers differ on what 0 means.
DEFAULT_PARAMS: dict[str, Any] = {"temperature": 0.05, "top_p": 1.0}
PAPER_TOP_K = 0
TOP_K_BACKENDS = frozenset({"embedded"})


def decoding_params(spec: ModelSpec, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The generation params a trust plan records and sends: the paper's, top_k where accepted, then spec, overrides."""
    top_k = {"top_k": PAPER_TOP_K} if spec.backend in TOP_K_BACKENDS else {}
    return DEFAULT_PARAMS | top_k | spec.params | (overrides or {})


def parse_strategy(name: str, option: str = "--strategies") -> str:
    """A strategy's paper name from any accepted spelling (NoCtx+Tr, ctx-tr, ctx-usd, ...); ``option`` names the
    option in the error."""
    key = name.strip()
    if key in STRATEGIES:
        return key
    if key.lower() in STRATEGY_ALIASES:
        return STRATEGY_ALIASES[key.lower()]
    raise InputError(f"{option}: unknown strategy '{name}'; use {', '.join(STRATEGIES)} (or noctx-tr, ctx-tr, ctx-usd)")


def resolve_personas(personas: int | str | Path, *, seed: int, split: str, limit: int | None,
                     attribute_set: str = DEFAULT_ATTRIBUTE_SET,
                     persona_ids: list[str] | None = None) -> tuple[list[Persona], dict[str, Any]]:
    """``personas`` = N (a generated bank of N) or a GenAgents .jsonl / folder path; then one split, and of it the
    personas ``persona_ids`` names (in the bank's order), else at most ``limit``. The bank's record says how many
    were taken (``n``) and which (``persona_ids``).

    A GenAgents file under the paper's set: every agent, in a seeded order, all in split test; ``limit`` defaults to 50
    there (a seeded sample of the whole bank)."""
    if isinstance(personas, str) and personas.strip().isdigit():
        personas = int(personas.strip())
    if isinstance(personas, int):
        bank = generate_bank(personas, seed, attribute_set)
        info: dict[str, Any] = {"source": "generated", "size": personas, "seed": seed}
    else:
        bank = load_genagents(personas, seed, attribute_set)
        info = {"source": "genagents", "path": str(personas), "size": len(bank), "seed": seed}
        if attribute_set == "paper" and limit is None and split == "test" and not persona_ids:
            limit = DEFAULT_GENAGENTS_N
    if persona_ids:
        wanted = set(map(str, persona_ids))
        chosen = [p for p in select(bank, split, None) if p.id in wanted]
        missing = sorted(wanted - {p.id for p in chosen})
        if missing:
            raise InputError(f"--persona-ids: {', '.join(missing[:5])} not in the {split} split of this bank")
        return chosen, info | {"split": split, "limit": None, "n": len(chosen), "persona_ids": [p.id for p in chosen]}
    chosen = select(bank, split, limit)
    return chosen, info | {"split": split, "limit": limit, "n": len(chosen)}


def build_trust_plan(
    spec: ModelSpec,
    *,
    level: str = "population",
    strategies: Sequence[str] | None = None,
    conditioning: str = "none",
    condition_on: str = "Ctx+Tr",
    rounds: int = DEFAULT_ROUNDS,
    archetypes: Sequence[int] = DEFAULT_ARCHETYPES,
    endowment: int = DEFAULT_ENDOWMENT,
    personas: int | str | Path = DEFAULT_BANK_SIZE,
    split: str = "test",
    limit_personas: int | None = None,
    persona_ids: list[str] | None = None,
    attributes: Sequence[str] | None = None,
    attribute_set: str = DEFAULT_ATTRIBUTE_SET,
    seed: int = 0,
    play_knows_archetype: bool = False,
    forecast: str = "per_round",
    answer: str = "reasoned",
    answer_format: str = "text",
    max_tokens: dict[str, int] | None = None,
    params: dict[str, Any] | None = None,
    prefix_reuse: bool = False,
) -> TrustPlan:
    """Resolve every option now (personas included), so the stored plan is self-contained."""
    if level not in ("population", "individual"):
        raise InputError(f"--level '{level}': use population or individual")
    if conditioning not in CONDITIONINGS:
        raise InputError(f"--conditioning '{conditioning}': use {', '.join(CONDITIONINGS)}")
    if level == "individual" and conditioning != "none":
        raise InputError("--conditioning applies to --level population only")
    if endowment < 1:
        raise InputError("--endowment must be >= 1")
    if answer not in ("reasoned", "numeric"):
        raise InputError(f"--answer '{answer}': use reasoned or numeric")
    if answer_format not in ("text", "json"):
        raise InputError(f"--answer-format '{answer_format}': use text or json")
    if answer_format == "json" and answer == "numeric":
        raise InputError("--answer numeric asks for a bare number; with --answer-format json the amount is a JSON field")
    if forecast not in ("per_round", "upfront"):
        raise InputError(f"--forecast '{forecast}': use per_round or upfront")
    if rounds < 1:
        raise InputError("--rounds must be >= 1")
    ks = [int(k) for k in archetypes]
    if not ks or any(k < 0 for k in ks) or len(set(ks)) != len(ks):
        raise InputError(f"--archetypes {ks}: give distinct whole dollars >= 0, e.g. 1,3,5")
    chosen = [parse_strategy(s) for s in (strategies if strategies is not None else STRATEGIES)]
    if level == "population" and not chosen:
        raise InputError("--strategies: give at least one of " + ", ".join(STRATEGIES))
    if len(set(chosen)) != len(chosen):
        raise InputError(f"--strategies lists a strategy twice: {chosen}")
    check_attribute_set(attribute_set)
    table = attribute_table(attribute_set, split)
    attrs = list(attributes) if attributes is not None else default_attributes(attribute_set, split)
    unknown = [a for a in attrs if a not in table]
    if unknown or not attrs or len(set(attrs)) != len(attrs):
        raise InputError(f"--attributes {attrs}: give distinct names from {', '.join(table)} "
                         f"(attribute set {attribute_set}, split {split})")
    tokens = dict(DEFAULT_MAX_TOKENS) | (max_tokens or {})
    if any(v < 1 for v in tokens.values()):
        raise InputError("--max-tokens must be >= 1")
    people, bank = resolve_personas(personas, seed=seed, split=split, limit=limit_personas, attribute_set=attribute_set,
                                    persona_ids=persona_ids)
    return TrustPlan(
        level=level, endowment=endowment, personas=people, bank=bank, attribute_set=attribute_set,
        persona_form=PAPER_PERSONA_FORM if bank["source"] == "genagents" and attribute_set == "paper" else None,
        attributes=attrs if level == "population" else [], strategies=chosen if level == "population" else [],
        conditioning=conditioning, condition_on=parse_strategy(condition_on, "--condition-on"), rounds=rounds, archetypes=ks,
        play_knows_archetype=play_knows_archetype, forecast=forecast, answer=answer, answer_format=answer_format, seed=seed,
        params=decoding_params(spec, params),
        max_tokens=tokens, prefix_reuse=prefix_reuse,
    )


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

