"""Building a values plan (``run values``, its leaderboard campaign, a cross-method campaign's part and the Run page
share it): ``build_values_plan`` resolves every source, ``protocol_of`` gives the protocol fields of the run options."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.methods.values.contexts import Context, load_context
from analysis.methods.values.instruments import load_instrument
from analysis.methods.values.options import ValuesOptions
from analysis.methods.values.populations import Persona, load_population
from analysis.methods.values.questionnaire import Structure, ValuesAnswerMode, ValuesPlan, derangement


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
    answer_mode: ValuesAnswerMode = "logprob",
    samples: int = 1,
    seed: int = 0,
    prefix_reuse: bool = False,
    params: dict[str, Any] | None = None,
    structure: Structure = "reference",
    persona_prompt: str = "reference",
    system_role: bool = True,
    svs_order: str = "sequential",
    conversation_temperature: float = 0.7,
    answer_temperature: float = 0.0,
    conversation_max_tokens: int = 100,
    interlocutor_files: dict[str, str | Path] | None = None,
    shared_openings: dict[str, str] | None = None,
    campaign: str | None = None,
    personas: list[Persona] | None = None,
    answer_format: str = "text",
    **lengths: int,
) -> ValuesPlan:
    """Resolve every source now, so the stored plan is self-contained. ``persona_ids`` picks personas of the
    population by id (in population order), before ``limit_personas``.

    The reference protocol is the default (see ``analysis.methods.values.questionnaire``). A model configuration's
    ``temperature`` and ``max_tokens`` do not apply: the protocol sets them per call kind
    (``conversation_temperature``, ``answer_temperature``, ``conversation_max_tokens`` and ``lengths``:
    ``text_max_tokens``, ``cot_max_tokens``, ``pick_max_tokens``). Shared-opening contexts (chess, grammar) pair
    every persona with another persona: the one ``interlocutor_files[label]`` gives (a reference
    ``interlocutors.json``, persona i talks with its entry i), else a seeded random derangement per context;
    ``shared_openings`` replaces their opening text (the reference's). ``campaign`` names the campaign a run belongs
    to (its runs differ in instrument by design, ``analysis.methods.values.campaign``). ``personas``: these instead of
    the population's (a cross-method campaign's; ``population`` then only names them). ``answer_format`` 'json':
    every answer and SVS pick as a JSON object constrained by its schema (text or cot answers, reference structure)."""
    if answer_format not in ("text", "json"):
        raise InputError(f"--answer-format '{answer_format}': use text or json")
    if answer_format == "json" and answer_mode == "logprob":
        raise InputError("--answer-format json asks for a JSON reply; --answer-mode logprob reads one token's logprobs "
                         "(use --answer-mode text or cot)")
    if answer_format == "json" and structure == "appended":
        raise InputError("--answer-format json goes with the reference structure, not --structure appended")
    personas = load_population(population) if personas is None else personas
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
    if not inst.keyed_items:  # (a loaded instrument has some: the first limit_items have none)
        raise InputError(f"instrument {instrument}: its first {limit_items} item(s) (--limit-items) are keyed to no "
                         "value; nothing could be scored")
    if contexts is not None and not contexts:
        raise InputError("--contexts names no context; give e.g. no_conv or a chunk .jsonl path")
    labels = contexts or ["no_conv"]
    if len(set(labels)) != len(labels):
        raise InputError(f"--contexts lists a context twice: {labels}")
    if not personas:
        raise InputError(f"population {population}: no persona chosen")
    empty = [label for label, text in (shared_openings or {}).items() if not isinstance(text, str) or not text.strip()]
    if empty:
        raise InputError(f"context {empty[0]}: its opening message is empty")
    ctxs = [load_context(c, max(p.id for p in personas) + 1) for c in labels]
    first_of: dict[str, str] = {}
    for source, ctx in zip(labels, ctxs):  # a context's answers are stored under its label (a chunk: its file name)
        if ctx.label in first_of:
            raise InputError(f"--contexts: {first_of[ctx.label]} and {source} are both context '{ctx.label}' (a chunk "
                             "is named by its file name); rename one of the files")
        first_of[ctx.label] = source
    ctxs = [c.model_copy(update={"openings": [shared_openings[c.label]]})
            if c.kind == "shared_opening" and c.label in (shared_openings or {}) else c for c in ctxs]
    ctxs = [_with_partners(ctx, personas, seed, (interlocutor_files or {}).get(ctx.label)) for ctx in ctxs]
    if answer_mode == "logprob" and spec.max_top_logprobs < len(inst.options):
        raise InputError(f"model {spec.name} returns at most {spec.max_top_logprobs} top logprobs; use --answer-mode text")
    if structure == "reference" and messages % 2 == 0:
        raise InputError(f"--messages {messages}: the reference conversation has an odd number of generated messages "
                         "(persona, interlocutor, persona...), so that the persona speaks last")
    merged = spec.params | (params or {})
    if structure == "reference":  # the protocol sets temperatures and lengths per call kind
        merged = {k: v for k, v in merged.items() if k not in ("temperature", "max_tokens")}
    try:
        return ValuesPlan(
            population=str(population), personas=personas, instrument=inst, contexts=ctxs, messages=messages,
            answer_mode=answer_mode, samples=samples, seed=seed, prefix_reuse=prefix_reuse,
            top_logprobs=min(200, spec.max_top_logprobs), params=merged, structure=structure,
            persona_prompt=persona_prompt, system_role=system_role, svs_order=svs_order,
            conversation_temperature=conversation_temperature, answer_temperature=answer_temperature,
            conversation_max_tokens=conversation_max_tokens, campaign=campaign, answer_format=answer_format, **lengths,
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        reason = err["msg"].removeprefix("Value error, ")
        raise InputError(f"values plan: {'.'.join(map(str, err['loc'])) or 'plan'}: {reason}") from None


def _with_partners(ctx: Context, personas: list[Persona], seed: int, interlocutors: str | Path | None) -> Context:
    """A shared-opening context with each persona's interlocutor persona fixed in the plan."""
    if ctx.interlocutor != "persona":
        if interlocutors is not None:
            raise InputError(f"context {ctx.label}: its interlocutor is a human user; interlocutors apply to chess, grammar")
        return ctx
    if interlocutors is not None:
        partners = load_population(interlocutors)
        missing = [p.id for p in personas if p.id >= len(partners)]
        if missing:
            raise InputError(f"interlocutors {interlocutors}: {len(partners)} entries, none for persona ids {missing}")
        chosen = [partners[p.id] for p in personas]
        same = [p.name for p, q in zip(personas, chosen) if p.name == q.name]
        if same:
            raise InputError(f"interlocutors {interlocutors}: {', '.join(same)} would talk with themselves")
    else:
        if len(personas) < 2:
            raise InputError(f"context {ctx.label}: the interlocutor is another persona of the population; "
                             "choose at least 2 personas")
        chosen = [personas[j] for j in derangement(len(personas), seed, ctx.label)]
    return ctx.model_copy(update={"partners": chosen})


