"""Compare two models: every method's headlines side by side with paired bootstrap CIs, largest gaps, overlaid plots."""

import pandas as pd
import streamlit as st

from analysis.errors import RoleScopeError
from app import charts, data, state, ui
from app.methods import views
from app.methods.base import Pair
from app.report_file import download_button
from app.stores import ref_for

ctx = ui.context()
ref = ctx.ref
ui.header("The same personas, contexts and statements answered by two models: where do they differ, "
          "and is the difference larger than the sampling noise?")

# Every store the sidebar offers (the bundled demo, your store, files opened this session) can hold either side.
STORES = {}
for key, (label, path, read_only) in ui.store_ids().items():
    try:
        STORES[key] = (label, ref_for(path, read_only))
    except RoleScopeError as exc:  # an opened file that went away: the others stay comparable
        st.caption(f"{label}: {ui.plain(exc)}")
current = next((k for k, (_, r) in STORES.items() if r.path == ref.path), None)
if current is not None:
    STORES[current] = (STORES[current][0], ref)  # the sidebar's store with its chosen configurations
options = [f"{key}::{m}" for key, (_, r) in STORES.items() for m in (ctx.models if key == current else data.models_in(r))]
if len(options) < 2:
    ui.empty(f"Comparing needs two models; {ref.name} has {len(ctx.models)} selected.",
             "Pick two models in the sidebar, run a second model configuration on the **Run** page, or open another "
             "store on the **Data** page: both sides may come from different stores.")
    st.stop()


def _side(option: str) -> tuple[str, str]:
    """'store-key::model' -> (store key, model)."""
    key, model = option.split("::", 1)
    return key, model


def _full_name(option: str) -> str:
    key, model = _side(option)
    return f"{model} · {STORES[key][0]}"


mine = [o for o in options if _side(o)[0] == current]
left, right = st.columns(2)
side_a = state.selectbox("Model A", options, key="a", default=mine[0] if mine else options[0], container=left,
                         format_func=_full_name)
rest = [o for o in options if o != side_a]
side_b = state.selectbox("Model B", rest, key="b", default=next((o for o in mine if o != side_a), rest[0]), container=right,
                         format_func=_full_name)
(key_a, a), (key_b, b) = _side(side_a), _side(side_b)
ref_a, ref_b = STORES[key_a][1], STORES[key_b][1]
# within one store the model names tell the sides apart; across stores each side is named with its store
la, lb = (_full_name(side_a), _full_name(side_b)) if key_a != key_b else (a, b)
if ref_a.path != ref_b.path:
    st.info(f"Comparing across stores: **{la}** and **{lb}**. Paired CIs use the personas, contexts and testings both "
            "were asked; Ordinal win rates, which depend on each store's pool of models, are not compared.", icon="🔀")
ui.model_notes([a, b], data.model_specs(ref_a) | data.model_specs(ref_b))
# the report file of the two models: one file when they share a store, else one per store
sides = [(ref_a, [a, b])] if ref_a.path == ref_b.path else [(ref_a, [a]), (ref_b, [b])]
for k, (col, (side_ref, side_models)) in enumerate(zip(st.columns([1, 1, 4])[:len(sides)], sides)):
    download_button(side_ref, models=side_models, key=f"report-download-{k}", container=col)

with st.spinner("Computing paired bootstrap CIs…"):
    diffs = data.compare(ref_a, a, ref_b, b)
st.subheader("Headline numbers")
if diffs.empty:
    ui.empty(f"{la} and {lb} share no method with data.", "Run both on the same method first.")
else:
    st.caption("A − B with a 95% paired bootstrap CI where both models answered the same units (each row's note names "
               "them: the shared personas, testings or contexts resampled together). A CI that excludes 0 means the "
               "difference is larger than resampling noise. Grey points have no CI. An undefined A − B (—, its reason "
               "in the note) is neither shown nor plotted, whatever the two sides read.")
    table = diffs.assign(ci=[ui.ci_text(None, lo, hi, 3) if lo == lo else "—" for lo, hi in zip(diffs["lo"], diffs["hi"])])
    table = table.drop(columns=["lo", "hi"]).rename(columns={"a": la, "b": lb, "diff": "A − B", "ci": "95% CI of A − B"})
    table = table[["method", "metric", la, lb, "A − B", "95% CI of A − B", "note"]]
    config = {c: st.column_config.NumberColumn(c, format="%.3f") for c in (la, lb, "A − B")}
    ui.table(table, hide_index=True, width="stretch", column_config=config, height=36 * (len(table) + 1) + 4)
    if pd.to_numeric(diffs["diff"], errors="coerce").notna().any():
        ui.plot(charts.difference_forest(ref_a, a, ref_b, b, (la, lb)), key="forest")
    else:  # an empty forest would draw only its axis
        st.caption("No A − B is defined for this pair (each row's note says why): nothing to plot.")
    band_a, band_b = data.headline_chance(ref_a).get(a) or {}, data.headline_chance(ref_b).get(b) or {}
    heads = data.headlines(ref_a)
    keys = dict(zip(heads["key"], heads["label"]))
    against = [{"metric": label, la: ui.vs_chance(band_a.get(key)), lb: ui.vs_chance(band_b.get(key))}
               for key, label in keys.items() if band_a.get(key) or band_b.get(key)]
    if against:
        st.caption("Each model against chance (largest p under random answers and shuffled answers, on its own design): a "
                   "difference between two chance-like models is a difference between two kinds of noise.")
        ui.table(against, hide_index=True, width="stretch")
        missing = data.no_verdicts(ref_a, [a]) + data.no_verdicts(ref_b, [b])
        if missing:
            st.caption("No verdict: " + "; ".join(missing))

rates_a, rates_b = data.invalid_rates(ref_a), data.invalid_rates(ref_b)
pair = pd.concat([rates_a[rates_a["model"] == a].assign(model=la), rates_b[rates_b["model"] == b].assign(model=lb)])
if len(pair):
    st.subheader("Invalid answers and refusals")
    st.caption("Share of unscorable answers (and of refusals, where a method counts them) with 95 % Wilson intervals: "
               "when the two models' intervals are far apart, their scores rest on different subsets of the questions.")
    wide = pair.assign(share=[ui.ci_text(100 * r, 100 * lo, 100 * hi, 1) + " %" if n else "—"
                              for r, lo, hi, n in zip(pair["rate"], pair["lo"], pair["hi"], pair["n"])])
    wide = wide.pivot_table(index=["method", "kind"], columns="model", values="share", aggfunc="first").reset_index()
    wide = wide[["method", "kind", *dict.fromkeys(c for c in (la, lb) if c in wide.columns)]]  # A before B
    ui.table(wide, hide_index=True, width="stretch")

pair = Pair(ref_a, a, ref_b, b, la, lb)
for view in views():
    if view.compare is not None:
        view.compare(pair)
