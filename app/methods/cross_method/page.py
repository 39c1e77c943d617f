"""Cross-method validity: do the methods agree about a persona? The MTMM matrix, the convergent and discriminant
pairs against theory and (where bundled) human data, the pattern summary, and each persona's samples in every method,
all read from the cross-method report."""

import pandas as pd
import streamlit as st

from analysis import methods
from analysis.methods.cross_method import figures as xm_figures
from analysis.methods.cross_method import plots
from app import data, samples, state, ui
from app.methods.cross_method import data as xm_data

ctx, models = ui.method_page(
    "cross_method", "One persona set run through every method that takes one (values, inventory, trust game, "
    "PersonaGym), each on its own protocol. If a model plays a persona faithfully, the methods should agree about that "
    "persona the way people's answers agree: a persona high on Benevolence should score high on Agreeableness (Roccas "
    "et al. 2002). A model that tailors each answer to each questionnaire will not.", xm_data.models,
    nothing="cross-method campaign",
    hint="Run one on the **Run** page (method Cross-method) or `python -m analysis run cross-method --model SPEC`.")
ref = ctx.ref
model = state.selectbox("Model", models, key="model")
mdoc = xm_data.doc(ref)["models"][model]
ui.model_notes([model], data.model_specs(ref))
with st.spinner(f"Shuffling personas within each method ({data.CHANCE_SIMS} times; cached after)…"):
    bands = xm_data.bands(ref, model)
labels = xm_figures.labels(mdoc)

pattern, convergent = mdoc["pattern"], mdoc["convergent"]
verdict = ui.chance_verdict(bands.get("pattern"))
if verdict in (None, "chance-like"):
    st.warning(f"**At chance the pattern is noise.** {model}'s pattern r is "
               + (f"{ui.ci_text(pattern['value'], pattern['lo'], pattern['hi'])}; with the personas shuffled within each "
                  f"method it falls in {ui.chance_text(bands.get('pattern'))}. Only a pattern beyond that band says the "
                  "methods agree about the personas." if pattern.get("value") is not None
                  else f"undefined: {pattern.get('reason')}."), icon="⚠️")
elif verdict != "beyond chance":
    st.info(f"Pattern r against chance: {ui.chance_text(bands.get('pattern'))} — too few shuffles for a verdict.")

m = st.columns(4)
m[0].metric("Personas", mdoc["n_personas"], help="The campaign's persona set.")
m[1].metric("Methods", len(mdoc["methods"]))
m[2].metric("Convergent mean r", ui.fmt(convergent.get("value"), 2),
            help=convergent.get("reason") or f"Mean over {convergent['n_pairs']} convergent pairs; 95 % CI "
                                               f"{ui.ci_text(convergent['value'], convergent['lo'], convergent['hi'])}")
m[3].metric("Pattern r", ui.fmt(pattern.get("value"), 2),
            help=pattern.get("reason") or f"r_alerting-CV against the {pattern['against']} over {pattern['n_pairs']} "
                                          f"pairs; 95 % CI {ui.ci_text(pattern['value'], pattern['lo'], pattern['hi'])}")

st.subheader("Who was scored")
st.caption("Each method's scores come from its own report on the campaign's run of it, joined by persona identity (the "
           "persona's description), never by row order. A persona a method could not score (no valid answer) is "
           "listed; it is left out of every correlation with that method. A persona scored on some scales only (an "
           "inventory scale needs valid answers to half its items) is left out of the pairs of the others.")
rows = [{"method": methods.get(name).title, "run": d.get("run_id"), "scored": f"{d['n_scored']} of {mdoc['n_personas']}",
         "not scored": ", ".join(d["missing"]) or "—", "why": d.get("reason") or ("no valid answer" if d["missing"] else "—")}
        for name, d in mdoc["methods"].items()]
ui.table(pd.DataFrame(rows), hide_index=True, width="stretch")

st.subheader("MTMM matrix")
st.caption("Pearson r across personas for every pair of constructs (an inventory's facets only where a pair names "
           "them). Hover: the 95 % bootstrap CI over personas and, across methods, the central 95 % of r with the "
           "personas shuffled within each method (that method's answers given to other personas) and its two-sided "
           "p. With many cells some land outside their own band by chance, so a cell reads 'beyond chance' only when "
           "its |r| beats the largest |r| the shuffles give over all cells (the family-wise threshold, 95 % of draws; "
           "its p beside). Within-method cells have no such band: a shuffle within one method leaves them as they are. "
           "Click a cell for its scatter.")
