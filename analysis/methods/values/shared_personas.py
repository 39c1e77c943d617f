"""The values method's part of a cross-method campaign: the PVQ given to a shared persona set."""

from __future__ import annotations

from typing import Any

from analysis.llm.specs import ModelSpec
from analysis.methods.values.options import ValuesOptions
from analysis.methods.values.populations import Persona


def persona_plan(options: ValuesOptions, personas: list[Any], spec: ModelSpec,
                 constructs: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A values plan for exactly ``personas`` (``analysis.persona_scores.CampaignPersona``), numbered 0.. in their
    order, on the options' instrument and contexts (default: the PVQ in the no-conversation context, the campaign's
    protocol); the population is named ``campaign``. ``constructs`` (the values the campaign's pairs name) changes
    nothing: a value is the PVQ's narrowest scale, the unit ``limit_items`` deliberately samples (as an inventory's
    domain is; only a facet is asked whole)."""
    from analysis.methods.values.plan import answer_mode_of, build_values_plan, protocol_of

    people = [Persona(id=i, name=p.name, description=p.description, gender=p.sex) for i, p in enumerate(personas)]
    return build_values_plan(spec, population="campaign", personas=people, contexts=options.contexts or ["no_conv"],
                             instrument=options.instrument, limit_items=options.limit_items,
                             answer_mode=answer_mode_of(options), **protocol_of(options)).model_dump()
