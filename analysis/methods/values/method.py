"""The values method's declaration: its registration as 'values', each hook a function of its modules named by import
string (``analysis.hooks.Hook``, imported on first call). Plans are built in ``analysis.methods.values.plan``."""

from __future__ import annotations

from analysis.hooks import Hook
from analysis.methods.base import BundledImport, Headline, Method
from analysis.methods.values import questionnaire  # noqa: F401 - registers the method's tables in the store's schema
from analysis.methods.values.families import FAMILY
from analysis.methods.values.options import ValuesOptions
from analysis.methods.values.published import PUBLISHED
from analysis.methods.values.readers import READERS

M = "analysis.methods.values"

METHOD = Method(
    name="values", title="Values (Stick to Your Role!)", label="Values", order=1,
    tables=("values_answers",),
    sources=("analysis/methods/base.py", "analysis/persona_scores.py", "analysis/runs/comparable.py",
             "analysis/reliability.py", "analysis/chance.py", "analysis/stats.py"),
    help="value questionnaires (Stick to Your Role!)",
    options=ValuesOptions,
    plans=Hook(f"{M}.cli:plans_from_args"),
    n_calls=Hook(f"{M}.questionnaire:n_calls"),
    waves=Hook(f"{M}.questionnaire:waves"),
    tokens=Hook(f"{M}.tokens:tokens"),
    session=Hook(f"{M}.questionnaire:build_session"),
    report=Hook(f"{M}.metrics:report"),
    figures=Hook(f"{M}.figures:report_figures"),
    chance=Hook(f"{M}.report_types:chance_bands"),
    can_show=Hook(f"{M}.can_show:can_show"),
    compare=Hook(f"{M}.compare:compare_sides"),
    report_model=Hook(f"{M}.report_types:ValuesReport"),
    answers=Hook(f"{M}.answers:answers"),
    gaps=Hook(f"{M}.compare:where_they_differ"),
    part_chance=Hook(f"{M}.fit_chance:cached_fit_chance"),
    leaderboard=Hook(f"{M}.board:leaderboard"),
    samples=Hook(f"{M}.samples:samples"),
    persona_plan=Hook(f"{M}.shared_personas:persona_plan"),
    families=(FAMILY,),
    published=PUBLISHED,
    readers=READERS,
    importers=("value-stability", "lee-values"), run_import=Hook(f"{M}.cli:import_command"),
    bundled_imports=(BundledImport("lee-values", "lee_values", Hook(f"{M}.import_lee:load_bundled")),),
    headlines=(Headline("values_cardinal", "Values: Cardinal score ↑"),
               Headline("values_rank_order", "Values: rank-order stability ↑",
                        null=lambda band, entry: band.get("rank_order"),
                        ci=lambda doc: (doc.get("ci") or {}).get("rank_order"))),
)
