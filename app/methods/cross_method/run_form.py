"""The campaign options of the Run page: the same options model and plan builder as ``run cross-method``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from analysis.llm.specs import ModelSpec
from app import state


def form() -> Callable[[ModelSpec], Any] | None:
    from analysis.methods import get
    from analysis.methods.cross_method.options import CrossMethodOptions
    from analysis.methods.cross_method.personas import BUNDLED, read_personas
    from analysis.methods.cross_method.plan import build_plan, campaign_methods
    from analysis.methods.inventory.inventory import NAMES, available
    from analysis.methods.options import validate

    st.caption("One persona set through every method below, each on its own protocol; the campaign shares only the "
               "personas. Each method's part is its own run (its page shows it), and the Cross-method page joins them "
               "by persona.")
    c = st.columns([1, 3])
    source = state.segmented("Personas", ["bundled", "a file…"], key="run_xm_source", container=c[0])
    if source == "bundled":
        n = state.number_input("How many (of the 40 bundled)", 3, 40, 12, key="run_xm_n", container=c[1],
                               help="The first N of the bundled persona set (the values population, with ages). "
                                    "Correlations across fewer than ~10 personas have wide CIs.")
        personas: str = str(int(n))
    else:
        personas = state.text_input("Personas file (.json, .jsonl or .csv: id, name, description, sex, age)",
                                    key="run_xm_path", container=c[1])
        if not personas.strip():
            st.info("Give the personas file's path.")
            return None
    offered = campaign_methods()
    chosen = state.multiselect("Methods", offered, default=offered, key="run_xm_methods",
                               format_func=lambda m: get(m).title, help="Each keeps its protocol; two or more.")
    here = available()
    inventory = next((n for n in NAMES if here.get(n)), "rolescope-mini")
    c = st.columns(5)
    mode = state.selectbox("Answer mode (values, inventory)", ["logprob", "text"], key="run_xm_mode", container=c[0],
                           help="logprob: the likeliest option (the protocols' scoring); text: a short reply, read.")
    items = state.number_input("Questionnaire items (0 = all)", 0, 300, 0, key="run_xm_items", container=c[1],
                               help="The first K items of the PVQ and of the inventory (norms need all).")
    rounds = state.number_input("Trust rounds", 1, 10, 3, key="run_xm_rounds", container=c[2],
                                help="Rounds against each trustee archetype (1, 3, 5).")
    questions = state.number_input("PersonaGym questions / task", 1, 10, 1, key="run_xm_questions", container=c[3])
    c[4].metric("Inventory", inventory, help="IPIP-NEO-120 when it is on this machine (ROLESCOPE_IPIP_NEO), else "
                                             "RoleScope's short form.")
    settings = [f"values.answer_mode={mode}", f"inventory.answer_mode={mode}", f"inventory.inventory={inventory}",
                "inventory.order=ascending", f"trust.rounds={int(rounds)}", f"personagym.questions_per_task={int(questions)}"]
    if items:
        settings += [f"values.limit_items={int(items)}", f"inventory.limit_items={int(items)}"]
    settings = [s for s in settings if s.split(".", 1)[0] in chosen]
    if len(chosen) < 2:
        st.warning("Pick two or more methods.")
        return None
    if source == "bundled":
        with st.expander(f"The {personas} personas"):
            st.dataframe([p.model_dump() for p in read_personas(BUNDLED)[: int(personas)]], hide_index=True)
    options = validate(CrossMethodOptions, {"personas": personas, "methods": chosen, "set": settings})
    return lambda spec: build_plan(options, spec).model_dump()
