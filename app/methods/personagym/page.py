"""PersonaGym: task scores and PersonaScore per model (with imported published scores), per-persona drill-down."""

import pandas as pd
import streamlit as st

from analysis.methods.personagym import figures as personagym_report_figures
from analysis.methods.personagym.report_types import (
    COLUMNS,
    TASKS,
    evaluator_frame,
    source_label,
    table1_frame,
)
from app import data, samples, state, ui
from app.methods.personagym import charts as personagym_charts
from app.methods.personagym import data as personagym_data

HINT = ("Run it on the **Run** page, or from a shell: `python -m analysis run personagym --model embedded --personas 3 "
        "--questions-per-task 2`; or import published scores on the **Data** page.")
ctx, models = ui.method_page(
    "personagym", "Does the agent act like its persona in situations the persona would meet? For each persona an LLM "
    "picks relevant environments and writes questions for five tasks; the agent answers in character; evaluators grade "
    "each answer 1–5 against a rubric (Samuel et al. 2024).", personagym_data.personagym_models,
    nothing="PersonaGym results", hint=HINT, allow_empty=True)  # published scores alone are shown too
ref = ctx.ref
doc = personagym_data.personagym_doc(ref)
published_scores = personagym_data.personagym_published(ref)
published = sorted(published_scores)
if not models and not published:
    ui.empty(f"No PersonaGym results in **{ref.name}**.", HINT)
    st.stop()

st.subheader("Task scores")
st.caption("Task score = mean over personas of the mean grade of their questions (invalid grades left out); "
           "PersonaScore = mean over the personas scored on all five tasks of their mean task score. A model marked "
           "'self-graded' graded its own answers (or wrote its own questions): its bars are not comparable with the "
           "published ones, judged by GPT-4o and LLaMA-3-70b. Hatched bars: published scores — imported from the paper's repository, "
           "or the paper's Table 1 bundled with RoleScope — never mixed with ours.")
default_published = [p for p in published if not p.endswith(personagym_data.PAPER_SUFFIX)][:2] or published[:2]
shown_published = (state.multiselect("Published scores to show", published, key="published", default=default_published)
                   if published else [])
with st.spinner(f"Simulating random grades on this design ({data.CHANCE_SIMS} sets; cached after)…"):
    bands = data.chance(ref, "personagym")
ui.plot(personagym_charts.personagym_tasks(ref, tuple(models), tuple(shown_published)), key="tasks")
def _chance(m: str) -> dict:
    return (((bands.get(m) or {}).get("metrics") or {}).get("persona_score")) or {}


rows = [{"model": m, "source": source_label(doc, m), "PersonaScore ↑": doc["models"][m]["persona_score"],
         "vs chance (random grades)": ui.vs_chance(_chance(m)), **doc["models"][m]["tasks"],
         "graded": doc["models"][m]["n_graded"], "invalid grades": doc["models"][m]["invalid"],
         "refusals": doc["models"][m]["refusals"], "not asked": doc["models"][m].get("shortfall"),
         "cut at the length limit": doc["models"][m].get("truncated"),
         "graded with incomplete examples": doc["models"][m].get("graded_incomplete_examples"),
         "self-graded": ", ".join(((doc["models"][m].get("self_graded") or {}).get("roles")) or []) or "no"}
        for m in models]
rows += [{"model": p, "source": "published" + ("" if published_scores[p].get("consistent") in (True, None) else
                                              " (PersonaScore ≠ mean of tasks)"),
          "PersonaScore ↑": published_scores[p]["persona_score"], "vs chance (random grades)": "",
          **published_scores[p]["tasks"]} for p in shown_published]
ui.table(pd.DataFrame(rows), hide_index=True, width="stretch",
             column_config={c: st.column_config.NumberColumn(c, format="%.2f") for c in ("PersonaScore ↑", *TASKS)})
for m in models:
    mdoc_ = doc["models"][m]
    grades = ((bands.get(m) or {}).get("grades")) or {}
    shares = grades.get("shares") or {}
    judges = mdoc_.get("judges") or {}
    st.caption(
        f"**{m}** — chance: {ui.chance_text(_chance(m), 2)}. Grades given: "
        + (", ".join(f"{g}: {100 * v:.0f} %" for g, v in shares.items()) + f" (n = {grades.get('n')}; uniform would be "
           f"20 % each, χ² p = {ui.fmt(grades.get('p'), 3)})" if shares else "none valid")
        + f". Judges: {', '.join(judges.get('evaluators') or []) or '—'}; agreement ICC(2,1) "
        + (ui.fmt(judges.get("icc2"), 2) + f" over {judges.get('n_answers')} answers" if judges.get("icc2") is not None
           else f"— ({judges.get('reason') or 'undefined'})")
        + (". By evaluator: " + "; ".join(f"{ev}: {ui.fmt(d.get('persona_score'), 2)}"
                                         for ev, d in (mdoc_.get("by_evaluator") or {}).items())
           if len(mdoc_.get("by_evaluator") or {}) > 1 else "") + ".")
