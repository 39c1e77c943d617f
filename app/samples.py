"""Stored samples behind a number: a sample's messages, raw reply, parsed answer and (if invalid) its reason, and
the drill-down from a clicked chart point to the samples of its unit (an item, a persona, a statement, a question).
Stored text (replies, messages, reasons, persona descriptions) is shown with ``st.text`` or escaped by ``ui.plain``:
a reply never renders as Markdown (an image link in it would load a remote image).

Method-free: pages say which stored answers a chart's points stand for (a frame) and which columns a point's
``customdata`` carries (``fields``); this module turns a Streamlit selection event into those rows and shows them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from numbers import Number
from typing import Any

import pandas as pd
import streamlit as st

from app import ui
from app.nav import page
from app.stores import StoreRef

#: Columns that hold what was parsed from a reply (shown as the "parsed answer").
PARSED = ("letter", "option_label", "option", "score", "option_index", "weight", "value", "sent", "forecast", "received",
          "returned", "earnings", "ranking", "effect_size", "sends", "refusal", "valid", "status", "reason", "mode", "stage")
#: Columns that name a sample in a picker (the first two a frame has).
LABELS = ("item_id", "statement_id", "value", "dimension", "question_id", "task", "round", "attribute", "level")
#: Samples listed under a clicked point (the Data page has them all).
LIMIT = 50
HINT = "Click a point to see its samples."


# -- selection -> unit -> samples (pure) ------------------------------------------------------------
def units(event: Mapping[str, Any] | None, fields: Sequence[str]) -> list[dict[str, Any]]:
    """The units of the selected points of a ``st.plotly_chart(on_select=...)`` event: ``fields[i]`` -> the point's
    ``customdata[i]``, in selection order, each once. Points without customdata (centroids, guides) are skipped."""
    selection = (event or {}).get("selection") or {}
    out: list[dict[str, Any]] = []
    for point in selection.get("points") or []:
        data = point.get("customdata")
        if data is None:
            continue
        values = list(data) if isinstance(data, (list, tuple)) else [data]
        if len(values) < len(fields):
            continue
        unit = dict(zip(fields, values))
        if unit not in out:
            out.append(unit)
    return out


def _norm(value: Any) -> str:
    """A value as compared with customdata (which went through JSON): 3, 3.0 and '3' are the same."""
    if isinstance(value, Number) and not isinstance(value, bool):
        number = float(value)  # type: ignore[arg-type]
        if number.is_integer():
            return str(int(number))
    return str(value)


def rows_of(frame: pd.DataFrame, unit: Mapping[str, Any]) -> pd.DataFrame:
    """The rows of ``frame`` that belong to ``unit`` (every field equal, compared as ``_norm`` text)."""
    keep = pd.Series(True, index=frame.index)
    for field, value in unit.items():
        if field not in frame:
            return frame.iloc[0:0]
        keep &= frame[field].map(_norm) == _norm(value)
    return frame[keep]


def selected_samples(event: Mapping[str, Any] | None, frame: pd.DataFrame, fields: Sequence[str]) -> pd.DataFrame:
    """The samples of the first selected point's unit (an empty frame when nothing is selected)."""
    found = units(event, fields)
    return rows_of(frame, found[0]) if found else frame.iloc[0:0]


# -- one sample ---------------------------------------------------------------------------------------
def parsed(row: pd.Series) -> dict[str, Any]:
    """The parsed fields of a sample that are set (numpy scalars as Python ones, for ``st.json``)."""
    out = {k: row[k] for k in PARSED if k in row and is_set(row[k])}
    return {k: (v.item() if hasattr(v, "item") else v) for k, v in out.items()}


def is_set(value: Any) -> bool:
    """Whether a cell holds a value: not None, NaN, NaT or pandas' NA (which ``st.json`` would print as "<NA>")."""
    return value is not None and not (pd.api.types.is_scalar(value) and pd.isna(value))


