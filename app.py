"""RoleScope dashboard entry point: ``python -m app.launch`` (as ``scripts/start.sh`` does) or ``streamlit run app.py``."""

import streamlit as st

from app.launch import PAGE_ICON

st.set_page_config(page_title="RoleScope", page_icon=PAGE_ICON, layout="wide")

from app.nav import navigation  # noqa: E402  (set_page_config first)
from app.ui import sidebar  # noqa: E402

page = navigation()
sidebar()
page.run()
