"""Value structure: MDS circumplex of the items, Stress, magnifying-glass CFA with loadings, separability."""

import textwrap

import streamlit as st

from analysis.methods.values import reads as values_reads
from analysis.methods.values.report_types import CFA_MIN_PERSONAS, fit_index_text
from app import data, samples, state, ui
from app.methods.values import charts as values_charts
from app.methods.values import data as values_data

ctx = ui.context()
ref = ctx.ref
ui.header("Do a model's answers reproduce Schwartz's circle of values? Item intercorrelations across "
          "personas, scaled to 2-D (theory-initialised non-metric MDS), and confirmatory factor analysis — as the Stick to "
          "Your Role! leaderboard computes them.", report=("values",))

if not data.has_rows(ref, "values_answers"):
    ui.empty(f"No value questionnaire answers in **{ref.name}**.",
             "Run the values method on the **Run** page, or import Stick to Your Role! results on the **Data** page.")
    st.stop()
models = ctx.pick(values_data.values_models(ref))
if not models:
    ui.empty("None of the models picked in the sidebar has values answers.")
    st.stop()

left, right = st.columns(2)
model = state.selectbox("Model", models, key="model", container=left)
keys = list(values_data.context_keys(ref, model))
key = state.selectbox("Context", keys, key="context", container=right, default="no_conv",
                      help="One MDS and CFA per context (and instrument).")
ui.model_notes([model], data.model_specs(ref))

with st.spinner("Fitting MDS and the four CFA models…"):
    result = values_data.structure(ref, model, key)
if result["error"]:
    st.warning(f"The circumplex cannot be computed for this context: {result['error']}")
with st.spinner(f"Simulating chance on this design ({data.CHANCE_SIMS} random data sets per null model; cached after)…"):
    bands = ((data.chance(ref, "values").get(model) or {}).get("contexts") or {}).get(key, {})


def verdict() -> None:
    """What the user reads first: is this structure distinguishable from what random answers draw?"""
    stress, order = bands.get("stress"), bands.get("order_distance")
    if result["stress"] is None or not stress:
        return
    moved = result["movement"]["moved"].mean() if result["movement"] is not None else None
    u = stress.get("uniform") or {}
    facts = (f"Stress {ui.fmt(result['stress'])}; random answers on this design (same personas, items and invalid "
             f"answers) give {ui.ci_text(u.get('mean'), u.get('lo'), u.get('hi'), 3)} (p = {ui.fmt(u.get('p'), 2)}). ")
    if ui.chance_verdict(stress) == "beyond chance":
        st.success("**The value structure is beyond chance.** " + facts + "Started from random points instead of the "
                   f"theory, MDS reaches Stress {ui.fmt(result['random_start_stress'])}.", icon="✅")
        return
    circle = ""
    if order and ui.chance_verdict(order) != "beyond chance":
        circle = (f"The circle drawn below is where MDS *started* (every item at its value's theoretical point), not "
                  f"structure in the answers: items moved on average {ui.fmt(moved, 2)} (in units of the circle's radius) "
                  f"from their start, and random answers draw the same order (order distance "
                  f"{ui.fmt(result['rank_distance'], 2)}; {ui.chance_text({'uniform': order.get('uniform')}, 2)}). ")
    st.error(f"**{model}'s value structure in this context is indistinguishable from chance.** " + facts + circle +
             f"Started from random points instead, MDS reaches Stress {ui.fmt(result['random_start_stress'])}.", icon="⚠️")


verdict()
m = st.columns(4)
m[0].metric("Stress-1 ↓", ui.fmt(result["stress"]), help="Leaderboard Stress of the MDS (lower is better; ≥ 0.2 is poor).")
m[1].metric("Circular-order distance ↓", ui.fmt(result["rank_distance"], 2),
            help="Distance between the observed circular order of the value centroids and the theoretical one (0 = same order).")