def is_valid(row: pd.Series) -> bool:
    """Valid unless ``valid`` is not 1 or ``status`` is set and not 'ok'."""
    if "valid" in row and str(row["valid"]) not in ("1", "1.0", "True"):
        return False
    return row.get("status") in (None, "ok")


def invalid_reason(row: pd.Series) -> str | None:
    """Why a sample is invalid (None when it is valid)."""
    return None if is_valid(row) else str(row.get("reason") or row.get("status") or "no reason recorded")


def sample_labels(rows: pd.DataFrame, columns: Sequence[str] = LABELS) -> dict[Any, str]:
    """Row index -> a picker label from the first two of ``columns`` the rows have ('item 3 · value Power'),
    suffixed ' · invalid' for invalid samples."""
    cols = [c for c in columns if c in rows][:2]
    labels = {i: " · ".join(f"{c.replace('_id', '')} {rows.at[i, c]}" for c in cols) or f"row {i}" for i in rows.index}
    if "valid" in rows:
        labels = {i: label + ("" if str(rows.at[i, "valid"]) in ("1", "1.0", "True") else " · invalid")
                  for i, label in labels.items()}
    return labels


def show_call(ref: StoreRef, cache_key: str | None, raw: str | None) -> None:
    """The stored LLM call: every message sent, the reply, its top logprobs and accounting."""
    from app import data

    call = data.call_record(ref, cache_key) if isinstance(cache_key, str) and cache_key else None
    if call is None:
        st.caption("No stored call for this sample (imported results keep the reply only).")
        if raw:
            with st.chat_message("assistant", avatar=":material/smart_toy:"):
                st.caption("reply (raw)")
                st.text(raw)
        return
    request = call["request"]
    st.caption(f"Call `{cache_key[:16]}…` · {call.get('tokens_in') or 0} tokens in, {call.get('tokens_out') or 0} out · "
               f"{(call.get('latency_s') or 0):.2f} s · params {ui.plain(request.get('params'))}")
    for msg in request.get("messages", []):
        with st.chat_message("assistant" if msg["role"] == "assistant" else "user" if msg["role"] == "user" else "ai",
                             avatar=":material/settings:" if msg["role"] == "system" else None):
            st.caption(ui.plain(msg["role"]))
            st.text(msg["content"])
    with st.chat_message("assistant", avatar=":material/smart_toy:"):
        st.caption("reply (raw)")
        st.text(call["reply"] or "(empty)")
    if call.get("logprobs"):
        first = call["logprobs"][0] if isinstance(call["logprobs"], list) and call["logprobs"] else {}
        top = sorted(first.items(), key=lambda kv: -kv[1])[:10] if isinstance(first, dict) else []
        if top:
            st.caption("Top logprobs of the first token: " + " · ".join(f"{ui.plain(repr(t))} {lp:.2f}" for t, lp in top))


def show_sample(ref: StoreRef, row: pd.Series, detail: Callable[[pd.Series], None] | None = None) -> None:
    """A sample: its parsed answer (and why it is invalid) beside the call — prompt messages and raw reply;
    ``detail`` draws what a method adds under the parsed answer (a judge's grade and rationale ...)."""
    left, right = st.columns([1, 2])
    with left:
        st.markdown("**Parsed answer**")
        st.json(parsed(row), expanded=True)
        reason = invalid_reason(row)
        if reason is not None:
            st.error(f"Invalid: {ui.plain(reason)}")
        if detail is not None:
            detail(row)
    with right:
        st.markdown("**The call**")
        show_call(ref, row.get("cache_key"), row.get("raw") if "raw" in row else row.get("answer"))


# -- the drill-down panel --------------------------------------------------------------------------
def hint() -> None:
    st.caption(HINT)


