"""The options of a cross-method campaign (``run cross-method`` flags and the Run page's form)."""

from __future__ import annotations

from analysis.methods.options import Options, option
from analysis.methods.cross_method.personas import DEFAULT_N


def settings(text: str) -> list[str]:
    """``--set`` as a list: comma-separated ``METHOD.FIELD=VALUE`` entries (a list value joins its items with '+')."""
    return [part.strip() for part in text.split(",") if part.strip()]


class CrossMethodOptions(Options):
    personas: str = option(
        str(DEFAULT_N), "N: the first N of the 40 bundled personas (default 20) | PATH: a .json, .jsonl or .csv of "
                        "id, name, description, sex (F/M), age", metavar="N|FILE")
    methods: list[str] | None = option(
        None, "the methods to run (comma list; default every method that takes a shared persona set)")
    set: list[str] | None = option(
        None, "a method's own run option, METHOD.FIELD=VALUE, comma-separated; list values join with '+' (e.g. "
              "inventory.limit_items=20,trust.archetypes=1+3+5,personagym.questions_per_task=1)", parse=settings,
        metavar="M.F=V,...")