for m in models:
    roles = (doc["models"][m].get("self_graded") or {}).get("roles") or []
    if roles:
        st.warning(f"**{m}** is self-graded: the agent is also the {' and the '.join(roles)}. The paper judges with "
                   "other models (GPT-4o writes the questions; GPT-4o and LLaMA-3-70b grade); give `--evaluators` / "
                   "`--generator` to do the same.")
truncated = {m: doc["models"][m].get("truncated") or 0 for m in models}
if any(truncated.values()):
    st.caption("Answers cut at the length limit (flagged, still graded): " + "; ".join(
        f"{m}: {n} of {doc['models'][m]['n_answers']}" for m, n in truncated.items()) + ".")

st.subheader("Table 1 — mean (SD over personas)")
st.caption("As the paper's Table 1: per task, the mean over personas of each persona's mean grade, with the standard "
           "deviation over personas (ddof 1) in parentheses; PersonaScore: mean and SD over the same personas, those "
           "scored on all five tasks ('personas'). The paper's rows: 200 personas, 10 questions per task, "
           "GPT-4o and LLaMA-3-70b as judges. 'spread' closes each group, as the paper's last row: max − min of the "
           "models' means.")
paper_rows = list(((doc.get("table1") or {}).get("paper") or {}).get("models") or {})
ui.table(table1_frame(doc, models, paper_rows), hide_index=True, width="stretch")

st.subheader("Fig. 4 — refusals per model")
st.caption("Answers that decline to play the persona (\"As an AI…\", \"I don't have personal experiences\"), counted per "
           "model as in the paper's Fig. 4, drawn as the share of the model's answers (the bar says how many of how "
           "many); they are graded like any other answer.")
refusals = personagym_report_figures.refusals(doc, models)
if refusals is not None:
    ui.plot(refusals, key="refusals")
tables = {m: doc["models"][m]["role_table"] for m in models if doc["models"][m].get("role_table")}
if tables:
    st.caption("Stepping out of the role is not the same as declining in character: a persona may decline a question "
               "as itself (\"I won't discuss that, I'm a retired judge\") and stay in its role. Each model's answers, "
               "2 × 2 (the rule: docs/methods/personagym.md, Refusals).")
    ui.table(pd.DataFrame([{"model": m, "role": role.replace("_", " "), "declines": cell["declines"],
                            "answers": cell["answers"]}
                           for m, table in tables.items() for role, cell in table.items()]),
             hide_index=True, width="stretch")

judged = [m for m in models if len(doc["models"][m].get("by_evaluator") or {}) > 1]
if judged:
    st.subheader("Judges")
    st.caption("Each evaluator's task scores and PersonaScore; their agreement is ICC(2,1) (Shrout & Fleiss 1979: "
               "two-way random effects, absolute agreement, single rater: (MS_R − MS_E) / (MS_R + (k−1)·MS_E + "
               "k·(MS_C − MS_E)/n), n answers × k evaluators) over the answers every evaluator graded validly.")
    for m in judged:
        judges = doc["models"][m].get("judges") or {}
        st.markdown(f"**{m}** — ICC(2,1) " + (f"{ui.fmt(judges.get('icc2'), 2)} over {judges.get('n_answers')} answers"
                                                if judges.get("icc2") is not None else f"— ({judges.get('reason')})"))
        ui.table(evaluator_frame(doc["models"][m]), hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(c, format="%.2f") for c in COLUMNS})

without = (doc.get("judges") or {}).get("without") or {}
if without:
    st.caption("Ranking with every judge: " + " > ".join(doc["judges"]["all"]) + " · without one judge: " + "; ".join(
        f"without {ev}: {' > '.join(d['ranking'])}" + (" (changed)" if d["changed"] else "") for ev, d in without.items()))

if not models:
    st.stop()
