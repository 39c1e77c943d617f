"""Samples: every stored reply of any run or pair of runs — filter, search, sort and page through the transcripts,
open one in full, set two models side by side, see a prompt × model matrix, export what is filtered, and name, tag
and annotate runs. Everything chosen is in the URL.

Method-free: each method's ``Method.samples`` turns its tables into the rows of ``analysis.samples``; its view adds
what a sample shows under its parsed answer (``MethodView.sample_detail``).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis import methods
from analysis.errors import RoleScopeError
from analysis.runs.labels import all_tags, parse_tags, set_label, tagged
from analysis.sample_export import export_name, export_samples
from analysis.samples import ACROSS, INVALID, across_runs, agreement, filter_samples, matrix, page_of, side_by_side, sort_samples
from app import data, state, ui
from app.methods import view, views
from app.nav import page
from app.samples import show_call
from app.stores import open_store

ctx = ui.context()
ref = ctx.ref
ui.header(f"Every stored reply in **{ref.name}**: filter, search and sort the transcripts, open one in full "
          "(its messages, raw reply, what the reader took from it and why), set two models side by side, or see a "
          "prompt × model matrix. Replies are shown as plain text.")

PAGE_SIZE = 50
MATRIX_LIMIT = 200
DETAILS = {v.name: v.sample_detail for v in views() if v.sample_detail is not None}
LIST_COLUMNS = ["model", "kind", "persona", "item", "context", "parsed", "valid", "reason", "truncated", "refusal", "reply"]
ANY = {"any": "any", "yes": "yes", "no": "no"}
TRI = {"any": None, "yes": True, "no": False}
EXPORTS = {"csv": "CSV", "json": "JSON", "parquet": "Parquet"}
MIME = {"csv": "text/csv", "json": "application/json", "parquet": "application/vnd.apache.parquet"}
EXPORT_HELP = ("The samples filtered above, each with the messages the model saw, the generation parameters, top "
               "logprobs, finish reason, tokens and cost of its stored call (empty for imports without one) and its "
               "run's name, tags and note. Keys scrubbed; CSV cells defused of formulas.")

frame = data.samples(ref)
runs = data.labelled_runs(ref)
if frame.empty:
    ui.empty(f"No samples in **{ref.name}** yet.", "Start a run on the **Run** page or import results on the Data page.")
    st.stop()


def _run_labels(runs: pd.DataFrame) -> dict[str, str]:
    """Run id -> 'name (run id) · tags' where the run has a name or tags, else its id."""
    out = {}
    for run_id, name, tags in zip(runs["run_id"], runs["name"], runs["tags"]):
        text = f"{name} ({run_id})" if isinstance(name, str) and name else run_id
        out[run_id] = text + (f" · {', '.join(tags)}" if tags else "")
    return out


RUN_LABELS = _run_labels(runs)


def run_label(run_id: str) -> str:
    """'name (run id) · tags' where the run has a name or tags, else its id."""
    return RUN_LABELS.get(run_id, run_id)


# -- which samples ------------------------------------------------------------------------------------
view_of = state.segmented("View", ["list", "pair", "matrix", "one", "runs"], key="s_view",
                          format_func={"list": "Transcripts", "pair": "A vs B", "matrix": "Matrix",
                                       "one": "One persona across models", "runs": "Name and tag runs"}.get)
ACROSS_LABELS = {"persona": "Persona", "item": "Item / statement / question", "context": "Context / testing"}
with st.container(border=True):
    c = st.columns(4)
    tags = state.multiselect("Run tags", all_tags(runs), key="s_tag", default=[], container=c[0],
                             help="Only the runs carrying every tag picked (name and tag runs in the last view).") \
        if all_tags(runs) else []
    run_ids = set(tagged(runs, tags)["run_id"]) if tags else None
    scope = frame if run_ids is None else frame[frame["run_id"].isin(run_ids)]
    # each column's levels with unique() (vectorised): a set() of an Arrow-backed column walks it in Python
    present_names = set(scope["method"].unique())
    present = [m.name for m in methods.all_methods() if m.name in present_names]
    chosen_methods = state.multiselect("Method", present, key="s_method", default=[], container=c[1],
                                       format_func=lambda m: methods.get(m).label)
    scope = filter_samples(scope, method=chosen_methods)
    in_scope = set(scope["model"].unique())
    models = [m for m in ctx.models if m in in_scope] + sorted(in_scope - set(ctx.models))  # judges are models too
    chosen_models = state.multiselect("Model", models, key="s_model", default=[], container=c[2])
    scope = filter_samples(scope, model=chosen_models)
    chosen_runs = state.multiselect("Run", scope["run_id"].unique().tolist(), key="s_run", default=[],
                                    container=c[3], format_func=run_label)
    scope = filter_samples(scope, run_id=chosen_runs)
    c = st.columns(4)
    validity = state.segmented("Valid", ["any", "valid", "invalid"], key="s_valid", container=c[0])
    truncated = state.segmented("Truncated", list(ANY), key="s_trunc", container=c[1])
    refusal = state.segmented("Refusal", list(ANY), key="s_refusal", container=c[2])
    search = state.text_input("Search the replies", key="s_q", container=c[3], placeholder="words in the reply")
    scope = filter_samples(scope, valid={"any": None, "valid": True, "invalid": False}[validity],
                           truncated=TRI[truncated], refusal=TRI[refusal], search=search)
    c = st.columns(5)
    levels = {}
    for i, (column, label) in enumerate((("kind", "Kind"), ("reason", "Invalid reason"), ("persona", "Persona"),
                                         ("item", "Item / statement / question"), ("context", "Context / testing"))):
        options = sorted(scope[column].dropna().unique().tolist())
        levels[column] = state.multiselect(label, options, key=f"s_{column}", default=[], container=c[i]) \
            if options else []
    parsed_options = sorted(scope["parsed"].dropna().unique().tolist()) + ([INVALID] if (~scope["valid"]).any() else [])
    levels["parsed"] = state.multiselect("Parsed value", parsed_options, key="s_parsed", default=[]) \
        if parsed_options else []
    shown = filter_samples(scope, **levels)


def _export(rows: pd.DataFrame) -> None:
    """Download the filtered samples with their calls and runs' labels, scrubbed of keys
    (``analysis.sample_export``): built only when a button is clicked (a callable ``data``, run then)."""
    store = ref.store
    c = st.columns([1, 1, 1, 3])
    for i, (fmt, label) in enumerate(EXPORTS.items()):
        c[i].download_button(f"Export {len(rows):,} as {label}", lambda fmt=fmt: export_samples(store, rows, fmt),
                             file_name=export_name(ref.name, len(rows), len(frame), fmt), mime=MIME[fmt],
                             key=f"s_export_{fmt}", icon=":material/download:", disabled=rows.empty,
                             on_click="ignore", help=EXPORT_HELP)


def _chart_link(row: pd.Series) -> None:
    """Links from a sample to its run (Data page), to the page of the method it feeds, and to its persona across
    models and runs."""
    v = view(str(row["method"]))
    if pd.notna(row["persona"]):
        st.page_link(page("samples").script, label="This persona across models and runs", icon=":material/person:",
                     query_params={"s_view": "one", "s_one_by": "persona", "s_one": str(row["persona"])})
    c = st.columns(2)
    c[0].page_link(page("data").script, label=f"Its run {row['run_id']}", icon=":material/table_view:",
                   query_params={"view": "runs", "run": str(row["run_id"])})
    home = next(p for p in v.pages if p.url == v.home_url) if any(p.url == v.home_url for p in v.pages) else v.pages[0]
    c[1].page_link(home.script, label=f"The chart it feeds: {home.title}", icon=home.icon,
                   query_params={"models": str(row["model"])})


def show_full(row: pd.Series) -> None:
    """One sample in full: what the reader took from the reply and why, the method's detail, the call."""
    left, right = st.columns([1, 2])
    with left:
        st.markdown(f"**{ui.plain(methods.get(str(row['method'])).label)} · {ui.plain(row['kind'])}** · "
                    f"{ui.plain(row['model'])}")
        st.caption(f"Persona {ui.plain(row['persona'])} · {ui.plain(row['item'])} · {ui.plain(row['context'])}")
        if row["valid"]:
            st.success(f"Read as: {ui.plain(row['parsed'])}", icon="✅")
        else:
            st.error(f"Invalid: {ui.plain(row['reason'] if pd.notna(row['reason']) else 'no reason recorded')}", icon="🛑")
        flags = [name for name in ("truncated", "refusal") if pd.notna(row[name]) and bool(row[name])]
        if flags:
            st.warning("Flagged: " + ", ".join(flags), icon="⚠️")
        source = data.source_row(ref, str(row["table"]), str(row["key"]))
        if source is not None:
            with st.expander("The stored row (every field the reader wrote)"):
                st.json({k: (v.item() if hasattr(v, "item") else v) for k, v in source.items()
                         if k not in ("raw", "answer", "forecast_raw") and pd.notna(v)}, expanded=True)
            detail = DETAILS.get(str(row["method"]))
            if detail is not None:
                detail(ref, str(row["table"]), source)
        _chart_link(row)
    with right:
        show_call(ref, row["cache_key"] if pd.notna(row["cache_key"]) else None,
                  row["reply"] if pd.notna(row["reply"]) else None)


