"""The values method as a runnable: plan building from user options, and registration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.errors import InputError
from analysis.llm.options import AnswerMode
from analysis.llm.specs import ModelSpec
from analysis.runs.executor import Executor
from analysis.runs.runner import MethodRunner, register_method
from analysis.runs.store import Store
from analysis.values.contexts import load_context
from analysis.values.instruments import load_instrument
from analysis.values.populations import load_population
from analysis.values.questionnaire import ValuesPlan, ValuesSession


def build_values_plan(
    spec: ModelSpec,
    *,
    population: str | Path = "default",
    contexts: list[str] | None = None,
    instrument: str | Path = "pvq",
    limit_personas: int | None = None,
    persona_ids: list[int] | None = None,
    limit_items: int | None = None,
    messages: int = 3,
    answer_mode: AnswerMode = "logprob",
    samples: int = 1,
    seed: int = 0,
    prefix_reuse: bool = False,
    params: dict[str, Any] | None = None,
) -> ValuesPlan:
    """Resolve every source now, so the stored plan is self-contained. ``persona_ids`` picks personas of the
    population by id (in population order), before ``limit_personas``."""
    personas = load_population(population)
    if persona_ids is not None:
        unknown = sorted(set(persona_ids) - {p.id for p in personas})
        if unknown:
            raise InputError(f"persona ids {unknown} are not in population {population}")
        personas = [p for p in personas if p.id in set(persona_ids)]
    if limit_personas is not None:
        if limit_personas < 1:
            raise InputError("--limit-personas must be >= 1")
        personas = personas[:limit_personas]
    inst = load_instrument(instrument).limited(limit_items)
    labels = contexts or ["no_conv"]
    if len(set(labels)) != len(labels):
        raise InputError(f"--contexts lists a context twice: {labels}")
    ctxs = [load_context(c, len(personas)) for c in labels]
    if answer_mode == "logprob" and spec.max_top_logprobs < len(inst.options):
        raise InputError(f"model {spec.name} returns at most {spec.max_top_logprobs} top logprobs; use --answer-mode text")
    return ValuesPlan(
        population=str(population), personas=personas, instrument=inst, contexts=ctxs, messages=messages,
        answer_mode=answer_mode, samples=samples, seed=seed, prefix_reuse=prefix_reuse,
        top_logprobs=min(200, spec.max_top_logprobs), params=spec.params | (params or {}),
    )


def _n_calls(plan: dict[str, Any]) -> int:
    return ValuesPlan.model_validate(plan).n_calls()


def _session(plan: dict[str, Any], executor: Executor, store: Store, run_id: str, spec: ModelSpec) -> ValuesSession:
    return ValuesSession(ValuesPlan.model_validate(plan), executor, store, run_id, spec)


register_method(MethodRunner("values", _n_calls, _session))
