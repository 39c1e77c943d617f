"""PersonaGym: task scores and PersonaScore per model (with imported published scores), per-persona drill-down."""

import pandas as pd
import streamlit as st

from analysis.personagym import TASKS
from app import charts, data, state, ui

ctx = ui.context()
ref = ctx.ref
ui.header("PersonaGym", "Does the agent act like its persona in situations the persona would meet? For each persona an "
          "LLM picks relevant environments and writes questions for five tasks; the agent answers in character; "
          "evaluators grade each answer 1–5 against a rubric (Samuel et al. 2024).")

doc = data.personagym_doc(ref)
models = ctx.pick(data.personagym_models(ref))
published = sorted(doc.get("published") or {})
if not models and not published:
    ui.empty(f"No PersonaGym results in **{ref.name}**.",
             "Run it from a shell: `python -m analysis run personagym --model embedded --personas 3 --questions-per-task 2 "
             f"--store {ref.path}`, or import published scores on the **Data** page.")
    st.stop()

st.subheader("Task scores")
st.caption("Task score = mean over personas of the mean grade of their questions (invalid grades left out); "
           "PersonaScore = mean of the five tasks. Hatched bars: published scores imported from the paper's repository, "
           "never mixed with ours.")
shown_published = (state.multiselect("Published scores to show", published, key="published", default=published[:2])
                   if published else [])
ui.plot(charts.personagym_tasks(ref, tuple(models), tuple(shown_published)), key="tasks")
rows = [{"model": m, "source": "this store", "PersonaScore": doc["models"][m]["persona_score"], **doc["models"][m]["tasks"],
         "graded": doc["models"][m]["n_graded"], "invalid grades": doc["models"][m]["invalid"],
         "refusals": doc["models"][m]["refusals"]} for m in models]
rows += [{"model": p, "source": "published" + ("" if doc["published"][p].get("consistent") in (True, None) else
                                              " (PersonaScore ≠ mean of tasks)"),
          "PersonaScore": doc["published"][p]["persona_score"], **doc["published"][p]["tasks"]} for p in shown_published]
st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
             column_config={c: st.column_config.NumberColumn(c, format="%.2f") for c in ("PersonaScore", *TASKS)})

if not models:
    st.stop()
st.subheader("Per persona")
left, right = st.columns(2)
model = state.selectbox("Model", models, key="model", container=left)
ui.tiny_model_note([model], data.model_specs(ref))
mdoc = doc["models"][model]
personas = list(mdoc["personas"])
persona = state.selectbox("Persona", personas, key="persona", container=right)
pdoc = mdoc["personas"][persona]
m = st.columns(4)
m[0].metric("PersonaScore", ui.fmt(pdoc.get("persona_score"), 2))
m[1].metric("Graded answers", pdoc.get("n_graded", 0))
m[2].metric("Invalid grades", pdoc.get("invalid", 0))
m[3].metric("Refusals", pdoc.get("refusals", 0), help="Answers that step out of the persona (\"As an AI…\").")
st.dataframe(pd.DataFrame([{"task": t, "score": pdoc["tasks"].get(t), "model mean": mdoc["tasks"].get(t)} for t in TASKS]),
             hide_index=True, width="stretch",
             column_config={c: st.column_config.NumberColumn(c, format="%.2f") for c in ("score", "model mean")})

st.markdown("**Questions, answers and grades**")
qa = data.personagym_persona(ref, model, persona)
for task in [t for t in TASKS if t in set(qa["task"])]:
    sub = qa[qa["task"] == task]
    with st.expander(f"{task} · {sub['q_index'].nunique()} questions · mean grade {ui.fmt(pdoc['tasks'].get(task), 2)}"):
        for (q, question, answer), grades in sub.groupby(["q_index", "question", "answer"], sort=False, dropna=False):
            st.markdown(f"**Q{int(q) + 1}.** {question}")
            with st.chat_message("assistant"):
                st.text(answer if isinstance(answer, str) else "(no answer)")
            st.caption(" · ".join(f"{g.evaluator}: {ui.fmt(g.score, 0) if g.grade_status == 'ok' else g.grade_status}"
                                  for g in grades.itertuples() if isinstance(g.evaluator, str)) or "not graded")
