"""MBTI: per model and subject — dimension scores, type, consistency / robustness / fairness, answer distribution."""

import textwrap

import pandas as pd
import streamlit as st

from analysis.methods.mbti.report_types import DIMENSIONS, OPTIONS, decided_text, gap_rows, score_rows, type_with_role
from app import data, samples, state, ui
from app.methods.mbti import charts as mbti_charts
from app.methods.mbti import data as mbti_data

ctx, models = ui.method_page(
    "mbti", "Can a model assess people of a subject group through MBTI statements? Each statement is rated Correct … "
    "Wrong for the subject (\"Men\", \"Doctors\"…); scores per dimension, consistency over independent testings, "
    "robustness to option order and fairness between genders (Rao et al. 2023).",
    mbti_data.mbti_models, nothing="MBTI answers",
    hint="Run the MBTI method on the **Run** page, or import ChatGPT-MBTI answer CSVs on the **Data** page.")
ref = ctx.ref

left, right = st.columns(2)
model = state.selectbox("Model", models, key="model", container=left)
mdoc = mbti_data.mbti_doc(ref)["models"][model]
subjects = list(mdoc["subjects"])
subject = state.selectbox("Subject", subjects, key="subject", container=right, default="People")
ui.model_notes([model], data.model_specs(ref))
sdoc = mdoc["subjects"][subject]

fair_pairs = {pair: v for pair, v in (mdoc.get("fairness") or {}).items() if subject.lower() in pair.lower().split("|")}
with st.spinner(f"Simulating chance on this design ({data.CHANCE_SIMS} random answer sets per null model; cached after)…"):
    bands = ((data.chance(ref, "mbti").get(model) or {}).get("metrics") or {})
if ui.chance_verdict(bands.get("consistency")) == "chance-like":
    st.error(f"**{model}'s assessments are as consistent as random answers.** Mean consistency over subjects "
             f"{ui.fmt(bands['consistency']['uniform']['observed'])}; {ui.chance_text(bands.get('consistency'))}. "
             f"A model answering at random still scores s_c ≈ {ui.fmt(bands['consistency']['uniform']['mean'], 2)} on this "
             "design: s_c alone does not show an ability to assess.", icon="⚠️")
m = st.columns(5)
m[0].metric("Type", type_with_role(sdoc.get("type")) or "—",
            help="Per dimension the first pole when the mean score is ≥ 50 (the reference's judge_16), else the "
                 "second; X = no valid answer.")
m[1].metric("Consistency s_c ↑", ui.fmt(sdoc.get("consistency")),
            help="100 / (100 + mean distance of the testings' score vectors to their mean); 1 = identical testings.")
m[2].metric("Robustness s_r ↑", ui.fmt((mdoc.get("robustness") or {}).get(subject)),
            help="100 / (100 + distance between the fixed-order and permuted-order mean scores); needs both orders.")
m[3].metric("Fairness s_f ↑", ", ".join(ui.fmt(v) for v in fair_pairs.values()) or "—",
            help="For (Men, Women) and (Boys, Girls): 100·s_c(M)·s_c(F) / (100 + distance of their mean scores).")
m[4].metric("Testings · invalid answers", f"{sdoc.get('n_testings', 0)} · {sdoc.get('invalid', 0)}",
            help="Invalid: no verdict could be read. Cut replies: replies that hit the reply length limit (their verdict, "
                 "when one was read before the cut, is kept).")
if sdoc.get("truncated"):
    m[4].caption(f"{sdoc['truncated']} replies cut by the length limit")
ui.readers_caption("mbti")
with m[1]:
    ui.chance_caption(bands.get(f"consistency/{subject}"))
with m[2]:
    ui.chance_caption(bands.get(f"robustness/{subject}"))
with m[3]:
    for pair in fair_pairs:
        ui.chance_caption(bands.get(f"fairness/{pair}"))
rel = mdoc.get("reliability") or {}
alpha = rel.get("alpha") or {}
st.caption("Reliability — α per dimension over testings (signed answers; pingouin): " + ", ".join(
    f"{d} {ui.fmt((alpha.get(d) or {}).get('alpha'), 2)}" + (f" ({alpha[d]['reason']})" if (alpha.get(d) or {}).get("reason") else "")
    for d in DIMENSIONS) + f" · test–retest r between testings of a subject: {ui.fmt(rel.get('test_retest'), 2)}"
    + (f" ({rel['test_retest_reason']})" if rel.get("test_retest_reason") else ""))

st.subheader(f"How sure the type is — {subject}")
st.markdown(f"**Type with its uncertainty:** {decided_text(sdoc.get('uncertainty')) or '—'}")
ui.table(pd.DataFrame(score_rows(sdoc.get("scores") or {}, sdoc.get("uncertainty"))), hide_index=True, width="stretch",
         column_config={"score": st.column_config.NumberColumn("score", format="%.1f")})
