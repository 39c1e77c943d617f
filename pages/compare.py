"""Compare two models: every method's headlines side by side with paired bootstrap CIs, largest gaps, overlaid plots."""

import streamlit as st

from analysis.views import HEADLINES
from app import charts, data, state, ui

ctx = ui.context()
ref = ctx.ref
ui.header("Compare two models", "The same personas, contexts and statements answered by two models: where do they differ, "
          "and is the difference larger than the sampling noise?")

models = ctx.models
if len(models) < 2:
    ui.empty(f"Comparing needs two models; {ref.name} has {len(models)} selected.",
             "Pick two models in the sidebar, or run a second model configuration on the **Run** page.")
    st.stop()

left, right = st.columns(2)
a = state.selectbox("Model A", models, key="a", default=models[0], container=left)
b = state.selectbox("Model B", [m for m in models if m != a], key="b", container=right)
ui.tiny_model_note([a, b], data.model_specs(ref))

with st.spinner("Computing paired bootstrap CIs…"):
    diffs = data.compare(ref, a, b)
st.subheader("Headline numbers")
if diffs.empty:
    ui.empty(f"{a} and {b} share no method with data.", "Run both on the same method (values or MBTI) first.")
else:
    st.caption("A − B with a 95% paired bootstrap CI where both models answered the same units (values: shared personas "
               "resampled together; MBTI: shared testing indices, which share their option permutations). A CI that "
               "excludes 0 means the difference is larger than resampling noise. Grey points have no CI.")
    table = diffs.assign(ci=[ui.ci_text(None, lo, hi, 3) if lo == lo else "—" for lo, hi in zip(diffs["lo"], diffs["hi"])])
    table = table.drop(columns=["lo", "hi"]).rename(columns={"a": a, "b": b, "diff": "A − B", "ci": "95% CI of A − B"})
    table = table[["method", "metric", a, b, "A − B", "95% CI of A − B", "note"]]
    config = {c: st.column_config.NumberColumn(c, format="%.3f") for c in (a, b, "A − B")}
    ui.table(table, hide_index=True, width="stretch", column_config=config, height=36 * (len(table) + 1) + 4)
    ui.plot(charts.difference_forest(ref, a, b), key="forest")
    bands = data.headline_chance(ref)
    against = [{"metric": label, a: ui.vs_chance((bands.get(a) or {}).get(key)), b: ui.vs_chance((bands.get(b) or {}).get(key))}
               for key, label in HEADLINES.items() if key != "values_cardinal"
               and any((bands.get(m) or {}).get(key) for m in (a, b))]
    if against:
        st.caption("Each model against chance (largest p under random answers and shuffled answers, on its own design): a "
                   "difference between two chance-like models is a difference between two kinds of noise.")
        ui.table(against, hide_index=True, width="stretch")

rates = data.invalid_rates(ref)
pair = rates[rates["model"].isin([a, b])]
if len(pair):
    st.subheader("Invalid answers and refusals")
    st.caption("Share of unscorable answers (and PersonaGym refusals) with 95 % Wilson intervals: when the two models' "
               "intervals are far apart, their scores rest on different subsets of the questions.")
    wide = pair.assign(share=[ui.ci_text(100 * r, 100 * lo, 100 * hi, 1) + " %" if n else "—"
                              for r, lo, hi, n in zip(pair["rate"], pair["lo"], pair["hi"], pair["n"])])
    wide = wide.pivot_table(index=["method", "kind"], columns="model", values="share", aggfunc="first").reset_index()
    ui.table(wide, hide_index=True, width="stretch")

st.subheader("Where they differ most")
gaps = data.gaps(ref, a, b)
tabs = st.tabs(["Value items", "Personas", "MBTI statements"])
with tabs[0]:
    items = gaps.get("items")
    if items is None or items.empty:
        st.caption("Both models need value answers on the same personas and contexts.")
    else:
        texts = {}
        for inst in items["instrument"].unique():
            texts |= data.item_texts(inst)
        items = items.assign(text=items["item_id"].astype(str).map(texts)) if texts else items
        st.caption("Mean item score over the personas both models answered (valid answers), sorted by |A − B|.")
        ui.table(items.head(30).rename(columns={"a": a, "b": b, "diff": "A − B"}), hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(c, format="%.2f") for c in (a, b, "A − B")})
with tabs[1]:
    people = gaps.get("personas")
    if people is None or people.empty:
        st.caption("Both models need value answers on the same personas.")
    else:
        pnames = data.personas_of(ref, a)
        people = people.merge(pnames, on="persona_id", how="left")
        st.caption("Per persona and context: mean |A − B| of the ipsatised value scores, and the Spearman between the two "
                   "models' value profiles (1 = same value hierarchy).")
        ui.table(people.head(30), hide_index=True, width="stretch",
                     column_config={"mean_abs_gap": st.column_config.NumberColumn("mean |A − B|", format="%.2f"),
                                    "profile_spearman": st.column_config.NumberColumn("profile Spearman", format="%.2f")})
with tabs[2]:
    stm = gaps.get("statements")
    if stm is None or stm.empty:
        st.caption("Both models need MBTI answers on the same subjects.")
    else:
        st.caption("Mean signed agreement per statement (+3 = fully towards the dimension's first pole), sorted by |A − B|.")
        ui.table(stm.head(30).rename(columns={"a": a, "b": b, "diff": "A − B"}), hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(c, format="%.2f") for c in (a, b, "A − B")})

st.subheader("Overlaid")
values = set(data.values_models(ref)) if data.has_rows(ref, "values_answers") else set()
if {a, b} <= values:
    in_b = set(data.value_means(ref, b)["context"])
    contexts = [c for c in dict.fromkeys(data.value_means(ref, a)["context"]) if c in in_b]
    if contexts:
        context = state.selectbox("Context", contexts, key="context", default="no_conv")
        st.caption("Mean ipsatised value score over personas (whiskers ±1 SD): which values each model's personas put first.")
        ui.plot(charts.mean_profiles_pair(ref, a, b, context), key="means")
    if data.stability(ref, a)["by_value"] is not None and data.stability(ref, b)["by_value"] is not None:
        st.caption("Rank-order stability per value with 95% bootstrap CIs (each model on its own contexts).")
        ui.plot(charts.stability_pair(ref, a, b), key="stab_pair")
mbti = set(data.mbti_models(ref))
if {a, b} <= mbti:
    docs = data.mbti_doc(ref)["models"]
    subjects = [s for s in docs[a]["subjects"] if s in docs[b]["subjects"]]
    if subjects:
        subject = state.selectbox("MBTI subject", subjects, key="subject", default="People")
        st.caption("MBTI dimension scores of the two models for the same subject (whiskers ±1 SD over testings).")
        ui.plot(charts.mbti_pair(ref, a, b, subject), key="mbti_pair")
