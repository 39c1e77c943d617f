"""Comparing two PersonaGym models: PersonaScore on their shared personas with a paired bootstrap CI."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis import stats
from analysis.methods.base import Difference, difference, too_few_units
from analysis.methods.personagym import TASKS

N_BOOT = 1000


def _f(x: Any) -> float:
    return float("nan") if x is None else float(x)


def compare_personagym(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any], *, n_boot: int = N_BOOT,
                       seed: int = 0) -> list[Difference]:
    """PersonaScore of two models: mean over tasks of the per-task mean over shared personas, paired bootstrap
    over those personas (per-persona task scores from the metrics document)."""
    def frame(doc: Mapping[str, Any]) -> pd.DataFrame:
        rows = [{"persona_id": name, "task": task, "score": _f(score)}
                for name, p in (doc.get("personas") or {}).items() for task, score in (p.get("tasks") or {}).items()]
        return pd.DataFrame(rows, columns=["persona_id", "task", "score"]).dropna()

    def statistic(f: pd.DataFrame) -> float:  # as the headline: mean over the personas scored on all five tasks
        wide = f.pivot_table(index="persona_id", columns="task", values="score", aggfunc="mean")
        wide = wide.reindex(columns=list(TASKS)).dropna()
        return float(wide.mean(axis=1).mean()) if len(wide) else float("nan")

    fa, fb = frame(doc_a), frame(doc_b)
    shared = np.intersect1d(fa["persona_id"].unique(), fb["persona_id"].unique()) if len(fa) and len(fb) else np.array([])
    if shared.size >= 2:
        a, b = statistic(fa[fa["persona_id"].isin(shared)]), statistic(fb[fb["persona_id"].isin(shared)])
        if not math.isfinite(a - b):
            return []
        marks = [f"{side} is self-graded" for side, doc in (("A", doc_a), ("B", doc_b))
                 if (doc.get("self_graded") or {}).get("value")]
        mark = f"; {', '.join(marks)}" if marks else ""
        too_few = too_few_units(int(shared.size), "personas")
        # the headline itself when both were scored on exactly these personas (its report's units)
        key = "personagym_score" if set(shared) == set(fa["persona_id"]) == set(fb["persona_id"]) else None
        if too_few:
            return [difference("PersonaGym", "PersonaScore (shared personas)", a, b, note=too_few + mark, key=key)]
        ci = stats.paired_bootstrap_diff(fa, fb, statistic, by="persona_id", n_boot=n_boot, seed=seed)
        return [difference("PersonaGym", "PersonaScore (shared personas)", a, b, ci,
                           f"paired bootstrap over {shared.size} shared personas{mark}", key=key)]
    return []


def compare_sides(a: Any, b: Any, *, n_boot: int = 1000) -> list[Difference]:
    """``Method.compare``: PersonaScore and task scores with paired CIs over the personas both answered."""
    return compare_personagym(a.doc, b.doc, n_boot=n_boot)
