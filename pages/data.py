"""Data: runs, every sample (messages, raw reply, parsed answer, validity), personas, contexts, instruments; import, export."""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

import pandas as pd
import streamlit as st

from analysis.errors import RoleScopeError
from app import data, state, ui
from app.methods import views
from app.importing import MAX_FILE_MB, kinds, import_uploads, save_store_upload
from app.samples import sample_labels, show_sample
from app.stores import UPLOAD_DIR, USER_LABEL, add_opened_store, open_store, user_ref

ctx = ui.context()
ref = ctx.ref
ui.header(f"Everything behind the numbers in **{ref.name}**: each run's plan, each sample's full prompt and raw "
          "reply, the answer parsed from it and whether it was valid — plus the bundled inputs, imports and exports.")

SAMPLE_TABLES = {name: table for v in views() for name, table in v.samples.items()}
DETAILS = [v.sample_detail for v in views() if v.sample_detail is not None]

view = state.segmented("Show", ["samples", "runs", "inputs", "import", "export"], key="view",
                       format_func=lambda v: {"samples": "Samples", "runs": "Runs", "inputs": "Personas, contexts, instruments",
                                              "import": "Import", "export": "Export"}[v])


def samples() -> None:
    present = [t for t in SAMPLE_TABLES if data.has_rows(ref, t)]
    if not present:
        ui.empty(f"No samples in **{ref.name}** yet.", "Start a run on the **Run** page or import results below.")
        return
    c = st.columns([1, 2])
    name = state.selectbox("Table", present, key="table", container=c[0], format_func=lambda t: SAMPLE_TABLES[t].label)
    frame = data.table(ref, name)
    runs = list(dict.fromkeys(frame["run_id"]))
    run_id = state.selectbox("Run", runs, key="run", container=c[1])
    rows = frame[frame["run_id"] == run_id]
    cols = st.columns(max(1, len(SAMPLE_TABLES[name].filters)))
    for k, col in enumerate([f for f in SAMPLE_TABLES[name].filters if f in rows]):
        options = list(dict.fromkeys(rows[col].dropna().tolist()))
        if not options:
            continue
        if col == "persona_id" and "persona" in rows:
            names = dict(zip(rows["persona_id"], rows["persona"]))
            chosen = state.selectbox("Persona", options, key=f"f_{col}", container=cols[k],
                                     format_func=lambda p, names=names: f"{names.get(p) or 'persona'} (#{p})")
        else:
            chosen = state.selectbox(col.replace("_", " ").capitalize(), options, key=f"f_{col}", container=cols[k])
        rows = rows[rows[col] == chosen]
    if "valid" in rows:
        n_bad = int((pd.to_numeric(rows["valid"], errors="coerce") == 0).sum())
    else:
        n_bad = int((rows["status"] != "ok").sum()) if "status" in rows else 0
    st.caption(f"{len(rows)} rows · {n_bad} invalid. "
               "Invalid replies are kept with their raw text and the reason; they are counted, never replaced.")
    shown = rows.drop(columns=[c for c in ("run_id", "cache_key") if c in rows]).dropna(axis=1, how="all")
    ui.table(shown, hide_index=True, width="stretch", height=260)
    if rows.empty:
        return
    pick = state.selectbox("Sample", list(rows.index), key="sample", format_func=sample_labels(rows).get)
    row = rows.loc[pick]
    st.markdown("#### Sample")
    show_sample(ref, row)
    for detail in DETAILS:
        detail(ref, name, row)


def runs() -> None:
    if st.session_state.get("data_deleted"):
        st.success(st.session_state.pop("data_deleted"), icon="🗑️")
    from analysis.runs.labels import all_tags, tagged

    frame = data.labelled_runs(ref)
    if frame.empty:
        ui.empty(f"No runs in **{ref.name}**.")
        return
    if all_tags(frame):
        chosen = state.multiselect("Tags", all_tags(frame), key="run_tags", default=[],
                                   help="Only the runs carrying every tag picked (runs are tagged on the Samples page).")
        frame = tagged(frame, chosen)
    shown = frame.assign(tags=frame["tags"].map(", ".join))
    ui.table(shown[["run_id", "name", "tags", *[c for c in shown if c not in ("run_id", "name", "tags")]]],
             hide_index=True, width="stretch")
    if frame.empty:
        return
    run_id = state.selectbox("Run", list(frame["run_id"]), key="run")
    details = data.run_record(ref, run_id)
    left, right = st.columns(2)
    with left:
        st.markdown("**Model spec** (as stored: no key can be in it)")
        st.json(details["model_spec"], expanded=True)
    with right:
        st.markdown("**Plan** (everything needed to re-execute it)")
        st.json(details["plan"], expanded=False)
    fails = data.failures(ref, run_id)
    if len(fails):
        st.markdown(f"**{len(fails)} failed attempts**")
        ui.table(fails, hide_index=True, width="stretch")
    delete_section(run_id)


