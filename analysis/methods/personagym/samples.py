"""PersonaGym's replies as samples (``analysis.samples``): every stage's reply, the graded ones scored.

Kinds: "environments" (the generator's pick per persona), "questions" (its questions per task), "answer" (the persona
model's reply to a question), "rubric examples" (the examples written for a rubric) and "grade" (a judge's score and
rationale: the PersonaScore reads these)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis.samples import build, concat, finish_reasons


def _ok(r: pd.DataFrame) -> pd.Series:
    return r["status"] == "ok"


def _question(r: pd.DataFrame) -> pd.Series:
    return r["task"].astype(str) + " · q" + r["q_index"].astype(str)


def _blank(r: pd.DataFrame) -> pd.Series:
    return pd.Series("", index=r.index)


def samples(store, run_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Each stored reply of a PersonaGym run, by stage."""
    finish = finish_reasons(store, run_ids)
    out = []
    table = store.table("personagym_environments", run_ids)
    if len(table):
        out.append(build(table, method="personagym", kind="environments", table="personagym_environments",
                         key=("run_id", "persona_id", "attempt"), persona_id="persona_id", persona="persona",
                         item=lambda r: pd.Series("environments", index=r.index),
                         context=lambda r: "attempt " + r["attempt"].astype(str), parsed="selected", reply="raw",
                         valid=_ok, scored=False, finish=finish))
    table = store.table("personagym_generations", run_ids)
    if len(table):
        out.append(build(table, method="personagym", kind="questions", table="personagym_generations",
                         key=("run_id", "persona_id", "task", "attempt"), persona_id="persona_id", persona="persona",
                         item="task", context=lambda r: "attempt " + r["attempt"].astype(str),
                         parsed=lambda r: r["n_new"].map(lambda n: f"{n:g} new question(s)" if pd.notna(n) else None),
                         reply="raw", valid=_ok, scored=False, finish=finish))
    table = store.table("personagym_answers", run_ids)
    if len(table):
        out.append(build(table, method="personagym", kind="answer", table="personagym_answers",
                         key=("run_id", "persona_id", "task", "q_index"), persona_id="persona_id", persona="persona",
                         item=_question, context=_blank,
                         parsed=lambda r: r["refusal"].map(lambda x: "refusal" if x == 1 else "answered"),
                         reply="answer", valid=_ok, scored=False, truncated="truncated", refusal="refusal"))
    table = store.table("personagym_examples", run_ids)
    if len(table):
        out.append(build(table, method="personagym", kind="rubric examples", table="personagym_examples",
                         key=("run_id", "persona_id", "task", "q_index", "attempt"), persona_id="persona_id",
                         persona="persona", item=_question, context=lambda r: "attempt " + r["attempt"].astype(str),
                         parsed=lambda r: r["n_examples"].map(lambda n: f"{n:g} example(s)" if pd.notna(n) else None),
                         reply="raw", valid=_ok, scored=False, finish=finish))
    table = store.table("personagym_grades", run_ids)
    if len(table):
        out.append(build(table, method="personagym", kind="grade", table="personagym_grades",
                         key=("run_id", "persona_id", "task", "q_index", "evaluator"), persona_id="persona_id",
                         persona="persona", item=_question, context=lambda r: "judge " + r["evaluator"].astype(str),
                         parsed="score", reply="raw", valid=lambda r: _ok(r) & r["score"].notna(), scored=True,
                         finish=finish))
    return concat(out)
