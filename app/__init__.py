"""UI helpers shared by the Streamlit pages (widgets, figure builders, URL state)."""
