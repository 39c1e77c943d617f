"""What a PersonaGym sample adds under its parsed answer: an answer's grades with each judge's rationale, a grade's
question and the answer it graded."""

from __future__ import annotations

from typing import Any

import streamlit as st

from app import data, ui
from app.stores import StoreRef


def graded(ref: StoreRef, table: str, row: Any) -> None:
    """Under an answer, its grades (score and the judge's whole reply); under a grade, the answer it read."""
    if table not in ("personagym_answers", "personagym_grades"):
        return
    same = ("run_id", "persona_id", "task", "q_index")
    if table == "personagym_answers" and data.has_rows(ref, "personagym_grades"):
        grades = data.table(ref, "personagym_grades")
        for k in same:
            grades = grades[grades[k].astype(str) == str(row[k])]
        st.markdown(f"**Its grades** ({len(grades)})")
        for g in grades.itertuples():
            with st.expander(f"Judge {ui.plain(g.evaluator)}: score {ui.fmt(g.score, 0)}" +
                             ("" if g.status == "ok" else f" · {ui.plain(g.reason)}")):
                st.text(g.raw or "(no reply stored)")
    elif table == "personagym_grades" and data.has_rows(ref, "personagym_answers"):
        answers = data.table(ref, "personagym_answers")
        for k in same:
            answers = answers[answers[k].astype(str) == str(row[k])]
        for a in answers.head(1).itertuples():
            st.markdown("**The question**")
            st.text(a.question or "")
            st.markdown("**The answer graded**")
            st.text(a.answer or "(no answer stored)")