st.subheader("Per persona")
left, right = st.columns(2)
model = state.selectbox("Model", models, key="model", container=left)
ui.model_notes([model], data.model_specs(ref))
mdoc = doc["models"][model]
personas = list(mdoc["personas"])
if not personas:
    ui.empty(f"{model} answered no question in this configuration.",
             f"{mdoc.get('shortfall') or 0} questions were not asked or came out short: the question generator found no "
             "usable environment or question for its personas. The **Data** page lists each reply with its reason "
             "(tables `personagym_environments`, `personagym_questions`).")
    st.stop()


def judge(row: pd.Series) -> None:
    """Beside a PersonaGym sample: its question, and the judge's grade with the judge's reply (the rationale)."""
    st.markdown(f"**Q{int(row['q_index']) + 1}.** {ui.plain(row['question'])}")
    if not isinstance(row.get("evaluator"), str):
        st.caption("Not graded.")
        return
    grade = ui.fmt(row["score"], 0) if row.get("grade_status") == "ok" else row.get("grade_status")
    st.markdown(f"**Judge {ui.plain(row['evaluator'])}: {ui.plain(grade)}**")
    st.text(row.get("grader_reply") or "(no reply stored)")


def question_samples(event: dict | None) -> dict | None:
    """Under the persona × task chart: the clicked cell's questions, the agent's replies and the judges' grades."""
    found = samples.units(event, ("persona", "task"))
    if not found or found[0]["persona"] not in personas:
        samples.hint()
        return None
    unit = found[0]
    rows = samples.rows_of(personagym_data.personagym_persona(ref, model, unit["persona"]), {"task": unit["task"]})
    samples.panel(ref, rows, f"{unit['persona']} · {unit['task']}", key="persona_tasks", detail=judge,
                  columns=("q_index", "question", "answer", "refusal", "evaluator", "score", "grade_status"),
                  labels=("q_index", "evaluator"),
                  link=samples.data_link("personagym_answers", rows, persona=unit["persona"], task=unit["task"]),
                  persona=samples.one_persona_link("personagym", label=unit["persona"]))
    return unit


st.caption("Mean grade of each persona's questions per task. Click a bar for its questions, the agent's replies and the "
           "judges' grades and rationales.")
clicked = question_samples(ui.plot(personagym_charts.personagym_personas(ref, model), key="persona_tasks", select=True))
if clicked and st.session_state.get("_persona_tasks_clicked") != clicked:  # a new click also picks its persona below
    st.session_state["_persona_tasks_clicked"] = clicked
    st.session_state["persona"] = clicked["persona"]
persona = state.selectbox("Persona", personas, key="persona", container=right)
pdoc = mdoc["personas"][persona]
m = st.columns(4)
m[0].metric("PersonaScore", ui.fmt(pdoc.get("persona_score"), 2))
m[1].metric("Graded answers", pdoc.get("n_graded", 0))
m[2].metric("Invalid grades", pdoc.get("invalid", 0))
m[3].metric("Refusals", pdoc.get("refusals", 0), help="Answers that step out of the persona (\"As an AI…\").")
ui.readers_caption("personagym")
ui.table(pd.DataFrame([{"task": t, "score": pdoc["tasks"].get(t), "model mean": mdoc["tasks"].get(t)} for t in TASKS]),
             hide_index=True, width="stretch",
             column_config={c: st.column_config.NumberColumn(c, format="%.2f") for c in ("score", "model mean")})

st.markdown("**Questions, answers and grades**")
qa = personagym_data.personagym_persona(ref, model, persona)
for task in [t for t in TASKS if t in set(qa["task"])]:
    sub = qa[qa["task"] == task]
    with st.expander(f"{task} · {sub['q_index'].nunique()} questions · mean grade {ui.fmt(pdoc['tasks'].get(task), 2)}"):
        for (q, question, answer), grades in sub.groupby(["q_index", "question", "answer"], sort=False, dropna=False):
            st.markdown(f"**Q{int(q) + 1}.** {ui.plain(question)}")
            with st.chat_message("assistant"):
                st.text(answer if isinstance(answer, str) else "(no answer)")
            marks = ["cut at the length limit"] if (grades.get("truncated", pd.Series(dtype=float)) == 1).any() else []
            shown = pd.to_numeric(grades.get("n_examples", pd.Series(dtype=float)), errors="coerce").dropna()
            if len(shown) and shown.min() < 5:
                marks.append(f"graded with {int(shown.min())} of 5 score examples and the rubric's criteria")
            st.caption(" · ".join([ui.plain(f"{g.evaluator}: {ui.fmt(g.score, 0) if g.grade_status == 'ok' else g.grade_status}")
                                   for g in grades.itertuples() if isinstance(g.evaluator, str)] or ["not graded"])
                       + "".join(f" · {m}" for m in marks))
