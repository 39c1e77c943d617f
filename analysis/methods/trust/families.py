"""Which trust runs pool (``analysis.runs.comparable``), per level: a run belongs to the family of its level. Each
family's coverage includes the fields of the other level, which its runs carry but never use (forecasts are
individual, the population's answer form is population). Imported runs belong to both."""

from analysis.runs.comparable import Family

POPULATION = Family("trust", "population",
                    frozenset({"level", "attributes", "strategies", "conditioning", "archetypes", "rounds",
                               "play_knows_archetype", "forecast"}),
                    includes=lambda plan: bool(plan.get("imported")) or plan.get("level", "population") == "population")
INDIVIDUAL = Family("trust", "individual",
                    frozenset({"level", "attributes", "strategies", "conditioning", "condition_on", "archetypes",
                               "answer"}),
                    includes=lambda plan: bool(plan.get("imported")) or plan.get("level", "population") == "individual")
FAMILIES = (POPULATION, INDIVIDUAL)