def protocol_of(args: ValuesOptions) -> dict[str, Any]:
    """The protocol fields of a plan (everything but who answers what) from the options."""
    return dict(
        samples=args.samples, seed=args.seed, prefix_reuse=args.prefix_reuse, messages=args.messages,
        structure=args.structure, persona_prompt=args.persona_prompt, system_role=not args.no_system_role,
        svs_order=args.svs_order, conversation_temperature=args.conversation_temperature,
        answer_temperature=args.answer_temperature, conversation_max_tokens=args.conversation_max_tokens,
        answer_format=args.answer_format, **_answer_length(args),
    )


def answer_mode_of(args: ValuesOptions) -> ValuesAnswerMode:
    """The run's answer mode: the one given, else the campaign's cot, else text with ``--answer-format json`` (a JSON
    object is a text reply), else logprob."""
    return args.answer_mode or ("cot" if args.campaign else "text" if args.answer_format == "json" else "logprob")


def _answer_length(args: ValuesOptions) -> dict[str, int]:
    """``--answer-max-tokens`` as the plan's length of the run's answer mode (``text_max_tokens`` or
    ``cot_max_tokens``); nothing when not given. A logprob answer is one letter: the cap would do nothing there."""
    if args.answer_max_tokens is None:
        return {}
    mode = answer_mode_of(args)
    if mode == "logprob":
        raise InputError("--answer-max-tokens limits text and cot replies; a logprob answer is one letter (drop it, or "
                         "give --answer-mode text or cot)")
    return {f"{mode}_max_tokens": args.answer_max_tokens}
