"""RoleScope dashboard entry point: ``streamlit run app.py``."""

import streamlit as st

st.set_page_config(page_title="RoleScope", page_icon="🎭", layout="wide")

pages = [st.Page("pages/overview.py", title="Overview", icon="🏠", default=True)]
st.navigation(pages).run()