def _opener(table_key: str, ids: list[str], labels: dict[str, str], key: str, label: str) -> str | None:
    """Which row is open: a row clicked in the table (``table_key``) or picked in the selectbox ``key`` (in the URL),
    the click winning when it is new. None while nothing is open."""
    rows = (st.session_state.get(table_key) or {}).get("selection", {}).get("rows", [])
    clicked = ids[rows[0]] if rows and rows[0] < len(ids) else None
    if clicked is not None and st.session_state.get(f"_{table_key}_last") != clicked:
        st.session_state[f"_{table_key}_last"] = clicked
        st.session_state[key] = clicked
    choice = state.selectbox(label, ["", *ids], key=key, format_func=lambda i: labels.get(i, "—"))
    return choice or None


def _label(row: pd.Series) -> str:
    state_ = "valid" if row["valid"] else "invalid"
    return f"{row['model']} · {row['persona']} · {row['item']} · {row['context']} · {state_}"


# -- views --------------------------------------------------------------------------------------------
def transcripts() -> None:
    n_bad = int((~shown["valid"]).sum())
    st.caption(f"**{len(shown):,}** of {len(frame):,} samples · {n_bad:,} invalid. Click a row to open it.")
    c = st.columns([2, 1, 1, 3])
    sort = state.selectbox("Sort by", ["stored order", *LIST_COLUMNS, "run_id"], key="s_sort", container=c[0])
    descending = state.toggle("Descending", key="s_desc", container=c[1])
    rows = sort_samples(shown, None if sort == "stored order" else sort, descending)
    pages = max(1, -(-len(rows) // PAGE_SIZE))  # a page of rows in one table: no widget per row
    number = state.number_input(f"Page (of {pages})", 1, pages, 1, key="s_page", container=c[2])
    rows, _ = page_of(rows, number, PAGE_SIZE)
    table = rows[LIST_COLUMNS].assign(reply=rows["reply"].str.slice(0, 200))
    ui.table(table, hide_index=True, width="stretch", height=min(38 + 35 * len(table), 460), key="s_table",
                 on_select="rerun", selection_mode="single-row",
                 column_config={"reply": st.column_config.TextColumn("reply (start)", width="large")})
    _export(shown)
    linked = st.session_state.get("s_open") or st.query_params.get("s_open")  # a link may open one of another page
    if linked and linked not in set(rows["sample_id"]) and linked in set(shown["sample_id"]):
        rows = pd.concat([shown[shown["sample_id"] == linked], rows])
    ids = list(rows["sample_id"])
    sid = _opener("s_table", ids, {i: _label(r) for i, (_, r) in zip(ids, rows.iterrows())}, "s_open", "Open a sample")
    if sid is not None:
        st.markdown("#### The sample")
        show_full(rows[rows["sample_id"] == sid].iloc[0])


def pair() -> None:
    models = list(dict.fromkeys(shown["model"]))
    if len(models) < 2:
        ui.empty("A vs B needs samples of two models.", "Pick no model or two in the filters above.")
        return
    c = st.columns([2, 2, 1])
    a = state.selectbox("Model A", models, key="s_a", container=c[0])
    b = state.selectbox("Model B", [m for m in models if m != a], key="s_b", container=c[1])
    only = state.toggle("Only where they differ", key="s_differ", container=c[2])
    paired = side_by_side(shown, a, b)
    counts = agreement(paired)
    st.caption(f"{counts['prompts']:,} prompts both answered (same method, persona, item, context and testing) · "
               f"**{counts['differ']:,} differ** · invalid: A {counts['invalid_a']:,}, B {counts['invalid_b']:,}.")
    if only:
        paired = paired[paired["differ"]].reset_index(drop=True)
    pages = max(1, -(-len(paired) // PAGE_SIZE))
    number = state.number_input(f"Page (of {pages})", 1, pages, 1, key="s_pair_page")
    rows, _ = page_of(paired, number, PAGE_SIZE)
    cols = ["kind", "persona", "item", "context", "answer_a", "answer_b", "differ"]
    ui.table(rows[cols].rename(columns={"answer_a": f"A: {a}", "answer_b": f"B: {b}"}), hide_index=True,
                 width="stretch", height=min(38 + 35 * len(rows), 460), key="s_pair_table", on_select="rerun",
                 selection_mode="single-row")
    ids = list(rows["method"] + "|" + rows["prompt"])
    picked = _opener("s_pair_table", ids, {p: f"{r['persona']} · {r['item']} · {r['context']} · {r['answer_a']} vs "
                                            f"{r['answer_b']}" for p, (_, r) in zip(ids, rows.iterrows())},
                     "s_pair_open", "Open a prompt")
    if picked is None:
        st.caption("Click a row (or pick it above) to read both replies.")
        return
    chosen = rows[rows["method"] + "|" + rows["prompt"] == picked].iloc[0]
    st.markdown(f"#### {ui.plain(chosen['persona'])} · {ui.plain(chosen['item'])} · {ui.plain(chosen['context'])}")
    left, right = st.columns(2)
    for box, side, model in ((left, "a", a), (right, "b", b)):
        with box:
            answer = chosen[f"answer_{side}"]
            (st.error if answer == INVALID else st.success)(f"**{ui.plain(model)}**: {ui.plain(answer)}")
            key = chosen[f"cache_key_{side}"]
            show_call(ref, key if pd.notna(key) else None, chosen[f"reply_{side}"] if pd.notna(chosen[f"reply_{side}"])
                      else None)


def _cell_colours(table: pd.DataFrame, models: list[str]) -> pd.io.formats.style.Styler:
    """Each distinct answer one colour (invalid red, no sample blank), the same in every model's column."""
    from analysis.figures.palette import model_colors

    answers = sorted({v for m in models for v in table[m].dropna().unique() if v != INVALID})
    colours = model_colors(answers)

    def colour(value: object) -> str:
        if not isinstance(value, str):  # no sample of this model for the prompt (NA in a text column)
            return ""
        if value == INVALID:
            return "background-color: #f8d0d0; color: #7a0000"
        if value in colours:
            return f"background-color: {colours[value]}33"
        return ""

    return table.style.map(colour, subset=models)


def matrix_view() -> None:
    table, n = matrix(shown, limit=MATRIX_LIMIT)
    models = [c for c in table.columns if c not in ("method", "kind", "persona", "item", "context")]
    if n > MATRIX_LIMIT:
        st.warning(f"{n:,} prompts: the matrix shows the first {MATRIX_LIMIT}. Filter to a small run (a run, a persona "
                   "or an item) to see all of it.", icon="⚠️")
    st.caption(f"One row per prompt, one column per model: the parsed answer, **invalid**, or empty where the model "
               f"has no sample of it ({min(n, MATRIX_LIMIT):,} prompts × {len(models)} models).")
    if table.empty:
        return
    ui.table(_cell_colours(table, models), hide_index=True, width="stretch", height=min(38 + 35 * len(table), 600))


def one_across() -> None:
    """One persona (or item, or context) across models and runs: its answers side by side, the scores each method's
    report gives it, and the replies behind them, with the filters above."""
    c = st.columns([1, 3])
    by = state.segmented("Hold fixed", list(ACROSS), key="s_one_by", container=c[0], format_func=ACROSS_LABELS.get)
    options = sorted(shown[by].dropna().unique().tolist())
    if not options:
        ui.empty(f"No sample in the filters above names a {ACROSS_LABELS[by].lower()}.")
        return
    linked = st.query_params.get("s_one_id")  # a chart point's persona, by its id: resolved to its label once
    if by == "persona" and linked and st.session_state.get("_s_one_id_seen") != linked:
        st.session_state["_s_one_id_seen"] = linked
        labels = shown.loc[shown["persona_id"] == linked, "persona"].dropna().unique().tolist()
        if len(labels) == 1:
            st.session_state["s_one"] = labels[0]
    value = state.selectbox(ACROSS_LABELS[by], options, key="s_one", container=c[1])
    mine = shown[shown[by] == value]
    table = across_runs(shown, by, value)
    columns = [col for col in table.columns if col not in ("method", "kind", *ACROSS)]
    st.caption(f"**{len(mine):,}** samples of {ui.plain(value)} from {mine['model'].nunique()} models in "
               f"{mine['run_id'].nunique()} runs: one row per prompt, one column per model · run (the parsed answer, "
               "**invalid**, or empty where that run did not ask it).")
    ui.table(_cell_colours(table, columns), hide_index=True, width="stretch", height=min(38 + 35 * len(table), 500))
    if by == "persona":
        ids = {m: sorted(mine.loc[mine["method"] == m, "persona_id"].dropna().unique().tolist())
               for m in mine["method"].unique()}
        scores = data.persona_scores(ref, ids)
        if len(scores):
            st.markdown("**Its scores**, as each method's report gives them (per model; empty where a model has none)")
            number = {col: st.column_config.NumberColumn(col, format="%.3f")
                      for col in scores.columns if col not in ("method", "construct")}
            ui.table(scores, hide_index=True, width="stretch", column_config=number)
    st.markdown("**The replies behind them**")
    rows = mine.sort_values(["model", "run_id", "method", "kind"], kind="stable").head(PAGE_SIZE * 4)
    listed = rows[["model", "run_id", "kind", "persona", "item", "context", "parsed", "valid", "reply"]]
    ui.table(listed.assign(reply=listed["reply"].str.slice(0, 160)), hide_index=True, width="stretch",
             height=min(38 + 35 * len(listed), 420), key="s_one_table", on_select="rerun", selection_mode="single-row")
    ids_ = list(rows["sample_id"])
    sid = _opener("s_one_table", ids_, {i: _label(r) for i, (_, r) in zip(ids_, rows.iterrows())}, "s_one_open",
                  "Open a reply")
    if sid is not None:
        show_full(rows[rows["sample_id"] == sid].iloc[0])


def run_labels() -> None:
    """Name, tag and annotate a run of this store (kept in it; a read-only store cannot be written)."""
    if runs.empty:
        ui.empty("No runs in this store.")
        return
    listed = runs.assign(tags=runs["tags"].map(", ".join))
    ui.table(listed[["run_id", "name", "tags", "note", "method", "model", "status"]], hide_index=True, width="stretch")
    if ref.read_only:
        st.caption(f"**{ref.name}** is read-only: its runs cannot be named or tagged here. Your own runs can.")
        return
    run_id = state.selectbox("Run to label", list(runs["run_id"]), key="s_label_run", format_func=run_label)
    row = runs[runs["run_id"] == run_id].iloc[0]
    with st.form(f"label-{run_id}"):
        name = st.text_input("Name", value=row["name"] if isinstance(row["name"], str) else "", key=f"s_label_name_{run_id}")
        tags_text = st.text_input("Tags (comma-separated)", value=", ".join(row["tags"]), key=f"s_label_tags_{run_id}")
        note = st.text_area("Note", value=row["note"] if isinstance(row["note"], str) else "", key=f"s_label_note_{run_id}")
        if st.form_submit_button("Save", icon=":material/sell:"):
            try:
                set_label(open_store(ref.path, False), run_id, name=name, tags=parse_tags(tags_text), note=note)
            except RoleScopeError as exc:
                st.error(ui.plain(exc))
            else:
                st.toast(f"Saved the labels of {run_id}.")
                st.rerun()


{"list": transcripts, "pair": pair, "matrix": matrix_view, "one": one_across, "runs": run_labels}[view_of]()
