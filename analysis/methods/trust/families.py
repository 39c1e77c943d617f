"""Which trust runs pool (``analysis.runs.comparable``), per level: a run belongs to the family of its level. Each
family's coverage includes the fields of the other level, which its runs carry but never use (forecasts are
individual, the population's answer form is population). Imported runs belong to the family of the level their plan
records (the agent-trust importer: population), and to both when it records none. ``persona_form`` (how a
GenAgents bank under the paper's set was sampled and described) is in the signature when set; a plan without one (a
generated bank, rolescope15) leaves it out, so those configurations are those of plans stored before the field."""

from collections.abc import Callable, Mapping
from typing import Any

from analysis.runs.comparable import Family


def _at(level: str) -> Callable[[Mapping[str, Any]], bool]:
    """A family's ``includes``: native runs of ``level``; imported runs of ``level``, or of no recorded level."""
    def includes(plan: Mapping[str, Any]) -> bool:
        if plan.get("imported") and "level" not in plan:
            return True
        return plan.get("level", "population") == level
    return includes


def _unset_form(plan: Mapping[str, Any]) -> frozenset[str]:
    return frozenset({"persona_form"}) if plan.get("persona_form") is None else frozenset()


POPULATION = Family("trust", "population",
                    frozenset({"level", "attributes", "strategies", "conditioning", "archetypes", "rounds",
                               "play_knows_archetype", "forecast"}),
                    includes=_at("population"),
                    more_coverage=_unset_form)
INDIVIDUAL = Family("trust", "individual",
                    frozenset({"level", "attributes", "strategies", "conditioning", "condition_on", "archetypes",
                               "answer"}),
                    includes=_at("individual"),
                    more_coverage=_unset_form)
FAMILIES = (POPULATION, INDIVIDUAL)
