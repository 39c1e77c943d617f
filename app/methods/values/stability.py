"""Stability: rank-order stability between contexts and per value (with CIs), persona profiles, ipsative stability."""

import pandas as pd
import streamlit as st

from app import data, samples, state, ui
from app.methods.values import charts as values_charts
from app.methods.values import data as values_data

ctx = ui.context()
ref = ctx.ref
ui.header("Does a simulated persona keep its values when the conversation changes? Rank-order stability "
          "compares personas' value scores between contexts; ipsative stability compares each persona's own value "
          "profile (Kovač et al. 2024).", report=("values",))

if not data.has_rows(ref, "values_answers"):
    ui.empty(f"No value questionnaire answers in **{ref.name}**.",
             "Run the values method with at least two contexts on the **Run** page.")
    st.stop()
models = ctx.pick(values_data.values_models(ref))
if not models:
    ui.empty("None of the models picked in the sidebar has values answers.")
    st.stop()

model = state.selectbox("Model", models, key="model")
ui.model_notes([model], data.model_specs(ref))
with st.spinner("Computing stability with bootstrap CIs…"):
    stab = values_data.stability(ref, model)
    doc = values_data.values_doc(ref)["models"].get(model, {})
if stab["matrix"] is None:
    ui.empty(f"{model} has answers in one context only ({', '.join(stab['contexts']) or 'none'}).",
             "Stability needs at least two contexts: add one on the **Run** page (e.g. no_conv and topics_a).")
    st.stop()

with st.spinner(f"Simulating chance on this design ({data.CHANCE_SIMS} random data sets per null model; cached after)…"):
    bands = data.chance(ref, "values").get(model) or {}
ci = doc.get("ci") or {}
verdict = ui.chance_verdict(bands.get("rank_order"))
if verdict == "chance-like":
    st.error(f"**{model}'s rank-order stability is indistinguishable from chance** — "
             f"{ui.fmt(doc.get('rank_order'))} vs {ui.chance_text(bands.get('rank_order'))}. Personas do not keep their "
             "order between contexts any more than random answers would.", icon="⚠️")
m = st.columns(3)
m[0].metric("Rank-order stability ↑", ui.ci_text(doc.get("rank_order"), (ci.get("rank_order") or {}).get("lo"),
                                                (ci.get("rank_order") or {}).get("hi")),
            help="Mean over context pairs and values of Spearman across personas of ipsatised value scores; "
                 "95% bootstrap CI over personas.")
m[1].metric("Ipsative stability ↑", ui.ci_text(doc.get("ipsative"), (ci.get("ipsative") or {}).get("lo"),
                                              (ci.get("ipsative") or {}).get("hi")),
            help="Mean over personas and context pairs of Spearman over the 10 values; 95% bootstrap CI over personas.")
m[2].metric("Personas × contexts", f"{doc.get('n_personas', 0)} × {len(stab['contexts'])}")
for note in doc.get("imported") or []:
    same = note.get("retest_identical_replies") or {}
    if same.get("n"):
        st.warning(f"**{same['n']:,} of the {same['of']:,} re-asked replies are the first asking's, byte for byte** "
                   f"({note.get('source')}). Where a reply repeats, its answer repeats: the stability of those answers "
                   "measures the endpoint's determinism (or a cache), not how firmly the persona holds its values.",
                   icon="⚠️")
with m[0]:
    ui.chance_caption(bands.get("rank_order"))
with m[1]:
    ui.chance_caption(bands.get("ipsative"))

left, right = st.columns(2)
with left:
    st.subheader("Between contexts")
    st.caption("Rank-order stability of each context pair: Spearman across personas of ipsatised value scores, mean over "
               "the 10 values (reference `compute_rank_order_stability`). 1 = personas keep their order.")
    ui.plot(values_charts.rank_order_heatmap(ref, model), key="ro_heatmap")
with right:
    st.subheader("Per value")
    st.caption("Rank-order stability of each value, mean over context pairs, with 95% percentile bootstrap CIs over personas. "
               "Grey band: where one value's stability falls when the answers are random (same design).")
    ui.plot(values_charts.rank_order_by_value(ref, model), key="ro_values")

st.subheader("Persona value profiles across contexts")
st.caption("Ipsatised value scores (value mean − the persona's mean over all items) of selected personas, one line per "
           "context. Stable personas draw the same shape in every context.")
names = values_charts.persona_names(values_data.personas_of(ref, model))
ids = list(names)
ips = stab["ipsative"]
default = list(ips["persona_id"].head(2)) + list(ips["persona_id"].tail(1)) if len(ips) >= 3 else ids[:3]
chosen = state.multiselect("Personas", ids, key="personas", default=[int(p) for p in default], max_selections=6,
                           format_func=lambda p: names.get(p, str(p)),
                           help="Defaults: the two least and the most ipsatively stable personas.")


def answers_by_key() -> pd.DataFrame:
    """This model's answers with their context's display key (as the charts name contexts)."""
    answers = values_data.values_answers(ref, model)
    keys = {pair: key for key, pair in values_data.context_keys(ref, model).items()}
    return answers.assign(context_key=[keys.get((c, i)) for c, i in zip(answers["context"], answers["instrument"])])


COLUMNS = ("context_key", "item_id", "value", "sample", "letter", "option_label", "score", "valid", "reason", "raw")


def persona_samples(event: dict | None, fields: tuple[str, ...], key: str) -> None:
    """Under a persona chart: the clicked persona's answers (per context; of one value when the point is one)."""
    found = samples.units(event, fields)
    if not found:
        samples.hint()
        return
    unit = found[0]
    order = {c: i for i, c in enumerate(stab["contexts"])}
    rows = samples.rows_of(answers_by_key(), unit).sort_values("context_key", key=lambda c: c.map(order), kind="stable")
    pid = int(float(unit["persona_id"]))
    title = names.get(pid, f"persona {pid}") + (f" · {unit['value']} · {unit['context_key']}" if "value" in unit else "")
    first = rows["context"].iloc[0] if len(rows) else None
    samples.panel(ref, rows, title, key=key, columns=COLUMNS, labels=("item_id", "context_key"),
                  split="context_key" if "context_key" not in unit else None, split_label="Context",
                  link=samples.data_link("values_answers", rows, persona_id=pid,
                                         **({"context": first} if first is not None else {})))


if chosen:
    st.caption("Click a point for that persona's answers to that value's items in that context.")
    profiles = ui.plot(values_charts.persona_profiles(ref, model, tuple(chosen)), key="profiles", select=True)
    persona_samples(profiles, ("persona_id", "context_key", "value"), "profiles")

st.subheader("Ipsative stability per persona")
st.caption("Per persona: Spearman over the 10 values between two contexts, mean over context pairs "
           "(reference `compute_ipsative_stability`). Low bars: personas whose value hierarchy changes with the context. "
           "Grey band: one persona's ipsative stability under random answers on the same design.")
bars = ui.plot(values_charts.ipsative_bars(ref, model, tuple(chosen)), key="ipsative", select=True)
persona_samples(bars, ("persona_id",), "ipsative")
