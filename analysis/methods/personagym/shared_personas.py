"""PersonaGym's part of a cross-method campaign: environments, questions and graded answers for a shared persona set."""

from __future__ import annotations

from typing import Any

from analysis.llm.specs import ModelSpec
from analysis.methods.personagym.data import Persona
from analysis.methods.personagym.options import PersonaGymOptions


def persona_plan(options: PersonaGymOptions, personas: list[Any], spec: ModelSpec,
                 constructs: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A PersonaGym plan (the reference protocol, generated questions) for exactly ``personas``
    (``analysis.persona_scores.CampaignPersona``), each played as its description."""
    from analysis.methods.personagym.cli import plan_from_args
    from analysis.methods.personagym.session import PersonaGymPlan, plan_json

    plan = plan_from_args(options.model_copy(update={"questions": None, "persona_ids": None, "limit_personas": 1}), spec)
    plan["personas"] = [Persona(id=p.id, description=p.description).model_dump() for p in personas]
    return plan_json(PersonaGymPlan.model_validate(plan))
