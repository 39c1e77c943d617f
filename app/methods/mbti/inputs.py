"""What the Data page shows and imports of ChatGPT-MBTI: the bundled statements and the reference's answer CSVs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from app import ui


def _statements() -> None:
    from analysis.methods.mbti.statements import load_statements

    stset = load_statements("default")
    st.caption(f"{len(stset.statements)} statements; direction +1 = agreeing points to the first pole (E, N, T, J, A).")
    ui.table(pd.DataFrame([s.model_dump() for s in stset.statements]), hide_index=True, width="stretch")


def tabs() -> list[tuple[str, Callable[[], None]]]:
    return [("MBTI statements", _statements)]


def import_answers(store: Any, paths: list[Path]) -> tuple[bool, list[str]]:
    """ChatGPT-MBTI answer CSVs (the folder names the model)."""
    from analysis.methods.mbti.importer import import_notes, parse_files, store_parsed

    parsed = parse_files(paths)
    return True, [f"imported run {r}" for r in store_parsed(store, parsed)] + [f"note: {n}" for n in import_notes(parsed)]