def delete_section(run_id: str) -> None:
    """Delete a run from a writable store, after an explicit confirmation; its cached calls stay unless asked."""
    if ref.read_only:
        st.caption(f"**{ref.name}** is read-only: its runs cannot be deleted here.")
        return
    with st.expander("Delete this run", icon=":material/delete:"):
        st.caption(f"Removes `{run_id}` and every row it owns from {ref.name}, in one transaction. Its cached calls "
                   "stay, so running the same plan again costs nothing — unless you tick the first box.")
        calls = st.checkbox("Also delete the cached calls no other run uses", key="delete_calls")
        sure = st.checkbox(f"Yes, delete {run_id}", key=f"delete_sure_{run_id}")
        if st.button("Delete run", type="primary", disabled=not sure, key="delete_run"):
            try:
                removed = open_store(ref.path, False).delete_run(run_id, calls=calls)
            except RoleScopeError as exc:  # it is executing: refused, nothing deleted
                st.error(str(exc))
                return
            st.session_state["data_deleted"] = (f"Deleted {run_id}" + (f" and {removed} cached call(s)." if calls else
                                                                        " (its cached calls are kept)."))
            st.session_state.pop("run", None)
            st.rerun()


def inputs() -> None:
    """Every method's bundled inputs (``MethodView.inputs``), one tab each."""
    found = [tab for v in views() if v.inputs is not None for tab in v.inputs()]
    for tab, (_, draw) in zip(st.tabs([label for label, _ in found]), found):
        with tab:
            draw()


def importer() -> None:
    target = user_ref()
    st.caption(f"Imports go to **{USER_LABEL}** (`{target.path}`), one run per file, each file all or nothing; "
               f"files up to {MAX_FILE_MB} MB (use `python -m analysis import` for more).")
    known = kinds()
    kind = st.selectbox("Format", list(known), key="import_kind", format_func=lambda k: known[k].label)
    spec = known[kind]
    folder = st.text_input(spec.folder_hint, key="import_folder",
                           help=f"The importer reads the {spec.folder_hint.lower()} of the files from this name.")
    files = st.file_uploader("Files", type=list(spec.extensions), accept_multiple_files=True, key="import_files")
    if st.button("Import", icon=":material/upload_file:", disabled=not files, key="import_go"):
        outcome = import_uploads(target.store, kind, [(f.name, f.getvalue()) for f in files or []], folder)
        (st.success if outcome.ok else st.error)("\n\n".join(ui.plain(line) for line in outcome.lines))
    st.divider()
    st.markdown("**Open a store file** (read-only, this session)")
    upload = st.file_uploader("RoleScope store (.db)", type=["db", "sqlite"], key="store_upload")
    if upload is not None and st.button("Open", key="store_open"):
        try:
            path = save_store_upload(upload.getvalue(), upload.name, UPLOAD_DIR)
        except RoleScopeError as exc:
            st.error(ui.plain(exc))
        else:
            add_opened_store(upload.name, path)
            st.session_state["store"] = f"file-{upload.name}"
            st.rerun()


def exporter() -> None:
    from analysis.runs.export import export_store, frame_bytes

    sizes = data.table_sizes(ref)
    st.caption("Every table of the selected store, one file per table (text passed through the key scrubber).")
    fmt = st.segmented_control("Format", ["csv", "json"], default="csv", key="export_fmt") or "csv"
    one = st.selectbox("Quick download of one table", list(sizes), key="export_table",
                       format_func=lambda t: f"{t} ({sizes[t]:,} rows)")
    payload = frame_bytes(data.table(ref, one), fmt)  # scrubbed of secrets, as every export
    st.download_button(f"Download {one}.{fmt}", payload, file_name=f"{one}.{fmt}", key="export_one",
                       mime="text/csv" if fmt == "csv" else "application/json")
    if st.button("Prepare a zip of all tables", key="export_zip"):
        with tempfile.TemporaryDirectory() as tmp:
            written = export_store(ref.store, tmp, fmt)
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
                for path in written:
                    zf.write(path, Path(path).name)
        st.session_state["export_zip_bytes"] = (f"{Path(ref.path).stem}-{fmt}.zip", buf.getvalue())
    if "export_zip_bytes" in st.session_state:
        name, blob = st.session_state["export_zip_bytes"]
        st.download_button(f"Download {name} ({len(blob) / 1e6:.1f} MB)", blob, file_name=name, mime="application/zip",
                           key="export_zip_dl")


{"samples": samples, "runs": runs, "inputs": inputs, "import": importer, "export": exporter}[view]()