def data_link(table: str, rows: pd.DataFrame, **filters: Any) -> dict[str, str]:
    """The Data page's query for these samples: their table, their (first) run and ``filters`` (its ``f_<column>``
    selections)."""
    link = {"table": table, **{f"f_{column}": str(value) for column, value in filters.items()}}
    if len(rows) and "run_id" in rows:
        link["run"] = str(rows["run_id"].iloc[0])
    return link


def samples_link(rows: pd.DataFrame) -> dict[str, list[str]]:
    """The Samples view's query for these samples' runs and models (and their persona, when they share one)."""
    link = {key: [str(v) for v in dict.fromkeys(rows[col].dropna())] for key, col in (("s_run", "run_id"),
                                                                                      ("s_model", "model")) if col in rows}
    for col in ("persona", "subject"):
        if col in rows and rows[col].nunique() == 1:
            link["s_persona"] = [str(rows[col].iloc[0])]
            break
    return {k: v for k, v in link.items() if v}


def panel(ref: StoreRef, rows: pd.DataFrame, title: str, *, key: str, columns: Sequence[str] = (),
          labels: Sequence[str] = LABELS, split: str | None = None, split_label: str | None = None,
          link: Mapping[str, str] | None = None, persona: Mapping[str, str] | None = None,
          detail: Callable[[pd.Series], None] | None = None, limit: int = LIMIT) -> None:
    """The samples of one clicked unit in a bordered panel titled '<title> · <n> samples': a table of the first
    ``limit`` (``columns`` of them), a picker and the picked sample in full (``show_sample``); ``split`` lets the
    reader pick one value of that column first (a persona's answers per context; ``split_label`` names the picker);
    ``link`` is the Data page's query for all of them; ``persona``: the clicked persona's ``one_persona_link`` query
    (its view across models and runs)."""
    with st.container(border=True):
        st.markdown(f"**{ui.plain(title)} · {len(rows)} sample{'s' * (len(rows) != 1)}**")
        if split and split in rows and rows[split].nunique() > 1:
            parts = list(dict.fromkeys(rows[split]))
            part = st.segmented_control(split_label or split.replace("_", " ").capitalize(), parts, default=parts[0],
                                        key=f"{key}-{split}-{title}", format_func=ui.plain) or parts[0]
            rows = rows[rows[split] == part]
        if rows.empty:
            st.caption("No stored samples for this point.")
            return
        shown = rows.head(limit)
        n_bad = sum(not is_valid(r) for _, r in rows.iterrows())
        st.caption((f"The first {len(shown)} of {len(rows)} samples" if len(rows) > len(shown) else f"{len(rows)} samples")
                   + f" · {n_bad} invalid" + (" (the Data page has them all)." if len(rows) > len(shown) else "."))
        cols = [c for c in columns if c in shown] or [c for c in shown if c not in ("run_id", "cache_key")]
        ui.table(shown[cols], hide_index=True, width="stretch", height=260 if len(shown) > 7 else "auto")
        names = sample_labels(shown, labels)
        pick = st.selectbox("Sample", list(shown.index), key=f"{key}-sample-{title}", format_func=names.get)
        show_sample(ref, shown.loc[pick], detail)
        if link:
            c = st.columns(2)
            c[0].page_link(page("data").script, label="All samples on the Data page", icon=":material/table_view:",
                           query_params=dict(link))
            c[1].page_link(page("samples").script, label="These runs in the Samples view", icon=":material/list_alt:",
                           query_params=samples_link(rows))
        if persona is not None:
            st.page_link(page("samples").script, label="This persona across models and runs",
                         icon=":material/person:", query_params=dict(persona))


def one_persona_link(method: str, persona_id: str | None = None, *, label: str | None = None) -> dict[str, str]:
    """The Samples view's query for one persona of ``method`` across models and runs: by its label as the samples
    show it, or by its id (resolved to its label there: ``s_one_id``)."""
    which = {"s_one": str(label)} if label is not None else {"s_one_id": str(persona_id)}
    return {"s_view": "one", "s_one_by": "persona", "s_method": method, **which}
