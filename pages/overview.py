"""Overview: what the selected store holds, who produced it, each method's headline per model, links."""

import json

import pandas as pd
import streamlit as st

from analysis.methods import all_methods
from analysis.methods import get as get_method
from analysis.samples import against_answers, against_answers_text
from app import data, ui
from app.methods import views
from app.nav import page as nav_page
from app.nav import pages as all_pages

ctx = ui.context()
ref = ctx.ref
ui.header("How faithfully do LLMs play personas? Each method below asks it its own way, of the same "
          "models, on one results store.", report=())

# -- the methods, from the registry: each one's own summary ---------------------------------------
summaries = {v.name: v.summary for v in views()}
st.markdown("\n".join(f"- **{m.title}**: {summaries.get(m.name, '')}" for m in all_methods()))

runs = data.runs(ref)
if runs.empty:
    ui.empty(f"**{ref.name}** has no runs yet.",
             "Start a small run on the **Run** page (the embedded model needs no key), import published results on the "
             "**Data** page, or from a shell: `python -m analysis run values --model embedded --limit-personas 2 "
             f"--limit-items 10 --store {ref.path}`.")
    st.page_link(nav_page("run").script, label="Start a run", icon=":material/play_circle:")
    st.page_link(nav_page("data").script, label="Import results", icon=":material/upload_file:")
    st.stop()

specs = data.model_specs(ref)
imported = {m: s for m, s in specs.items() if (s or {}).get("backend", "imported") == "imported"}
if imported:
    st.info("**Real models first**: " + ", ".join(sorted(imported)) + " are published answers of real models, imported "
            "and re-scored by RoleScope (the table below names each source). " + ui.TINY_MODEL_NOTE, icon="ℹ️")
else:
    st.info(ui.TINY_MODEL_NOTE, icon="ℹ️")
ui.model_notes(sorted(specs), specs, embedded=False)  # the embedded model's note is the one above
sizes = data.table_sizes(ref)
answer_rows = {name: sizes.get(name, 0) for view in views() for name in view.samples}
answers = sum(answer_rows.values())
cols = st.columns(5)
cols[0].metric("Runs", len(runs))
cols[1].metric("Models", runs["model"].nunique())
cols[2].metric("Methods", runs["method"].nunique())
cols[3].metric("LLM calls stored", f"{sizes.get('calls', 0):,}")
cols[4].metric("Answers", f"{answers:,}", help="The rows of the methods' answer tables (each the answer to one "
               "question, valid or not).")
samples_note = st.empty()  # how the Samples page's count differs: filled last, the page drawn first

# -- who produced the data ------------------------------------------------------------------------
st.subheader("Models in this store")
rows = []
for model, group in runs.groupby("model", sort=True):
    spec = specs.get(model) or {}
    backend = spec.get("backend", "imported")
    note = ("135M parameters — near chance: a pipeline check" if backend == "embedded" else
            f"real model: published answers ({spec['source']})" if backend == "imported" and spec.get("source") else "")
    rows.append({"model": model, "backend": backend, "model id": spec.get("model", ""),
                 "generation params": json.dumps(spec.get("params") or {}, sort_keys=True),
                 "methods": ", ".join(dict.fromkeys(group["method"])), "runs": len(group), "note": note})
models = pd.DataFrame(rows)
models = models.sort_values("backend", key=lambda b: b.eq("embedded"), kind="stable").reset_index(drop=True)
first = {m: k for k, m in enumerate(models["model"])}  # real models first, the embedded model's runs last
ui.table(models, hide_index=True, width="stretch")
embedded = models.loc[models["backend"] == "embedded", "model"].tolist()
if embedded:
    st.caption(f"{', '.join(embedded)}: produced by the embedded SmolLM2-135M-Instruct (135M parameters) with the "
               "generation parameters shown. Its answers are near chance: read these numbers as a pipeline check, "
               "not as a finding about LLMs.")
stale = data.stale_runs(ref)
if stale:
    st.warning("**Asked with an older prompt** — these runs were made before the code that builds their prompts "
               "changed, so today's RoleScope would not send the same messages; their numbers stand for the prompts "
               "they were asked with (each run's plan holds them): "
               + "; ".join(f"`{run_id}`: {why}" for run_id, why in stale.items()), icon="⚠️")

