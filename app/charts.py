"""Figures built once per store state and selection, then reused (plotly's object construction and
validation cost more than the rest of a page rerun). Each function takes hashable arguments (a
``StoreRef`` and selections), reads through ``app.data`` and draws with ``analysis.figures.style``. The cached
figure objects are shared: callers must not mutate them."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from analysis.figures import style as figures
from app import data
from app.stores import StoreRef

_memo = st.cache_resource(show_spinner=False, max_entries=256)


@_memo
def difference_forest(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, labels: tuple[str, str]) -> go.Figure:
    return figures.difference_forest(data.compare(ref_a, a, ref_b, b), *labels)
