"""Building a PersonaGym plan (``run personagym``, a cross-method campaign's part, the demo share it), and the judging
roles the agent's own model plays in a stored plan (``self_graded_roles``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec, parse_model_spec
from analysis.methods.personagym.data import (
    load_environments,
    load_judge_system,
    load_personas,
    load_rubrics,
    sample_personas,
)
from analysis.methods.personagym.session import AGENT_PARAMS, REFERENCE_MAX_TOKENS, PersonaGymPlan


def _spec(value: str | ModelSpec, what: str) -> ModelSpec:
    if isinstance(value, ModelSpec):
        return value
    try:
        return parse_model_spec(value)
    except InputError as exc:
        raise InputError(f"{what}: {exc}") from None


def build_personagym_plan(
    spec: ModelSpec,
    *,
    personas: str | int | Path = "all",
    questions: str | Path | None = None,
    questions_per_task: int = 10,
    evaluators: list[str | ModelSpec] | None = None,
    generator: str | ModelSpec | None = None,
    environments_per_persona: int | None = None,
    environments: str | Path = "default",
    rubrics: str | Path = "default",
    seed: int = 0,
    max_retries: int = 3,
    answer_max_tokens: int = REFERENCE_MAX_TOKENS,
    grade_without_examples: bool = True,
    examples_retries: int = 0,
    params: dict[str, Any] | None = None,
    persona_ids: list[str] | None = None,
    limit_personas: int | None = None,
    answer_format: str = "text",
    **limits: int,
) -> PersonaGymPlan:
    """Resolve every source now, so the stored plan is self-contained.

    ``personas``: all | N | PATH (see ``analysis.methods.personagym.data``). ``questions``: a question file or
    folder; its personas come with fixed questions (``personas`` N then samples N of them).
    ``evaluators``: model specs (default: the run's model). ``generator``: the model that picks
    environments and writes questions and score examples (default: the first evaluator).
    ``environments_per_persona``: None = the generator picks as many as it finds relevant (the reference); N = a cap.
    ``rubrics``: default | a rubrics JSON | a folder of rubric text files (the reference's ``rubrics/``); a folder's
    judge system prompt comes with it (the reference's ``prompts/rubric_grading/sys_prompt.txt``; ``load_judge_system``),
    else the judges get RoleScope's.
    ``params``: the agent's decoding over the reference's (temperature 0.9, top_p 0.9).
    ``persona_ids``: only these of the chosen personas (in their order); else ``limit_personas``: the first N.
    ``limits``: selection/question/examples/grade ``*_max_tokens`` overrides (default 3000, the reference's).
    """
    if questions_per_task < 1:
        raise InputError("--questions-per-task must be >= 1")
    if environments_per_persona is not None and environments_per_persona < 1:
        raise InputError("--environments-per-persona must be >= 1")
    if examples_retries < 0:
        raise InputError("--examples-retries must be >= 0")
    if max_retries < 0:
        raise InputError("--max-retries must be >= 0")
    if answer_max_tokens < 1:
        raise InputError("--max-tokens must be >= 1")
    if questions is not None:
        text = str(personas).strip()
        n = int(text) if text.isdigit() else None
        if n is None and text not in ("all", "default", "bundled"):
            raise InputError("--personas: give a number (a sample of the question files' personas) with --questions, not a file")
        chosen = sample_personas(load_personas(questions, seed), n, seed)
    else:
        chosen = load_personas(personas, seed)
    if persona_ids:
        wanted = set(map(str, persona_ids))
        missing = sorted(wanted - {p.id for p in chosen})
        if missing:
            raise InputError(f"--persona-ids: {', '.join(missing[:5])} not among the personas given")
        chosen = [p for p in chosen if p.id in wanted]
    elif limit_personas is not None:
        chosen = chosen[:limit_personas]
    envs = load_environments(environments)
    if environments_per_persona is not None and environments_per_persona > len(envs):
        raise InputError(f"--environments-per-persona {environments_per_persona}: the list has only {len(envs)} environments")
    evaluator_specs = [_spec(e, "--evaluators") for e in (evaluators or [])]
    names = [e.name for e in evaluator_specs]
    if len(set(names)) != len(names):
        raise InputError(f"--evaluators lists a model twice: {names}")
    generator_spec = _spec(generator, "--generator") if generator else (evaluator_specs[0] if evaluator_specs else None)
    unknown = set(limits) - {"selection_max_tokens", "question_max_tokens", "examples_max_tokens", "grade_max_tokens"}
    if unknown:
        raise InputError(f"unknown plan options: {sorted(unknown)}")
    loaded = load_rubrics(rubrics)
    judge = load_judge_system(rubrics)
    return PersonaGymPlan(
        personas=chosen, environments=envs, rubrics=loaded, questions_per_task=questions_per_task,
        environments_per_persona=environments_per_persona, max_retries=max_retries, seed=seed,
        generator=generator_spec.public_dict() if generator_spec and generator_spec != spec else None,
        evaluators=[e.public_dict() for e in evaluator_specs], agent_params=AGENT_PARAMS | (params or {}),
        answer_max_tokens=answer_max_tokens, grade_without_examples=grade_without_examples,
        examples_retries=examples_retries, answer_format=answer_format,
        **({"judge_system": judge[0], "judge_system_source": judge[1]} if judge else {}), **limits,
    )


def _identity(spec: dict[str, Any]) -> tuple[Any, ...]:
    """The model behind a public spec dict (backend, model, server), whatever its name or decoding."""
    return spec.get("backend"), spec.get("model"), spec.get("base_url") or None


def _same_model(judge: dict[str, Any] | str, agent: dict[str, Any]) -> bool:
    """Whether a plan's judge is the agent's model; a judge stored by name only (imported or older plans) is
    compared by name."""
    if isinstance(judge, str):
        return judge == agent.get("name")
    return _identity(judge) == _identity(agent)


def self_graded_roles(plan: dict[str, Any], agent: dict[str, Any]) -> list[str]:
    """The judging roles the agent's own model plays in a stored plan (``agent``: the run's public spec dict; the
    same backend, model and server count as the same model, whatever the name or decoding): "evaluator" (no
    --evaluators, or the agent's model among them) and "question generator" (no generator of its own, or the agent's
    model; personas with question files have no generated questions)."""
    roles = []
    if not plan.get("evaluators") or any(_same_model(e, agent) for e in plan["evaluators"]):
        roles.append("evaluator")
    generated = any(p.get("questions") is None for p in plan.get("personas", []))
    generator = plan.get("generator")
    if generated and (generator is None or _same_model(generator, agent)):
        roles.append("question generator")
    return roles