# -- the cross-method view ------------------------------------------------------------------------
st.subheader("Each method's headline, per model")
st.caption("One number per method and model (higher is better); each is defined in the list of methods above.")
with st.spinner("Computing the metrics of every method (cached afterwards)…"):
    long = data.headlines(ref)
long = long[long["model"].isin(ctx.models)]
labels = list(dict.fromkeys(long["label"]))
table = long.pivot(index="model", columns="label", values="value").reindex(columns=labels).reset_index()
table = table.sort_values("model", key=lambda m: m.map(first).fillna(len(first)), kind="stable")
ui.table(table, hide_index=True, width="stretch",
         column_config={label: st.column_config.NumberColumn(label, format="%.3f") for label in labels})
undefined = long[long["value"].isna()]
if len(undefined):
    st.caption("— = undefined: " + "; ".join(f"{r.model} · {r.label.split(':')[0]}: {r.reason}" for r in undefined.itertuples()))
partial = long[long["coverage"].notna()]
if len(partial):
    st.caption("Means over a subset: " + "; ".join(f"{r.model} · {r.label}: {r.coverage}" for r in partial.itertuples()))
with st.spinner("Placing each headline against chance…"):
    bands = data.headline_chance(ref)
nulls = {k: label for k, label in zip(long["key"], long["label"]) if any(k in b for b in bands.values())}
against = [{"model": m, **{label: ui.vs_chance(bands.get(m, {}).get(k)) for k, label in nulls.items()}} for m in table["model"]]
if against and nulls:
    st.caption("Against chance: the largest p-value of the headline under the two null models (random answers; answers "
               "shuffled across personas), simulated on each model's own design. 'chance-like' = a model answering at "
               "random could have scored as well; — = undefined.")
    ui.table(pd.DataFrame(against), hide_index=True, width="stretch")
    missing = data.no_verdicts(ref, list(table["model"]))
    if missing:
        st.caption("No verdict: " + "; ".join(missing))

# -- invalid answers and refusals: what makes two models comparable --------------------------------
st.subheader("Invalid answers and refusals")
st.caption("Share of each model's answers that could not be scored (kept, never filled in) and, where a method counts "
           "them, of answers that step out of the persona, with 95 % Wilson intervals. A model answering 40 % invalid is not "
           "comparable with one answering 2 %, whatever its scores.")
with st.spinner("Counting invalid answers…"):
    rates = data.invalid_rates(ref)
rates = rates[rates["model"].isin(ctx.models)]
if len(rates):
    shown_rates = rates.assign(
        share=[ui.ci_text(100 * r, 100 * lo, 100 * hi, 1) + " %" if n else "— (no answers)"
               for r, lo, hi, n in zip(rates["rate"], rates["lo"], rates["hi"], rates["n"])])
    ui.table(shown_rates[["model", "method", "kind", "count", "n", "share"]], hide_index=True, width="stretch",
                 column_config={"share": "share [95 % CI] ↓", "n": "answers"})

# -- how the numbers are made: tools, readers and benches, for whoever wants to check them ------------
with st.expander("How the numbers are made"):
    st.caption("Every number above is read from one document per method, the method's report on this store (the same "
               "as `python -m analysis metrics <method> --json`), kept in the store until its answers or its code "
               "change. Each reply is read by the method's reply reader; how well each reads hand-labelled replies:")
    for method in dict.fromkeys(rates["method"]):
        ui.readers_caption(method)

# -- where to go ----------------------------------------------------------------------------------
st.subheader("Explore")
pages = [p for p in all_pages() if p.url != "overview"]
grid = st.columns(3)
for k, page in enumerate(pages):
    with grid[k % 3].container(border=True):
        st.page_link(page.script, label=page.title, icon=page.icon)
        st.caption(page.blurb)

with st.expander(f"All {len(runs)} runs in {ref.name}"):
    ui.table(runs, hide_index=True, width="stretch")

# -- the answers against the Samples page's samples: the reply table, built here or in the background --------------
with st.spinner("Counting the replies behind the answers…"):
    said = against_answers_text(against_answers(data.samples(ref), answer_rows), lambda m: get_method(m).label)
if said:
    samples_note.caption(said)
