"""The campaign options of the Run page: the same options model and plan builder as ``run cross-method``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from analysis.llm.specs import ModelSpec
from app import links, state


def form() -> Callable[[ModelSpec], Any] | None:
    from analysis.methods import get
    from analysis.methods.cross_method.options import CrossMethodOptions
    from analysis.methods.cross_method.personas import BUNDLED, read_personas
    from analysis.methods.cross_method.plan import build_plan, campaign_methods
    from analysis.methods.options import validate
    from app.methods import view

    st.caption("One persona set through every method below, each on its own protocol; the campaign shares only the "
               "personas. Each method's part is its own run (its page shows it), and the Cross-method page joins them "
               "by persona.")
    c = st.columns([1, 3])
    source = state.segmented("Personas", ["bundled", "a file…"], key="run_xm_source", container=c[0])
    if source == "bundled":
        n = state.number_input("How many (of the 40 bundled)", 5, 40, 12, key="run_xm_n", container=c[1],
                               help="The first N of the bundled persona set (the values population, with ages). "
                                    "Correlations across fewer than ~10 personas have wide CIs.")
        personas: str = str(int(n))
    else:
        personas = state.text_input("Personas file (.json, .jsonl or .csv: id, name, description, sex, age)",
                                    key="run_xm_path", container=c[1], link_filter=links.one_path())
        if not personas.strip():
            st.info("Give the personas file's path.")
            return None
    offered = campaign_methods()
    chosen = state.multiselect("Methods", offered, default=offered, key="run_xm_methods",
                               format_func=lambda m: get(m).title, help="Each keeps its protocol; two or more.")
    settings = []
    for name in chosen:  # each part method draws its own options (its view's campaign_form), named as its Options
        form = view(name).campaign_form
        if form is None:
            continue
        box = st.container(border=True)
        for option, value in form(box).items():
            value = "+".join(map(str, value)) if isinstance(value, (list, tuple)) else value
            settings.append(f"{name}.{option}={str(value).lower() if isinstance(value, bool) else value}")
    if len(chosen) < 2:
        st.warning("Pick two or more methods.")
        return None
    if source == "bundled":
        with st.expander(f"The {personas} personas"):
            st.dataframe([p.model_dump() for p in read_personas(BUNDLED)[: int(personas)]], hide_index=True)
    options = validate(CrossMethodOptions, {"personas": personas, "methods": chosen, "set": settings})
    return lambda spec: build_plan(options, spec).model_dump()
