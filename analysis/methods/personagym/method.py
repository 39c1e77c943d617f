"""The PersonaGym method's declaration: its registration as 'personagym', each hook a function of its modules named by
import string (``analysis.hooks.Hook``, imported on first call). Plans are built in ``analysis.methods.personagym.plan``."""

from __future__ import annotations

from analysis.hooks import Hook
from analysis.methods.base import Headline, Method
from analysis.methods.personagym import tables  # noqa: F401 - registers the method's tables in the store's schema
from analysis.methods.personagym.families import FAMILY
from analysis.methods.personagym.options import PersonaGymOptions
from analysis.methods.personagym.published import PUBLISHED
from analysis.methods.personagym.readers import READERS

M = "analysis.methods.personagym"

METHOD = Method(
    name="personagym", title="PersonaGym", label="PersonaGym", order=4,
    tables=("personagym_questions", "personagym_answers", "personagym_grades", "personagym_published"),
    sources=("analysis/methods/base.py", "analysis/persona_scores.py", "analysis/runs/comparable.py",
             "analysis/reliability.py", "analysis/chance.py"),
    help="PersonaGym: environments, questions, rubric grading, PersonaScore",
    options=PersonaGymOptions,
    plans=Hook(f"{M}.cli:plans"),
    n_calls=Hook(f"{M}.session:n_calls"),
    waves=Hook(f"{M}.session:waves"),
    tokens=Hook(f"{M}.session:tokens"),
    session=Hook(f"{M}.session:build_session"),
    report=Hook(f"{M}.cli:report"),
    figures=Hook(f"{M}.figures:report_figures"),
    report_model=Hook(f"{M}.report_types:PersonaGymReport"),
    chance=Hook(f"{M}.report_types:chance_bands"),
    can_show=Hook(f"{M}.can_show:can_show"),
    compare=Hook(f"{M}.compare:compare_sides"),
    samples=Hook(f"{M}.samples:samples"),
    persona_plan=Hook(f"{M}.shared_personas:persona_plan"),
    families=(FAMILY,),
    published=PUBLISHED,
    readers=READERS,
    importers=("personagym",), run_import=Hook(f"{M}.cli:import_command"),
    headlines=(Headline("personagym_score", "PersonaGym: PersonaScore ↑",
                        null=lambda band, entry: (band.get("metrics") or {}).get("persona_score")),),
)