families = bands.get("families") or {}
if families.get("cells"):
    st.caption(xm_data.family_caption(families["cells"]))
matrix = xm_data.matrix(mdoc, bands.get("cells") or {})
order = xm_figures.order(matrix, labels)
event = ui.plot(plots.heatmap(matrix, order, labels), key="xm_matrix", select=True)
picked = samples.units(event, ["a", "b"])
if picked and (picked[0]["a"], picked[0]["b"]) != st.session_state.get("xm_cell_seen"):  # a new click picks the cell
    st.session_state["xm_cell_seen"] = (picked[0]["a"], picked[0]["b"])
    st.session_state["xm_a"], st.session_state["xm_b"] = picked[0]["a"], picked[0]["b"]
convergent_pairs = [p for p in mdoc["pairs"] if p["kind"] == "convergent" and p["r"] is not None]
first = (convergent_pairs[0]["a"], convergent_pairs[0]["b"]) if convergent_pairs else tuple(order[:2])
scores = xm_data.scores(mdoc)
if len(order) >= 2:
    c = st.columns(2)
    a = state.selectbox("Cell: row", order, key="xm_a", default=first[0], format_func=labels.get, container=c[0])
    b = state.selectbox("Cell: column", [x for x in order if x != a], key="xm_b",
                        default=first[1] if first[1] != a else None, format_func=labels.get, container=c[1])
    entry = matrix[((matrix["a"] == a) & (matrix["b"] == b)) | ((matrix["a"] == b) & (matrix["b"] == a))]
    st.markdown(f"**{ui.plain(labels[a])} × {ui.plain(labels[b])}**" + (
        f": r = {ui.ci_text(entry['r'].iloc[0], entry['lo'].iloc[0], entry['hi'].iloc[0])}, n = {entry['n'].iloc[0]}"
        if len(entry) and pd.notna(entry["r"].iloc[0]) else f": — {entry['reason'].iloc[0]}" if len(entry) else ""))
    point = ui.plot(plots.scatter(scores, a, b, labels), key="xm_scatter", select=True)
    clicked = samples.units(point, ["persona_id"])
    if clicked and clicked[0]["persona_id"] != st.session_state.get("xm_point_seen"):
        st.session_state["xm_point_seen"] = st.session_state["xm_persona"] = clicked[0]["persona_id"]

st.subheader("Convergent and discriminant pairs")
st.caption("Convergent: constructs theory links (a value and the trait people who hold it tend to have; the Trust facet "
           "and what a persona sends in the trust game). Discriminant: pairs people's data show near 0 (Neuroticism "
           "and values). Each pair with its r and CI, the grey band of shuffled personas, the predicted direction "
           "(hollow)" + (" and the published human r where one is bundled (diamond; see the sources below)"
                         if any(p.get("human_r") is not None for p in mdoc["pairs"]) else "") + ". 'vs chance': "
           "the pair's own p and its Holm-adjusted p over the theory pairs (the family), the verdict read from the "
           "adjusted p; a family of m pairs needs at least m / 0.05 shuffles for any verdict.")
pair_bands = bands.get("pairs") or {}
pairs = xm_figures.pairs_with_chance(mdoc, pair_bands)  # the bands the chance document drew
for kind, title in xm_figures.PAIR_KINDS:
    chosen = [p for p in pairs if p["kind"] == kind]
    if not chosen:
        continue
    ui.plot(plots.pairs_chart(chosen, title), key=f"xm_pairs_{kind}")
    table = pd.DataFrame([{"pair": p["label"], "r": p["r"], "CI": ui.ci_text(p["r"], p["lo"], p["hi"]) if p["r"] is not None else "—",
                           "n": p["n"], "vs chance (Holm)": xm_data.pair_vs_chance(p.get("chance")),
                           "human r": p.get("human_r"), "source": p["source"], "why —": p.get("reason") or ""}
                          for p in chosen])
    if table["human r"].isna().all():  # no published human figure is bundled: no column that speaks of one
        table = table.drop(columns="human r")
    ui.table(table, hide_index=True, width="stretch",
             column_config={"r": st.column_config.NumberColumn("r", format="%.2f"),
                            "human r": st.column_config.NumberColumn("human r", format="%.2f")})

