"""The cross-method part of the Compare page: both models' summaries and their pair correlations side by side (read
from each model's report)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import ui
from analysis.figures.style import legend_below
from app.methods.base import Pair
from app.methods.cross_method import data as xm_data
from analysis.figures.palette import PAIR


def section(pair: Pair) -> None:
    ref_a, a, ref_b, b, la, lb = pair
    if a not in xm_data.models(ref_a) or b not in xm_data.models(ref_b):
        return
    da, db = xm_data.doc(ref_a)["models"][a], xm_data.doc(ref_b)["models"][b]
    st.subheader("Cross-method validity")
    st.caption("Each model's convergent mean r and pattern r (r_alerting-CV) with its bootstrap CI over its campaign's "
               "personas, and each pair's r. The two campaigns may hold different personas: the CIs are not paired.")
    rows = []
    for key, label in (("convergent", "convergent mean r"), ("pattern", "pattern r")):
        rows.append({"summary": label, la: ui.ci_text(da[key]["value"], da[key]["lo"], da[key]["hi"])
                     if da[key]["value"] is not None else f"— ({da[key].get('reason')})",
                     lb: ui.ci_text(db[key]["value"], db[key]["lo"], db[key]["hi"])
                     if db[key]["value"] is not None else f"— ({db[key].get('reason')})"})
    ui.table(pd.DataFrame(rows), hide_index=True, width="stretch")
    pairs_b = {(p["a"], p["b"]): p for p in db["pairs"]}
    shared = [(p, pairs_b[(p["a"], p["b"])]) for p in da["pairs"] if (p["a"], p["b"]) in pairs_b]
    if not shared:
        return
    fig = go.Figure()
    for i, (label, side) in enumerate(((la, 0), (lb, 1))):
        chosen = [(pa, pb)[side] for pa, pb in shared]
        fig.add_trace(go.Scatter(
            x=[p["r"] for p in chosen], y=[f"{p['label']} ({p['kind'][:4]}.)" for p in chosen], mode="markers",
            name=label, marker={"color": PAIR[i], "size": 9},
            error_x={"type": "data", "symmetric": False,
                     "array": [(p["hi"] - p["r"]) if p.get("hi") is not None and p.get("r") is not None else 0 for p in chosen],
                     "arrayminus": [(p["r"] - p["lo"]) if p.get("lo") is not None and p.get("r") is not None else 0
                                    for p in chosen]}))
    fig.add_vline(x=0, line_color="#999", line_width=1)
    fig.update_layout(height=max(280, 30 * len(shared) + 120), xaxis={"range": [-1, 1], "title": "r across personas"},
                      margin={"t": 20, "l": 10, "r": 10, "b": 10})
    ui.plot(legend_below(fig), key="cross_method_pair")
