"""What the Data page shows and imports of Stick to Your Role!: the conversation behind an answer, the bundled
population, contexts and instrument, and the reference code's ``results.json``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from app import data, ui
from app.stores import StoreRef


def conversation(ref: StoreRef, table: str, row: Any) -> None:
    """The simulated conversation the persona had before answering ``row`` (a ``values_answers`` sample)."""
    if table != "values_answers" or not data.has_rows(ref, "values_conversations"):
        return
    conv = data.table(ref, "values_conversations")
    conv = conv[(conv["run_id"] == row["run_id"]) & (conv["persona_id"] == row["persona_id"])
                & (conv["context"] == row["context"])]
    if len(conv):
        with st.expander(f"The simulated conversation before the questions ({len(conv)} turns)"):
            for turn in conv.sort_values("turn").itertuples():
                with st.chat_message("user" if turn.speaker == "interlocutor" else "assistant"):
                    st.caption(ui.plain(turn.speaker))
                    st.text(turn.content)


def _personas() -> None:
    from analysis.methods.values.populations import load_population

    st.caption("The bundled population (written for RoleScope): persona i takes context line i.")
    ui.table(pd.DataFrame([p.model_dump() for p in load_population("default")]), hide_index=True, width="stretch")


def _contexts() -> None:
    from analysis.methods.values.contexts import available_contexts, load_context

    rows = []
    for label in available_contexts():
        context = load_context(label, 1)
        rows.append({"context": label, "kind": context.kind, "interlocutor": context.interlocutor,
                     "first opening": context.opening_for(0) or "(questions asked directly)"})
    st.caption("Conversation contexts: the opening message persona 0 receives (topic chunks give each persona its own line).")
    ui.table(pd.DataFrame(rows), hide_index=True, width="stretch")


def _instrument() -> None:
    from analysis.methods.values.instruments import load_instrument

    inst = load_instrument("pvq")
    st.caption(f"{inst.title or inst.name}: {len(inst.items)} items; options "
               + ", ".join(f"{o.label} ({o.score:g})" for o in inst.options))
    items = [{"item": i.id, "value": i.value, "text (male wording)": i.wording("male")} for i in inst.items]
    ui.table(pd.DataFrame(items), hide_index=True, width="stretch")


def tabs() -> list[tuple[str, Callable[[], None]]]:
    return [("Personas", _personas), ("Contexts", _contexts), ("Value instrument", _instrument)]


def import_results(store: Any, paths: list[Path]) -> tuple[bool, list[str]]:
    """Stick to Your Role! ``results.json`` files (each in a folder named by its context label)."""
    from analysis.methods.values.importer import import_value_stability

    reports = import_value_stability(store, paths)
    return all(r.status != "failed" for r in reports), [r.line() for r in reports]
