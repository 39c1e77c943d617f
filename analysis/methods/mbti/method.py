"""The MBTI method's declaration: its registration as 'mbti', each hook a function of its modules named by import
string (``analysis.hooks.Hook``, imported on first call). Plans are built in ``analysis.methods.mbti.plan``."""

from __future__ import annotations

from analysis.hooks import Hook
from analysis.methods.base import BundledImport, Headline, Method
from analysis.methods.mbti import session  # noqa: F401 - registers the method's table in the store's schema
from analysis.methods.mbti.families import FAMILY
from analysis.methods.mbti.options import MbtiOptions
from analysis.methods.mbti.readers import READERS

M = "analysis.methods.mbti"

METHOD = Method(
    name="mbti", title="MBTI", label="MBTI", order=2,
    tables=("mbti_answers",),
    sources=("analysis/methods/base.py", "analysis/runs/comparable.py", "analysis/reliability.py", "analysis/chance.py",
             "analysis/stats.py"),
    help="MBTI assessment of subjects (ChatGPT-MBTI)",
    options=MbtiOptions,
    plans=Hook(f"{M}.cli:plans"),
    n_calls=Hook(f"{M}.session:n_calls"),
    waves=Hook(f"{M}.session:waves"),
    tokens=Hook(f"{M}.tokens:tokens"),
    session=Hook(f"{M}.session:build_session"),
    report=Hook(f"{M}.report:report"),
    figures=Hook(f"{M}.figures:report_figures"),
    chance=Hook(f"{M}.report_types:chance_bands"),
    can_show=Hook(f"{M}.can_show:can_show"),
    compare=Hook(f"{M}.report:compare_sides"),
    report_model=Hook(f"{M}.report_types:MbtiReport"),
    answers=Hook(f"{M}.answers:answers"),
    gaps=Hook(f"{M}.report:where_they_differ"),
    samples=Hook(f"{M}.samples:samples"),
    families=(FAMILY,),
    readers=READERS,
    importers=("chatgpt-mbti",), run_import=Hook(f"{M}.cli:import_command"),
    bundled_imports=(BundledImport("chatgpt-mbti", "chatgpt_mbti", Hook(f"{M}.importer:load_bundled")),),
    headlines=(Headline("mbti_consistency", "MBTI: consistency ↑",
                        null=lambda band, entry: (band.get("metrics") or {}).get("consistency")),
               # defined on a single testing (the published answers): how much of each type the answers support
               # (analysis.methods.mbti.uncertainty); it measures decisiveness, not accuracy
               Headline("mbti_decided", "MBTI: letters decided (of 4 per subject)")),
)
