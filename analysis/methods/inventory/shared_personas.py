"""The inventory's part of a cross-method campaign: the inventory given to a shared persona set, unshaped."""

from __future__ import annotations

from typing import Any

from analysis.llm.specs import ModelSpec
from analysis.methods.inventory.options import InventoryOptions
from analysis.methods.inventory.personas import Persona


def persona_plan(options: InventoryOptions, personas: list[Any], spec: ModelSpec,
                 constructs: frozenset[str] = frozenset()) -> dict[str, Any]:
    """An inventory plan for exactly ``personas`` (``analysis.persona_scores.CampaignPersona``): each persona's
    description is its biography, with no shaping sentence (the campaign measures the persona as described), and its
    sex and age select the norms. Under ``limit_items`` every item of a facet in ``constructs`` (the ones the
    campaign's pairs name) is asked too, so a facet a pair correlates rests on its whole scale."""
    from analysis.methods.inventory.plan import build_plan

    people = [Persona(id=p.id, description=p.description, sex=p.sex, age=p.age) for p in personas]
    return build_plan(options.model_copy(update={"shaping": "none"}), spec, personas=people,
                      whole_facets=constructs).model_dump()
