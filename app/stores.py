"""Which stores the app reads: the bundled demo (read-only), the user's own store, opened store files.

The demo store is the bundled archive, unpacked once (``analysis.demo_store``), or a local build.
``ROLESCOPE_DEMO_STORE`` overrides the demo path (tests, the browser suite); ``ROLESCOPE_STORE``
names the user store (default ``rolescope.db`` at the repository root). A ``StoreRef`` (path,
read-only flag, content signature) is what cached computations are keyed on: the signature
changes whenever a run is created, changes status, or stores another call, so results of a
finished run show up on every page without a restart.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

import streamlit as st

from analysis.demo_store import bundled_demo_store
from analysis.runs.store import Store

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO_STORE = Path(os.environ["ROLESCOPE_DEMO_STORE"]) if os.environ.get("ROLESCOPE_DEMO_STORE") else bundled_demo_store()
USER_STORE = Path(os.environ.get("ROLESCOPE_STORE", REPO_ROOT / "rolescope.db"))
UPLOAD_DIR = Path(os.environ.get("ROLESCOPE_UPLOAD_DIR", REPO_ROOT / ".cache/uploads"))

DEMO_LABEL = "Bundled demo (read-only)"
USER_LABEL = "Your store"


class StoreRef(NamedTuple):
    """A store as cache key: where it is, how it is opened, what it holds right now, and which configurations
    (``analysis.runs.comparable``) the user chose instead of a model's latest, as (method, model, id) triples."""

    path: str
    read_only: bool
    signature: str
    configs: tuple[tuple[str, str, str], ...] = ()

    def chosen(self, method: str) -> dict[str, list[str]]:
        """model -> the configuration ids chosen for it in ``method`` (trust: one per level)."""
        out: dict[str, list[str]] = {}
        for m, model, config in self.configs:
            if m == method:
                out.setdefault(model, []).append(config)
        return out

    @property
    def store(self) -> Store:
        return open_store(self.path, self.read_only)

    @property
    def name(self) -> str:
        return Path(self.path).name


def store_choices() -> dict[str, tuple[Path, bool]]:
    """Label -> (path, read_only): the demo when it exists, the user store, files opened this session."""
    choices: dict[str, tuple[Path, bool]] = {}
    if DEMO_STORE.exists():
        choices[DEMO_LABEL] = (DEMO_STORE, True)
    choices[USER_LABEL] = (USER_STORE, False)
    for label, path in st.session_state.get("opened_stores", {}).items():
        if Path(path).exists():
            choices[label] = (Path(path), True)
    return choices


def add_opened_store(label: str, path: Path) -> None:
    """Make an uploaded/opened store file selectable in the sidebar (this session only)."""
    opened = dict(st.session_state.get("opened_stores", {}))
    opened[label] = str(path)
    st.session_state["opened_stores"] = opened


@st.cache_resource(show_spinner=False)
def open_store(path: str, read_only: bool) -> Store:
    return Store(path, read_only=read_only)


def signature(store: Store) -> str:
    """Cheap content fingerprint: runs (count, last status change) and the last stored call."""
    runs = store.query_one("SELECT COUNT(*) AS n, COALESCE(MAX(updated_at), 0) AS u FROM runs") or {"n": 0, "u": 0}
    calls = store.query_one("SELECT COALESCE(MAX(rowid), 0) AS c FROM run_calls") or {"c": 0}
    return f"{runs['n']}:{runs['u']:.6f}:{calls['c']}"


def ref_for(path: Path | str, read_only: bool) -> StoreRef:
    store = open_store(str(path), read_only)
    return StoreRef(str(path), read_only, signature(store))


def user_ref() -> StoreRef:
    """The user's writable store (runs started in the app go there)."""
    return ref_for(USER_STORE, False)


def demo_ref() -> StoreRef | None:
    """The bundled demo store (read-only), or None when this checkout has none."""
    return ref_for(DEMO_STORE, True) if DEMO_STORE.exists() else None
