"""Which PersonaGym runs pool (``analysis.runs.comparable``): personas are cells of one design. Imported PersonaGym
files are questions or published scores, never graded answers: they belong to no family."""

from analysis.runs.comparable import Family

FAMILY = Family("personagym", "personagym", frozenset({"personas"}), includes=lambda plan: not plan.get("imported"))
