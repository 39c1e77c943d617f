"""RoleScope dashboard entry point: ``python -m app.launch`` (as ``scripts/start.sh`` does) or ``streamlit run app/main.py``.

It lives in ``app/`` so that the top-level ``pages/`` folder (the shared pages) is not beside it: a ``pages/`` folder
next to the entry script is Streamlit's legacy multipage mode. ``st.navigation`` (``app.nav``) names every page.
"""

import sys
from pathlib import Path

# `streamlit run app/main.py` puts this folder, not the repository, first on the import path; the imports below need
# the repository (`python -m app.launch` has it already).
_REPO = str(Path(__file__).resolve().parents[1])
if _REPO not in sys.path:
    sys.path.insert(0, _REPO)

import streamlit as st  # noqa: E402

from app.launch import PAGE_ICON  # noqa: E402

st.set_page_config(page_title="RoleScope", page_icon=PAGE_ICON, layout="wide")

from app.history import one_entry_per_visit  # noqa: E402  (set_page_config first)
from app.nav import navigation  # noqa: E402

page, info = navigation()
st.title(info.h1)  # first, so it paints before the sidebar's and the page's imports and reads
one_entry_per_visit()  # before the page's widgets publish their values to the URL
from app.ui import sidebar  # noqa: E402  (pandas, the store: after the heading)

ctx = sidebar()
page.run()
if ctx is not None:
    from app.data import warm_samples

    warm_samples(ctx.ref)  # after the page has drawn: its first paint does not wait for it
