"""Choosing who a run asks: a persona source (bundled, an uploaded file, a path or hub reference) and the personas
ticked in a searchable, filterable table. Method-free: each method's Run form passes its population as a frame
with an ``id`` column and says which columns are searched and filtered.

Everything chosen lives in the URL: the source (``<key>_src``), a typed path (``<key>_path``), the uploaded file
(``<key>_file``: its stored name under the upload folder, never its content) and the ticked ids (``<key>_ids``,
comma-separated). An uploaded file is checked row by row before it is kept; a file with a bad row is refused as a
whole, every bad row listed, nothing stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
import streamlit as st

from analysis.errors import RoleScopeError
from app import links, state, stores, ui

SOURCES = {"bundled": "Bundled", "upload": "Upload a file", "path": "A path or hub reference"}


def persona_source(key: str, *, types: Sequence[str], check: Callable[[Path], list[str]], bundled_label: str,
                   path_help: str, container=None, names: Sequence[str] = ()) -> str | None:
    """The persona source: ``"bundled"``, the stored path of a valid uploaded file, or a typed path / hub reference.
    ``check(path)`` returns one error line per bad row (or raises RoleScopeError for an unreadable file).
    None while no valid file is given. A path from a link is opened only when it names an upload or bundled data
    (``app.links``; ``names``: bundled names the loader also takes in the path field)."""
    box = container or st
    source = state.segmented("Personas from", list(SOURCES), key=f"{key}_src", container=box,
                             format_func=lambda s: bundled_label if s == "bundled" else SOURCES[s])
    if source == "bundled":
        return "bundled"
    if source == "path":
        typed = state.text_input("Path or hub reference", key=f"{key}_path", container=box, help=path_help,
                                 placeholder="/data/personas.json · hf://datasets/<owner>/<name>/<file>",
                                 link_filter=links.one_path(names))
        if not typed.strip():
            return None
        if not typed.startswith("hf://"):
            try:
                errors = check(Path(typed).expanduser())
            except RoleScopeError as exc:
                box.error(ui.plain(exc))
                return None
            if errors:
                _show_errors(box, typed, errors)
                return None
        return typed.strip()
    upload = box.file_uploader(f"Persona file ({', '.join(types)})", type=[t.lstrip(".") for t in types],
                               key=f"{key}_upload")
    if upload is not None:
        stored = _store_upload(upload.name, upload.getvalue(), check, box)
        if stored is not None:
            st.session_state[f"{key}_file"] = stored.name
            st.query_params[f"{key}_file"] = stored.name
    name = st.session_state.get(f"{key}_file") or st.query_params.get(f"{key}_file")
    path = stores.UPLOAD_DIR / name if name and "/" not in name and not name.startswith(".") else None
    if path is None or not path.is_file():
        box.caption("Upload a file to use its personas.")
        return None
    box.caption(f"Using the uploaded file `{name}`.")
    return str(path)


def _store_upload(name: str, content: bytes, check: Callable[[Path], list[str]], box) -> Path | None:
    """Check an uploaded file where it can be read, keep it under the upload folder only when every row is valid."""
    digest = hashlib.sha256(content).hexdigest()[:12]
    suffix = Path(name).suffix.lower()
    target = stores.UPLOAD_DIR / f"personas-{digest}{suffix}"
    if target.is_file():
        return target
    stores.UPLOAD_DIR.mkdir(parents=True, exist_ok=True)
    pending = stores.UPLOAD_DIR / f".pending-{digest}{suffix}"
    pending.write_bytes(content)
    try:
        errors = check(pending)
    except RoleScopeError as exc:
        errors = [str(exc).replace(str(pending), name)]
    if errors:
        pending.unlink(missing_ok=True)
        _show_errors(box, name, errors)
        return None
    pending.replace(target)
    return target


def _show_errors(box, name: str, errors: list[str]) -> None:
    shown = errors[:20]
    more = f"\n- … and {len(errors) - 20} more" if len(errors) > 20 else ""
    box.error(f"{ui.plain(name)}: {len(errors)} bad row{'s' * (len(errors) != 1)}; nothing was stored or run. Fix the "
              "file and upload it again:\n" + "\n".join(f"- {ui.plain(e)}" for e in shown) + more)


def _ids_param(key: str) -> str:
    return f"{key}_ids"


def ticked(key: str, valid: set[str]) -> list[str]:
    """The ticked ids (from this session, else the URL), restricted to ``valid``."""
    kept = st.session_state.get(_ids_param(key))
    if kept is None:
        raw = st.query_params.get(_ids_param(key)) or ""
        kept = [i for i in raw.split(",") if i]
    return [i for i in kept if i in valid]


def _set_ticked(key: str, ids: list[str]) -> None:
    st.session_state[_ids_param(key)] = ids
    if ids:
        st.query_params[_ids_param(key)] = ",".join(ids)
    elif _ids_param(key) in st.query_params:
        del st.query_params[_ids_param(key)]


def filter_population(population: pd.DataFrame, query: str, search: Sequence[str],
                      levels: dict[str, Sequence[str]]) -> pd.DataFrame:
    """Rows whose searched columns contain ``query`` (case-insensitive) and whose filtered columns take one of the
    chosen levels (a filter with no level chosen keeps every row)."""
    keep = pd.Series(True, index=population.index)
    if query.strip():
        text = population[list(search)].astype(str).agg(" ".join, axis=1).str.lower()
        keep &= text.str.contains(query.strip().lower(), regex=False)
    for column, chosen in levels.items():
        if chosen:
            keep &= population[column].astype(str).isin([str(c) for c in chosen])
    return population[keep]


def persona_picker(population: pd.DataFrame, *, key: str, search: Sequence[str], filters: Sequence[str],
                   columns: Sequence[str], container=None) -> list[str]:
    """Browse ``population`` (search, filters), tick personas; returns the ticked ids in population order (empty when
    none is ticked: the form's "first N" applies)."""
    box = container or st
    population = population.assign(id=population["id"].astype(str))
    chosen = ticked(key, set(population["id"]))
    c = box.columns([2, *([1] * len(filters))]) if filters else [box]
    query = c[0].text_input("Search", key=f"{key}_q", placeholder="words in the name or description")
    levels = {f: c[i + 1].multiselect(f.replace("_", " "), sorted(population[f].astype(str).unique()), key=f"{key}_f_{f}")
              for i, f in enumerate(filters)}
    shown = filter_population(population, query, search, levels)
    view = shown[["id", *columns]].assign(use=shown["id"].isin(chosen))[["use", "id", *columns]]
    signature = hashlib.sha1(f"{query}|{sorted(levels.items())}|{chosen}".encode()).hexdigest()[:8]
    edited = box.data_editor(view, key=f"{key}_table_{signature}", hide_index=True, width="stretch", height=300,
                             disabled=["id", *columns],
                             column_config={"use": st.column_config.CheckboxColumn("use", help="Ask this persona")})
    now = set(chosen) - set(shown["id"]) | set(edited.loc[edited["use"], "id"])
    if now != set(chosen):
        _set_ticked(key, [i for i in population["id"] if i in now])
        st.rerun()
    b = box.columns(3)
    if b[0].button(f"Tick the {len(shown)} shown", key=f"{key}_all", disabled=shown.empty):
        _set_ticked(key, [i for i in population["id"] if i in set(chosen) | set(shown["id"])])
        st.rerun()
    if b[1].button("Untick all", key=f"{key}_none", disabled=not chosen):
        _set_ticked(key, [])
        st.rerun()
    b[2].caption(f"{len(chosen)} ticked of {len(population)}" + (f" · {len(shown)} shown" if len(shown) != len(population)
                                                                  else ""))
    return chosen


def persona_count(label: str, min_value: int, max_value: int, default: int, *, key: str, ids: Sequence[object],
                  container=None, help: str | None = None) -> int:
    """The form's "first N" personas (``state.number_input`` bound to ``key``), or while personas are ticked their
    count, shown disabled under its own key (``<key>_ticked``) so the user's N is kept for when they untick."""
    if not ids:
        return state.number_input(label, min_value, max_value, default, key=key, container=container, help=help)
    st.session_state[f"{key}_ticked"] = len(ids)  # keyed: the shown value is the session's, set before drawing
    (container or st).number_input(label, min_value=0, key=f"{key}_ticked", disabled=True,
                                   help="The ticked personas (untick them all to ask the first N instead).")
    return len(ids)