sep = result["separability"] or {}
undefined = f" Undefined here: {sep['reason']}." if sep.get("reason") else ""
m[2].metric("Separability — cross-validated ↑", ui.fmt(sep.get("cv_accuracy")),
            help="Out-of-fold accuracy of a linear SVM telling values apart from the items' correlation profiles "
                 "(the honest number)." + undefined)
m[3].metric("Separability — training ↑", ui.fmt(sep.get("train_accuracy")),
            help="The reference leaderboard's number: the same kind of SVM scored on its training items "
                 "(≈1 even for random answers)." + undefined)
for col, name, digits in ((m[0], "stress", 3), (m[1], "order_distance", 2)):
    with col:
        ui.chance_caption(bands.get(name), digits)
n = st.columns(4)
n[0].metric("Random-start Stress ↓", ui.fmt(result["random_start_stress"]),
            help="Lowest Stress of MDS run to convergence from 4 random configurations: what the data support without "
                 "the theory as the starting point.")
n[1].metric("Mean item movement", ui.fmt(result["movement"]["moved"].mean() if result["movement"] is not None else None, 2),
            help="Mean distance of the items from their theory-initialised start (both layouts centred and scaled to unit "
                 "radius). Near 0: the layout is the starting circle, whatever the answers.")
rel = result["reliability"] or {}
alphas = [v["alpha"] for v in rel.values() if v.get("alpha") is not None]
omegas = [v["omega"] for v in rel.values() if v.get("omega") is not None]
n[2].metric("Mean α ↑", ui.fmt(sum(alphas) / len(alphas)) if alphas and len(alphas) == len(rel) else "—",
            help="Cronbach's α of each value's items (centred answers, as the reference computes it), mean over values; "
                 "— when a value's α is undefined.")
n[3].metric("Mean ω ↑", ui.fmt(sum(omegas) / len(omegas)) if omegas and len(omegas) == len(rel) else "—",
            help="McDonald's ω_t (one factor, minres, as psych::omega) on the same centred answers, mean over values.")
if sep:
    st.caption(f"Separability: {sep.get('n_items')} items, {sep.get('n_classes')} values, {sep.get('n_splits')}-fold CV; "
               f"chance ≈ {1 / max(1, sep.get('n_classes') or 1):.2f}. Source: reference `classify_dots` (training accuracy) "
               "and a stratified K-fold linear SVM (cross-validated).")


def item_samples(event: dict | None, texts: dict[str, str]) -> None:
    """Under the circumplex: the answers of the clicked item, one per persona (and sample), in this context."""
    answers = values_data.values_answers(ref, model)
    here = answers[(answers["context"] == result["context"]) & (answers["instrument"] == result["instrument"])]
    found = samples.units(event, ("item_id",))
    if not found:
        samples.hint()
        return
    item = str(found[0]["item_id"])
    rows = samples.rows_of(here, found[0])
    text = f" · '{textwrap.shorten(texts[item], 60, placeholder='…')}'" if item in texts else ""
    samples.panel(ref, rows, f"Item {item}{text}", key="circumplex",
                  link=samples.data_link("values_answers", rows, context=result["context"]),
                  columns=("persona_id", "persona", "sample", "letter", "option_label", "score", "valid", "reason", "raw"),
                  labels=("persona", "sample"))


st.subheader("Circumplex")
if result["layout"] is not None:
    texts = values_data.item_texts(ref, result["instrument"])
    st.caption("Each dot is an item, coloured by the value it is keyed to; diamonds are value centroids. Dotted circle and "
               "grey spokes: the theoretical circle and value sectors (Schwartz 1992) — a faithful model puts each value's "
               "items in its own sector. Non-metric SMACOF on distances between rows of the item × item Spearman matrix, "
               "started at the theoretical points." + (" Hover an item for its text." if texts else
                                                         " Item texts are shown when the instrument is available.")
               + " Click an item for its answers.")
    event = ui.plot(values_charts.circumplex(ref, model, key), key="circumplex", select=True)
    if result["observed_order"]:
        st.caption("Observed order of the value centroids around the circle: " + " → ".join(result["observed_order"]))
    item_samples(event, texts)

