"""The inventory options of the Run page: the same options model and plan builder as ``run inventory``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from analysis.llm.specs import ModelSpec
from app import links, state


def form() -> Callable[[ModelSpec], Any] | None:
    from analysis.methods.inventory import BIG_FIVE
    from analysis.methods.inventory.inventory import NAMES, available
    from analysis.methods.inventory.options import InventoryOptions
    from analysis.methods.inventory.plan import plan_from_args
    from analysis.methods.options import choices, validate

    here = available()
    names = [n for n in NAMES if here.get(n)] + ["a file…"]
    c = st.columns([2, 3])
    picked = state.selectbox("Inventory", names, key="run_inv_name", container=c[0],
                             help="IPIP-NEO-120/300: the public-domain items (a local copy: ROLESCOPE_IPIP_NEO); "
                                  "rolescope-mini: RoleScope's own 20-item short form, no norms.")
    missing = [n for n in NAMES if not here.get(n)]
    if missing:
        c[1].caption(f"Not on this machine: {', '.join(missing)} (set ROLESCOPE_IPIP_NEO to five-factor-e's IPIP-NEO "
                     "folder, or give a file).")
    source = picked
    if picked == "a file…":
        source = state.text_input("Inventory file (RoleScope inventory .json or five-factor-e questions.json)",
                                  key="run_inv_path", container=c[1], link_filter=links.one_path(NAMES))
        if not source.strip():
            st.info("Give the inventory file's path.")
            return None
    c = st.columns(4)
    domains = state.multiselect("Shaped domains", list(BIG_FIVE), default=["E"], key="run_inv_domains",
                                format_func=lambda d: f"{d} · {BIG_FIVE[d]}", container=c[0],
                                help="Single-trait shaping: each persona gets one of these at a target level.")
    levels = state.multiselect("Target levels (1-9)", list(range(1, 10)), default=[1, 5, 9], key="run_inv_levels",
                               container=c[1], help="1 = extremely low … 5 = neither … 9 = extremely high.")
    items = state.number_input("Items (0 = all)", 0, 300, 10, key="run_inv_items", container=c[2],
                               help="The first K items; norm percentiles need all of them.")
    order = state.selectbox("Option order", choices(InventoryOptions, "order"), key="run_inv_order", container=c[3],
                            help="'both' gives test–retest across orders and shows position bias.")
    c = st.columns(4)
    mode = state.selectbox("Answer mode", choices(InventoryOptions, "answer_mode"), key="run_inv_mode", container=c[0],
                           help="logprob: the likeliest number (the paper's scoring); text: a short reply, read.")
    structured = mode == "text" and state.toggle(
        "Structured answers (JSON schema)", key="run_inv_json", container=c[3],
        help="Each rating as a JSON object {answer: N} its endpoint constrains to the scale's numbers (run inventory "
             "--answer-format json): a deliberate difference from the paper's protocol, and a configuration of its own.")
    bios = state.number_input("Biographies", 1, 6, 1, key="run_inv_bios", container=c[1],
                              help="Authored biographies each shaped persona starts from (the paper used 50).")
    if not domains or not levels:
        st.warning("Pick at least one domain and one level.")
        return None
    n_personas = len(domains) * len(levels) * int(bios)
    c[2].metric("Personas", n_personas)
    options = validate(InventoryOptions, {"inventory": source, "domains": domains, "levels": sorted(levels),
                                          "limit_items": int(items) or None, "order": order, "answer_mode": mode,
                                          "biographies": int(bios), "answer_format": "json" if structured else "text"})
    return lambda spec: plan_from_args(options, spec)
