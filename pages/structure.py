"""Value structure: MDS circumplex of the items, Stress, magnifying-glass CFA with loadings, separability."""

import streamlit as st

from app import charts, data, state, ui

ctx = ui.context()
ref = ctx.ref
ui.header("Value structure", "Do a model's answers reproduce Schwartz's circle of values? Item intercorrelations across "
          "personas, scaled to 2-D (theory-initialised non-metric MDS), and confirmatory factor analysis — as the Stick to "
          "Your Role! leaderboard computes them.")

if not data.has_rows(ref, "values_answers"):
    ui.empty(f"No value questionnaire answers in **{ref.name}**.",
             "Run the values method on the **Run** page, or import Stick to Your Role! results on the **Data** page.")
    st.stop()
models = ctx.pick(data.values_models(ref))
if not models:
    ui.empty("None of the models picked in the sidebar has values answers.")
    st.stop()

left, right = st.columns(2)
model = state.selectbox("Model", models, key="model", container=left)
keys = list(data.context_keys(ref, model))
key = state.selectbox("Context", keys, key="context", container=right, default="no_conv",
                      help="One MDS and CFA per context (and instrument).")
ui.tiny_model_note([model], data.model_specs(ref))

with st.spinner("Fitting MDS and the four CFA models…"):
    result = data.structure(ref, model, key)
if result["error"]:
    st.warning(f"The circumplex cannot be computed for this context: {result['error']}")

m = st.columns(4)
m[0].metric("Stress-1", ui.fmt(result["stress"]), help="Leaderboard Stress of the MDS (lower is better; ≥ 0.2 is poor).")
m[1].metric("Circular-order distance", ui.fmt(result["rank_distance"], 2),
            help="Distance between the observed circular order of the value centroids and the theoretical one (0 = same order).")
sep = result["separability"] or {}
m[2].metric("Separability — cross-validated", ui.fmt(sep.get("cv_accuracy")),
            help="Out-of-fold accuracy of a linear SVM telling values apart from the items' correlation profiles "
                 "(the honest number).")
m[3].metric("Separability — training", ui.fmt(sep.get("train_accuracy")),
            help="The reference leaderboard's number: the same kind of SVM scored on its training items "
                 "(≈1 even for random answers).")
if sep:
    st.caption(f"Separability: {sep.get('n_items')} items, {sep.get('n_classes')} values, {sep.get('n_splits')}-fold CV; "
               f"chance ≈ {1 / max(1, sep.get('n_classes') or 1):.2f}. Source: reference `classify_dots` (training accuracy) "
               "and a stratified K-fold linear SVM (cross-validated).")

st.subheader("Circumplex")
if result["layout"] is not None:
    texts = data.item_texts(result["instrument"])
    st.caption("Each dot is an item, coloured by the value it is keyed to; diamonds are value centroids. Dotted circle and "
               "grey spokes: the theoretical circle and value sectors (Schwartz 1992) — a faithful model puts each value's "
               "items in its own sector. Non-metric SMACOF on distances between rows of the item × item Spearman matrix, "
               "started at the theoretical points." + (" Hover an item for its text." if texts else
                                                         " Item texts are shown when the instrument is available."))
    ui.plot(charts.circumplex(ref, model, key), key="circumplex")
    if result["observed_order"]:
        st.caption("Observed order of the value centroids around the circle: " + " → ".join(result["observed_order"]))

st.subheader("Confirmatory factor analysis")
st.caption("Magnifying glass (Schwartz): four separate models — Conservation, Openness to change, Self-transcendence, "
           "Self-enhancement — each with one latent per basic value, ML, latent variances fixed to 1. Fit indices as "
           "lavaan computes them; a failed fit counts as CFI 0, TLI 0, RMSEA 1, SRMR 1.")
cfa = result["cfa"]
fmt = {c: st.column_config.NumberColumn(c.upper() if c != "chi2" else "χ²", format="%.3f")
       for c in ("chi2", "cfi", "tli", "rmsea", "srmr")}
st.dataframe(cfa, hide_index=True, width="stretch", column_config=fmt | {"group": "model", "n": "personas"})
if state.toggle("Show standardised loadings", key="loadings"):
    loadings = result["loadings"]
    if loadings.empty:
        st.caption("No loadings: none of the four models could be estimated.")
    else:
        texts = data.item_texts(result["instrument"])
        loadings = loadings.assign(text=loadings["item"].astype(str).map(texts) if texts else None)
        st.dataframe(loadings, hide_index=True, width="stretch",
                     column_config={"std_loading": st.column_config.ProgressColumn("standardised loading", min_value=-1.0,
                                                                                   max_value=1.0, format="%.2f")})
