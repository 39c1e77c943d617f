"""What a values row from outside (a report file) must hold beyond its column types (``Table.rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.methods.values.instruments import PVQ_SCORES, SCORE_RANGE, SVS_SCORES
from analysis.runs.row_checks import first_broken, flags, within

#: The scale of an instrument a plan names without its options (an import's plan): PVQ 1..6, SVS -1..7.
NAMED_SCALES = {"pvq": (min(PVQ_SCORES), max(PVQ_SCORES)), "svs": (min(SVS_SCORES), max(SVS_SCORES))}


def scale_of(plan: Any, named: Any = None) -> tuple[float, float]:
    """The lowest and highest score of the run's instrument: its options' scores (a run's plan holds the
    instrument), the PVQ or SVS scale (an import's plan, or the answer row, ``named``, names it), else the widest scale
    an instrument may have."""
    instrument = plan.get("instrument") if isinstance(plan, Mapping) else None
    if isinstance(instrument, Mapping) and instrument.get("options"):
        scores = [float(o["score"]) for o in instrument["options"]]
        return min(scores), max(scores)
    name = str(instrument or named or "").lower()
    return next((scale for prefix, scale in NAMED_SCALES.items() if name.startswith(prefix)), SCORE_RANGE)


def answer_rules(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """``valid`` is 0 or 1; a score lies within its instrument's scale (a logprob answer's expectation too)."""
    return first_broken(flags(row, "valid"), within(row, "score", *scale_of(run.get("plan"), row["instrument"]),
                                                     "the instrument's scale"))


def conversation_rules(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """A turn is numbered from 0; ``valid`` is 0 or 1."""
    return first_broken(flags(row, "valid"), within(row, "turn", 0, float("inf"), "turns"))