published = [p for p in mdoc["pairs"] if p.get("published")]
if published:
    st.markdown(f"**Published LLM figures for these pairs — {xm_data.PUBLISHED_LABEL}**")
    st.caption("The paper's r per model of " + "; ".join(dict.fromkeys(p["published"][0]["measures"] for p in published))
               + ", across each model's 1,250 simulated response profiles on unshaped persona descriptions — figures "
               "for LLMs, not people (the pairs' human r stays empty), shown beside this store's r (its personas and PVQ) for scale, never ranked with "
               "this store's models and never part of the pattern. " + published[0]["published"][0]["source"])
    ui.plot(xm_figures.published_pairs(xm_data.doc(ref), models, model), key="xm_published")
    ui.table(xm_data.published_table(mdoc), hide_index=True, width="stretch",
             column_config={p["label"]: st.column_config.NumberColumn(p["label"], format="%.2f") for p in published})

st.subheader("Summary per model")
st.caption("Convergent mean r: the mean r of the convergent pairs. Pattern r: Westen & Rosenthal's (2003) r_alerting-CV, "
           "the correlation of the pairs' r (Fisher z) with what is predicted (published human r where every pair has "
           "one, else the predicted direction: 1 convergent, 0 discriminant); discriminant pairs count as |r|, since a "
           "link of either sign breaks 'no link'. It measures the ordering, not the size: 1 = the convergent pairs sit "
           "above the discriminant ones as predicted (convergent r of 0.1 over discriminant r of 0 also give 1: read it "
           "with the convergent mean r); near 0 = no relation; below 0 = discriminant pairs linked more strongly than "
           "convergent ones. Each with its bootstrap CI over personas and its chance band (the same |r| rule).")
summary = []
for name in models:
    d = xm_data.doc(ref)["models"][name]
    b = xm_data.bands(ref, name)
    summary.append({"model": name, "personas": d["n_personas"],
                    "convergent r": ui.ci_text(d["convergent"]["value"], d["convergent"]["lo"], d["convergent"]["hi"])
                    if d["convergent"]["value"] is not None else "—",
                    "convergent vs chance": ui.vs_chance(b.get("convergent")),
                    "pattern r": ui.ci_text(d["pattern"]["value"], d["pattern"]["lo"], d["pattern"]["hi"])
                    if d["pattern"]["value"] is not None else "—",
                    "pattern vs chance": ui.vs_chance(b.get("pattern")), "against": d["pattern"]["against"],
                    "why —": d["pattern"].get("reason") or d["convergent"].get("reason") or ""})
ui.table(pd.DataFrame(summary), hide_index=True, width="stretch")
ui.chance_caption(bands.get("pattern"))

st.subheader("A persona in every method")
people = list(scores["persona_id"])
names = dict(zip(scores["persona_id"], scores["name"]))
persona = state.selectbox("Persona", people, key="xm_persona", format_func=lambda p: f"{p} · {names.get(p, '')}")
key = scores.loc[scores["persona_id"] == persona, "key"].iloc[0]
st.caption("Its scores, then its replies in every method of the campaign (click a point of the scatter to pick one).")
mine = scores[scores["persona_id"] == persona][[c for c in labels if c in scores]].T
mine.columns = ["score"]
mine.index = [labels[c] for c in mine.index]
ui.table(mine, width="stretch", height=min(400, 35 * len(mine) + 40),
         column_config={"score": st.column_config.NumberColumn("score", format="%.3f")})
ids = mdoc.get("persona_ids") or {}
# the campaign's own runs only: every reply of the store took ~1 s to build on a first visit
everything = data.run_samples(ref, tuple(sorted(d["run_id"] for d in mdoc["methods"].values() if d.get("run_id"))))
parts = []
for name, d in mdoc["methods"].items():
    pid = (ids.get(name) or {}).get(key)
    if d.get("run_id") and pid is not None:
        parts.append(everything[(everything["run_id"] == d["run_id"]) & (everything["persona_id"].astype(str) == str(pid))])
rows = pd.concat(parts) if parts else everything.iloc[0:0]
samples.panel(ref, rows, f"{persona} · {names.get(persona, '')}", key="xm_samples", split="method",
              split_label="Method", columns=("method", "kind", "item", "context", "parsed", "valid", "reason"),
              labels=("kind", "item", "context"))

with st.expander("Sources of the pairs"):
    sources = xm_data.doc(ref).get("sources") or {}
    st.markdown("\n".join(f"- **{k}**: {ui.plain(v)}" for k, v in sources.items()))
