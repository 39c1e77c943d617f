"""Cached reads of the PersonaGym report and answers that its pages draw (``app.data``'s conventions: each function takes
a ``StoreRef`` so it is recomputed exactly when the store changes; nothing here computes a metric)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from app.data import CACHE, has_rows, published, report, table
from app.stores import StoreRef

def personagym_doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "personagym")


PAPER_SUFFIX = " · paper Table 1"


@st.cache_data(**CACHE)
def personagym_published(ref: StoreRef) -> dict[str, dict[str, Any]]:
    """Published PersonaGym scores: those imported into the store, and the paper's Table 1 bundled with RoleScope
    (named '<model> · paper Table 1'); each ``{"tasks", "persona_score", "source"}``."""
    out = {name: {**d, "source": "imported"} for name, d in (personagym_doc(ref).get("published") or {}).items()}
    rows = published("personagym")
    for name, group in rows.groupby("model", sort=False):
        by = dict(zip(group["metric"], group["value"]))
        out[name + PAPER_SUFFIX] = {"tasks": {k.split("/", 1)[1]: v for k, v in by.items() if k.startswith("task/")},
                                    "persona_score": by.get("persona_score"), "consistent": True,
                                    "source": group["source"].iloc[0]}
    return out


def personagym_models(ref: StoreRef) -> list[str]:
    tables = ("personagym_questions", "personagym_answers", "personagym_grades", "personagym_published")
    return sorted(personagym_doc(ref)["models"]) if any(has_rows(ref, t) for t in tables) else []


@st.cache_data(**CACHE)
def personagym_persona(ref: StoreRef, model: str, persona: str) -> pd.DataFrame:
    """One persona's questions, answers and grades (one row per task x question x evaluator)."""
    used = [c for c in (personagym_doc(ref)["models"].get(model) or {}).get("configurations", []) if c["used"]]
    runs_used = set(used[0]["runs"]) if used else set()
    answers = table(ref, "personagym_answers")
    grades = table(ref, "personagym_grades")
    answers, grades = answers[answers["run_id"].isin(runs_used)], grades[grades["run_id"].isin(runs_used)]
    a = answers[(answers["model"] == model) & (answers["persona"] == persona)]
    g = grades[(grades["model"] == model) & (grades["persona"] == persona)]
    keys = ["run_id", "task", "q_index"]
    cols = [*keys, "question", "answer", "status", "refusal", "truncated", "reason", "cache_key"]
    gcols = [*keys, "evaluator", "score", "status", "raw", "n_examples"]
    out = a[[c for c in cols if c in a]].merge(
        g[[c for c in gcols if c in g]].rename(columns={"status": "grade_status", "raw": "grader_reply"}),
        on=keys, how="left")
    from analysis.methods.personagym.report_types import TASKS

    order = {t: i for i, t in enumerate(TASKS)}
    return out.sort_values(["task", "q_index"], key=lambda s: s.map(order) if s.name == "task" else s).reset_index(drop=True)
