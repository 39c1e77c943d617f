"""Comparing two PersonaGym models: PersonaScore on their shared personas with a paired bootstrap CI."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis import stats
from analysis.methods.base import Difference, difference
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

    def statistic(f: pd.DataFrame) -> float:  # as PersonaScore: undefined unless every task has a score
        means = f.groupby("task")["score"].mean()
        return float(means.mean()) if len(means) == len(TASKS) else float("nan")

    fa, fb = frame(doc_a), frame(doc_b)
    shared = np.intersect1d(fa["persona_id"].unique(), fb["persona_id"].unique()) if len(fa) and len(fb) else np.array([])
    if shared.size >= 2:
        a, b = statistic(fa[fa["persona_id"].isin(shared)]), statistic(fb[fb["persona_id"].isin(shared)])
        if not math.isfinite(a - b):
            return []
        ci = stats.paired_bootstrap_diff(fa, fb, statistic, by="persona_id", n_boot=n_boot, seed=seed)
        return [difference("PersonaGym", "PersonaScore (shared personas)", a, b, ci,
                      f"paired bootstrap over {shared.size} shared personas")]
    return []
