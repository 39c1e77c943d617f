"""Overview: what is in the selected store."""

import streamlit as st

from app.stores import selected_store

store = selected_store()
st.title("RoleScope")
st.caption("How faithfully do LLMs play personas? Value stability, MBTI assessment, trust-game consistency, PersonaGym.")
st.info(
    "The embedded model is SmolLM2-135M-Instruct, a 135M-parameter model: its answers are near chance. "
    "Use it to try the pipeline offline; point a run at a real endpoint for meaningful numbers."
)
runs = store.runs()
st.subheader(f"Runs in {store.path.name}")
if runs.empty:
    st.write("No runs yet. Start one with `python -m analysis run values --model embedded --store " f"{store.path}`.")
else:
    st.dataframe(runs, hide_index=True, use_container_width=True)
