"""A campaign's plan: the persona set and, per method, the plan its own ``persona_plan`` builds for those personas
(each method keeps its own protocol; the campaign shares only the personas, and tells each part which of its constructs
the pairs name, so a part that asks a subset of its items still asks every item of those)."""

from __future__ import annotations

import typing
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.methods.cross_method.options import CrossMethodOptions
from analysis.methods.cross_method.pairs import Pair, load_pairs
from analysis.methods.cross_method.personas import load_personas
from analysis.persona_scores import CampaignPersona


class Part(BaseModel):
    method: str
    settings: dict[str, Any] = Field(default_factory=dict, description="the method options the campaign set")
    plan: dict[str, Any]


class CampaignPlan(BaseModel):
    method: Literal["cross_method"] = "cross_method"
    personas: list[CampaignPersona]
    parts: list[Part]

    def n_calls(self) -> int:
        from analysis import methods

        return sum(methods.get(p.method).n_calls(p.plan) for p in self.parts)


def campaign_methods() -> list[str]:
    """Every method that takes a shared persona set (``Method.persona_plan``), in display order."""
    from analysis import methods

    return [m.name for m in methods.all_methods() if m.persona_plan is not None]


def parse_settings(entries: list[str] | None, chosen: list[str]) -> dict[str, dict[str, Any]]:
    """``METHOD.FIELD=VALUE`` entries as {method: {field: value}}; a list field's value splits on '+'."""
    from analysis import methods

    out: dict[str, dict[str, Any]] = {}
    for entry in entries or []:
        target, eq, value = entry.partition("=")
        method, dot, name = target.strip().partition(".")
        if not eq or not dot or not name:
            raise InputError(f"--set {entry!r}: write METHOD.FIELD=VALUE, e.g. inventory.limit_items=20")
        if method not in chosen:
            raise InputError(f"--set {entry!r}: '{method}' is not a method of this campaign ({', '.join(chosen)})")
        fields = methods.get(method).options.model_fields
        if name not in fields:
            raise InputError(f"--set {entry!r}: {method} has no option '{name}' (see run {method} --help)")
        kind = fields[name].annotation
        is_list = typing.get_origin(kind) is list or any(typing.get_origin(a) is list for a in typing.get_args(kind))
        out.setdefault(method, {})[name] = [v.strip() for v in value.split("+")] if is_list else value.strip()
    return out


def named_constructs(pairs: list[Pair]) -> dict[str, frozenset[str]]:
    """{method: the constructs of it the pairs name}: each part asks every item they rest on."""
    named: dict[str, set[str]] = {}
    for pair in pairs:
        for side in (pair.a, pair.b):
            method, construct = side.split(":", 1)
            named.setdefault(method, set()).add(construct)
    return {m: frozenset(c) for m, c in named.items()}


def build_plan(options: CrossMethodOptions, spec: ModelSpec) -> CampaignPlan:
    """Resolve the personas and every method's plan now, so the stored plan is self-contained."""
    from analysis import methods

    available = campaign_methods()
    chosen = options.methods or available
    unknown = [m for m in chosen if m not in available]
    if unknown:
        raise InputError(f"--methods: {', '.join(unknown)} cannot take a shared persona set; use {', '.join(available)}")
    if len(set(chosen)) != len(chosen) or len(chosen) < 2:
        raise InputError(f"--methods {','.join(chosen)}: a campaign needs two or more distinct methods")
    personas = load_personas(options.personas)
    settings = parse_settings(options.set, chosen)
    chosen_options = {}
    for name in chosen:  # every option checked before any plan is built (a plan builder may print a note)
        try:
            chosen_options[name] = methods.get(name).options.model_validate(settings.get(name, {}))
        except ValidationError as exc:
            err = exc.errors()[0]
            raise InputError(f"--set {name}.{'.'.join(map(str, err['loc']))}: {err['msg']}") from None
    named = named_constructs(load_pairs().pairs)
    parts = [Part(method=name, settings=settings.get(name, {}),
                  plan=methods.get(name).persona_plan(chosen_options[name], personas, spec, named.get(name, frozenset())))
             for name in chosen]
    return CampaignPlan(personas=personas, parts=parts)


def plans(args: Any, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    """``Method.plans``: one campaign run (its parts are runs of the other methods)."""
    from analysis.methods.options import from_args

    options = args if isinstance(args, CrossMethodOptions) else from_args(CrossMethodOptions, args)
    return [("", build_plan(options, spec).model_dump())]


def waves(plan: dict[str, Any]) -> int:
    """``Method.waves``: the parts run one after another, so their waves add up."""
    from analysis import methods

    total = 0
    for part in CampaignPlan.model_validate(plan).parts:
        hook = methods.get(part.method).waves
        total += hook(part.plan) if hook is not None else 0
    return total


def n_calls(plan: dict[str, Any]) -> int:
    """``Method.n_calls``: the calls of every part."""
    return CampaignPlan.model_validate(plan).n_calls()


def tokens(plan: dict[str, Any]) -> tuple[float, float] | str:
    """``Method.tokens``: the parts' modelled tokens summed; a part that cannot be modelled makes the whole unmodelled
    (its reason)."""
    from analysis import methods

    total_in = total_out = 0.0
    for part in CampaignPlan.model_validate(plan).parts:
        modelled = methods.get(part.method).tokens(part.plan)
        if isinstance(modelled, str):
            return f"{part.method}: {modelled}"
        total_in, total_out = total_in + modelled[0], total_out + modelled[1]
    return total_in, total_out


def parts(plan: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``Method.parts``: (method, plan) of each run the campaign makes."""
    return [(part.method, part.plan) for part in CampaignPlan.model_validate(plan).parts]
