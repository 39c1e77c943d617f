"""The trust game's part of a cross-method campaign: the individual level (the persona's own transfers), played by a
shared persona set."""

from __future__ import annotations

from typing import Any

from analysis.llm.specs import ModelSpec
from analysis.methods.trust.options import TrustOptions
from analysis.methods.trust.personas import Persona
from analysis.methods.trust.plan import TrustPlan


def persona_plan(options: TrustOptions, personas: list[Any], spec: ModelSpec,
                 constructs: frozenset[str] = frozenset()) -> dict[str, Any]:
    """An individual-level trust plan (multi-round play against the trustee archetypes, with the forecasts) for exactly
    ``personas`` (``analysis.persona_scores.CampaignPersona``): each plays as described, with no attributes (the
    population level's beliefs per attribute are not part of a campaign). The bank says ``source: campaign``."""
    from analysis.methods.trust.cli import plan_from_args

    plan = plan_from_args(options.model_copy(update={"level": "individual", "limit_personas": 1}), spec)
    plan["personas"] = [Persona(id=p.id, source="campaign", split="test", attributes={}, details={"name": p.name,
                                "age": p.age}, description=p.description).model_dump() for p in personas]
    plan["bank"] = {"source": "campaign", "split": "test", "n": len(personas)}
    return TrustPlan.model_validate(plan).model_dump()