st.subheader("Confirmatory factor analysis")
st.caption("Magnifying glass (Schwartz): four separate models — Conservation, Openness to change, Self-transcendence, "
           "Self-enhancement — each with one latent per basic value, ML, latent variances fixed to 1. Fit indices as "
           "lavaan computes them. A failed fit has no fit indices: — with the reason beside it (undefined, not 0; the "
           "Leaderboard alone scores it CFI 0 / RMSEA 1, as the reference's leaderboard does, and marks it).")
cfa = values_reads.cfa_shown(result["cfa"])  # CFI and TLI as text: above 1 "≥ 1 (over-fitted)", never 1.500
CFA_LABELS = {"chi2": "χ²", "cfi": "CFI ↑", "tli": "TLI ↑", "rmsea": "RMSEA ↓", "srmr": "SRMR ↓"}
fmt = {c: (st.column_config.TextColumn(label) if c in ("cfi", "tli") else st.column_config.NumberColumn(label, format="%.3f"))
       for c, label in CFA_LABELS.items()}
ui.table(cfa, hide_index=True, width="stretch",
         column_config=fmt | {"group": "model", "n": "personas", "reason": "why it failed or was not fitted"})
st.caption(f"A model is fitted on ≥ {CFA_MIN_PERSONAS} personas answering all its items (fewer: not "
           "fitted, the reason says so). A TLI above 1 (χ² below its degrees of freedom, typical of few personas) is "
           "shown as ≥ 1 (over-fitted).")
fit = result["fit"]
st.caption("Mean over the four models — " + ", ".join(
    f"{k.upper()} {fit_index_text(fit.get(k)) if k == 'cfi' else ui.fmt(fit.get(k))}" for k in ("cfi", "rmsea", "srmr"))
           + (f" (undefined: {fit['reason']})" if fit.get("reason") else ""))
with st.spinner("Simulating the CFA fit and separability under chance for this context (about 10 s the first time)…"):
    fit_bands = values_data.values_fit_chance(ref, model, key)
fit_chance = {k: fit_bands.get(k) for k in ("cfi", "rmsea", "srmr")}
with m[2]:
    ui.chance_caption(fit_bands.get("separability"))
if any(fit_chance.values()):
    st.caption("Mean over the four models vs chance (a simulated data set whose fit failed is left out) — " + " · ".join(
        f"{k.upper()}: {ui.chance_text(v, 3)}" for k, v in fit_chance.items() if v))

st.subheader("Reliability of each value")
if rel:
    table = [{"value": v, "items": r["n_items"], "α ↑": r["alpha"], "ω ↑": r["omega"], "why undefined": r["reason"] or ""}
             for v, r in rel.items()]
    ui.table(table, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(c, format="%.3f") for c in ("α ↑", "ω ↑")})
    st.caption("Internal consistency of each value's items across personas in this context: Cronbach's α (pingouin, as "
               "the reference code) and McDonald's ω_t, both on centred answers. Empty cells are undefined (reason shown).")
retest = ((values_data.values_doc(ref)["models"].get(model) or {}).get("contexts") or {}).get(key, {}).get("test_retest")
st.caption("Test–retest (repeated answers to the same item, `--samples` ≥ 2): "
           + (f"r = {ui.fmt(retest, 2)} between samples." if retest is not None else "— (one sample per item in this run)."))

if state.toggle("Show standardised loadings", key="loadings"):
    loadings = result["loadings"]
    if loadings.empty:
        st.caption("No loadings: none of the four models could be estimated.")
    else:
        texts = values_data.item_texts(ref, result["instrument"])
        loadings = loadings.assign(text=loadings["item"].astype(str).map(texts) if texts else None)
        ui.table(loadings, hide_index=True, width="stretch",
                     column_config={"std_loading": st.column_config.ProgressColumn("standardised loading", min_value=-1.0,
                                                                                   max_value=1.0, format="%.2f")})