st.caption("95 % CI: a bootstrap over the statements (each dimension's answered statements drawn with replacement, "
           "every resample scored as the report scores). A letter is decided when its CI lies wholly on one side of 50; "
           "a CI that includes 50 leaves it undecided (both poles, e.g. [E/I]), whatever the type code above says.")

st.subheader(f"Dimension scores — {subject}")
st.caption("Score X ∈ [0, 100] per dimension: 50 + 50·Σ(direction × option weight)/(3n) over the valid answers "
           "(Correct +3 … Wrong −3); bars start at 50 and point to the pole the subject leans to; "
           "whiskers = ±1 SD over testings. Grey band: where a subject's score falls when every answer is random "
           "(same statements, testings and invalid answers) — a bar inside it leans no further than chance. These "
           "scores are RoleScope's linear key, not the 16personalities site's scores the paper reports: types are "
           "comparable with the paper, score values are not.")
ui.plot(mbti_charts.mbti_subject(ref, model, subject), key="dims")

with st.expander(f"All {len(subjects)} subjects of this model"):
    table = pd.DataFrame([{"subject": s, "type": type_with_role(d.get("type")),
                           "type, decided letters": (d.get("uncertainty") or {}).get("type"),
                           **{k: d["scores"].get(k) for k in DIMENSIONS},
                           "consistency ↑": d.get("consistency"), "consistency vs chance": ui.vs_chance(bands.get(f"consistency/{s}")),
                           "robustness ↑": (mdoc.get("robustness") or {}).get(s),
                           "robustness vs chance": ui.vs_chance(bands.get(f"robustness/{s}")),
                           "testings": d.get("n_testings"), "invalid": d.get("invalid"),
                           "background": d.get("background") or ""} for s, d in mdoc["subjects"].items()])
    if table["background"].astype(bool).any():  # background subjects (the paper's Table 4) grouped by category
        st.caption("Background subjects (income, age, education: the paper's Table 4) are grouped by their background.")
        table = table.sort_values("background", key=lambda b: b.replace("", "~"), kind="stable")
    else:
        table = table.drop(columns="background")
    ui.table(table, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(c, format="%.2f")
                                for c in [*DIMENSIONS, "consistency ↑", "robustness ↑"]})
    if len(subjects) > 1:
        ui.plot(mbti_charts.mbti_subjects(ref, model), key="dims_all")
    fairness = mdoc.get("fairness") or {}
    if fairness:
        pairs = "; ".join(f"{k.replace('|', ' vs ')} = {ui.fmt(v)}" for k, v in fairness.items())
        st.caption(f"Fairness per gender pair: {pairs}")

gaps = mdoc.get("type_gaps") or {}
if gaps:
    st.subheader("Types given to each gender")
    pair = state.selectbox("Pair", list(gaps), key="gap_pair", format_func=lambda p: p.replace("|", " vs "))
    first, second = pair.split("|")
    gap = gaps[pair]
    ui.table(pd.DataFrame(gap_rows(gap, first, second)), hide_index=True, width="stretch",
             column_config={f"{first} − {second}": st.column_config.NumberColumn(f"{first} − {second}", format="%+.1f")})
    st.caption(f"{gap.get('n_letters_differ', 0)} of 4 type letters differ between {first} and {second}. The fairness "
               "view one testing allows: per dimension the score difference with a paired 95 % CI over the statements "
               "(both subjects are asked the same statements, resampled together); a CI that excludes 0 is a "
               "difference the answers support.")

st.subheader("Answers per statement")
orders = mbti_data.mbti_orders(ref, model, subject)
order = state.segmented("Option order", orders, key="order",
                        help="Permuted per question (the paper's unbiased prompts) or fixed Correct … Wrong.")
dist = mbti_data.mbti_distribution(ref, model, subject, order)
st.caption("How often each option was chosen over the testings (the paper's Figure 3); hatched = unparseable replies, "
           "kept and counted, never replaced. Click a bar for that statement's answers.")
picked = ui.plot(mbti_charts.mbti_distribution(ref, model, subject, order), key="dist", select=True)
found = samples.units(picked, ("statement_id",))
if found:
    answers = mbti_data.mbti_answers(ref, model)
    mine = answers[(answers["subject"] == subject) & (answers["order_mode"] == order)]
    rows = samples.rows_of(mine, found[0]).sort_values("testing", kind="stable")
    text = textwrap.shorten(str(rows["statement"].iloc[0]), 60, placeholder="…") if len(rows) else ""
    samples.panel(ref, rows, f"Statement {found[0]['statement_id']}" + (f" · '{text}'" if text else ""), key="dist",
                  columns=("testing", "seq", "option_index", "weight", "valid", "reason", "raw"), labels=("testing", "seq"),
                  link=samples.data_link("mbti_answers", rows, subject=subject, order_mode=order))
else:
    samples.hint()
with st.expander("Table: most frequent option per statement"):
    ui.table(dist[["statement_id", "dimension", "statement", *OPTIONS, "invalid", "mode", "mode_count"]], hide_index=True,
                 width="stretch")
