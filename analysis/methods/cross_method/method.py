"""The cross-method validity's declaration: its registration as 'cross_method' (``run cross-method`` on the command
line), each hook a function of its modules named by import string (``analysis.hooks.Hook``, imported on first call)."""

from __future__ import annotations

from analysis.hooks import Hook
from analysis.methods.base import Headline, Method
from analysis.methods.cross_method.families import FAMILY
from analysis.methods.cross_method.options import CrossMethodOptions

M = "analysis.methods.cross_method"

METHOD = Method(
    name="cross_method", title="Cross-method validity", label="Cross-method", order=6,
    tables=("cross_method_parts",),
    # its report reads every method's report: their folders are its sources
    sources=("analysis/methods", "analysis/persona_scores.py", "analysis/runs/comparable.py", "analysis/chance.py",
             "analysis/stats.py"),
    help="one persona set through every method that takes one, and whether the methods agree about each persona",
    options=CrossMethodOptions,
    plans=Hook(f"{M}.plan:plans"),
    n_calls=Hook(f"{M}.plan:n_calls"),
    waves=Hook(f"{M}.plan:waves"),
    tokens=Hook(f"{M}.plan:tokens"),
    parts=Hook(f"{M}.plan:parts"),
    session=Hook(f"{M}.session:build_session"),
    report=Hook(f"{M}.report:report"),
    figures=Hook(f"{M}.figures:report_figures"),
    report_model=Hook(f"{M}.report_types:CrossMethodReport"),
    chance=Hook(f"{M}.report_types:chance_bands"),
    can_show=Hook(f"{M}.can_show:can_show"),
    compare=Hook(f"{M}.compare:compare_cross"),
    samples=Hook(f"{M}.samples:samples"),
    families=(FAMILY,),
    headlines=(
        Headline("cross_convergent", "Cross-method: convergent r ↑",
                 null=lambda band, entry: band.get("convergent")),
        Headline("cross_pattern", "Cross-method: pattern r ↑", null=lambda band, entry: band.get("pattern")),
    ),
)
