"""Leaderboard: every method's models ranked. A method with its own board (``MethodView.leaderboard``) draws it; the
others are ranked by each of their headlines, as their reports hold them (undefined: "—", never ranked)."""

import streamlit as st

from analysis import methods
from app import data, state, ui
from app.methods import views

ctx = ui.context()
ref = ctx.ref
ui.header("Which model plays personas best, by each method's own measure: a method's own board where "
          "it has one, then every other method's headline numbers ranked.")

ui.model_notes(list(ctx.models), data.model_specs(ref), embedded=False)  # each board names the embedded model
present = {m.name for m in data.present_methods(ref)}
shown = [v for v in views() if v.name in present]
if not shown:
    ui.empty(f"No results in **{ref.name}** yet.",
             "Start a run on the **Run** page, or import published results on the **Data** page.")
    st.stop()


def ranked(method: str) -> None:
    """One table per method: models × headlines, ranked by the first headline (higher or lower is better as the
    headline declares); an undefined headline gets "—" and no rank, with its reason."""
    long = data.headlines(ref)
    long = long[(long["method"] == method) & long["model"].isin(ctx.models)]
    if long.empty:
        ui.empty("None of the models picked in the sidebar has results of this method.")
        return
    first = methods.get(method).headlines[0]
    table = long.pivot(index="model", columns="label", values="value").reindex(
        columns=list(dict.fromkeys(long["label"]))).reset_index()
    order = {m: i for i, m in enumerate(ctx.models)}  # ties and unranked rows in the sidebar's order: real models first
    table = table.sort_values("model", key=lambda m: m.map(order), kind="stable")
    table = table.sort_values(first.label, ascending=not first.higher_is_better, na_position="last", kind="stable")
    defined = int(table[first.label].notna().sum())
    table.insert(0, "#", [str(k) for k in range(1, defined + 1)] + ["—"] * (len(table) - defined))
    ui.table(table, hide_index=True, width="stretch",
             column_config={h.label: st.column_config.NumberColumn(h.label, format="%.3f")
                            for h in methods.get(method).headlines})
    undefined = long[long["value"].isna()]
    if len(undefined):
        st.caption("— = undefined: " + "; ".join(f"{r.model} · {r.label}: {r.reason}" for r in undefined.itertuples()))
    partial = long[long["coverage"].notna()]
    if len(partial):
        st.caption("Means over a subset: " + "; ".join(f"{r.model} · {r.label}: {r.coverage}"
                                                       for r in partial.itertuples()))


def invalid_warning(method: str) -> None:
    """A warning when the ranked models' invalid (or refusal) shares differ by more than 20 points."""
    for gap in data.invalid_gaps(ref, method, ctx.models):
        st.warning(f"Not ranked on equal footing — {gap['text']}.", icon="⚠️")


for view in shown:
    if view.leaderboard is not None:
        invalid_warning(view.name)
        view.leaderboard(ctx)
        continue
    st.subheader(methods.get(view.name).title)
    st.caption(f"Ranked by {methods.get(view.name).headlines[0].label}. See the method's page for its chance bands "
               "and reliability.")
    invalid_warning(view.name)
    ranked(view.name)


# -- the results table for the paper -----------------------------------------------------------------
st.subheader("Results table for the paper")
st.caption("Every headline per model and configuration, as `metrics --json` gives it: value (— with its reason), 95 % "
           "CI and what it resamples, n, read share, chance verdict, the runs and the code version; sortable here, "
           "downloaded as CSV, Markdown or LaTeX (booktabs). `python -m analysis table` writes the same.")
if state.toggle("Build the results table", key="lb_table", help="Computes each method's chance bands when not kept yet "
                "(a few seconds to a minute on a large store)."):
    from analysis.results_table import render

    with st.spinner("Building the results table…"):
        results = data.results_table(ref, tuple(ctx.models))
    shown_columns = ["method_label", "headline", "model", "configuration", "value", "reason", "ci_lo", "ci_hi",
                     "ci_unit", "n", "of", "n_unit", "read_share", "chance", "runs"]
    frame = results.frame()
    ui.table(frame[shown_columns].assign(runs=frame["runs"].map(", ".join)), hide_index=True, width="stretch",
             column_config={c: st.column_config.NumberColumn(c, format="%.3f") for c in ("value", "ci_lo", "ci_hi")}
             | {"read_share": st.column_config.NumberColumn("read share", format="percent")})
    st.caption(ui.plain(results.caption()))
    cols = st.columns(3)
    for col, (form, label, mime, ext) in zip(cols, (("csv", "CSV", "text/csv", "csv"),
                                                    ("markdown", "Markdown", "text/markdown", "md"),
                                                    ("latex", "LaTeX", "application/x-tex", "tex"))):
        col.download_button(f"Download as {label}", render(results, form), file_name=f"rolescope-results.{ext}",
                            mime=mime, key=f"lb_table_{form}", icon=":material/download:", on_click="ignore")
