"""Which stores the app reads: the bundled demo (read-only) and the user's own store."""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from analysis.runs.store import Store

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO_STORE = REPO_ROOT / "data/demo/rolescope-demo.db"
USER_STORE = Path(os.environ.get("ROLESCOPE_STORE", REPO_ROOT / "rolescope.db"))


def store_choices() -> dict[str, Path]:
    choices = {}
    if DEMO_STORE.exists():
        choices["Bundled demo (read-only)"] = DEMO_STORE
    choices["Your store"] = USER_STORE
    return choices


@st.cache_resource
def open_store(path: str, read_only: bool) -> Store:
    return Store(path, read_only=read_only)


def selected_store() -> Store:
    """The store picked in the sidebar (demo by default when it exists)."""
    choices = store_choices()
    label = st.sidebar.selectbox("Store", list(choices), key="store_label")
    path = choices[label]
    return open_store(str(path), read_only=path == DEMO_STORE)
