"""The inventory part of the Compare page: both models' domain scores and shaping ρ of the same inventory, side by
side (read from each model's report)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import ui
from analysis.figures.style import legend_below
from app.methods.base import Pair
from app.methods.inventory import data as inv_data
from analysis.figures.palette import PAIR


def section(pair: Pair) -> None:
    ref_a, a, ref_b, b, la, lb = pair
    if a not in inv_data.models(ref_a) or b not in inv_data.models(ref_b):
        return
    da, db = inv_data.doc(ref_a)["models"][a], inv_data.doc(ref_b)["models"][b]
    st.subheader("Inventories: domain scores and shaping")
    if da["inventory"] != db["inventory"]:
        st.caption(f"The two models answered different main inventories ({da['inventory']}, {db['inventory']}): "
                   "their scores are not on one scale.")
        return
    domains = [d for d in da["domains"] if d in db["domains"]]
    rows = [{"domain": f"{d} · {da['domains'][d]['name']}", f"score · {la}": da["domains"][d].get("score"),
             f"score · {lb}": db["domains"][d].get("score"), f"shaping ρ · {la}": da["domains"][d].get("shaping_rho"),
             f"shaping ρ · {lb}": db["domains"][d].get("shaping_rho"), f"α · {la}": da["domains"][d].get("alpha"),
             f"α · {lb}": db["domains"][d].get("alpha")} for d in domains]
    frame = pd.DataFrame(rows)
    st.caption(f"{da['inventory']}: mean domain score over each model's personas, shaping ρ and α per domain.")
    ui.table(frame, hide_index=True, width="stretch",
             column_config={c: st.column_config.NumberColumn(c, format="%.2f") for c in frame.columns if c != "domain"})
    fig = go.Figure([go.Bar(name=label, x=frame["domain"], y=frame[f"score · {label}"], marker_color=color)
                     for label, color in zip((la, lb), PAIR)])
    fig.update_layout(barmode="group", yaxis={"title": "mean item score"}, height=320, margin={"t": 30, "b": 30})
    ui.plot(legend_below(fig), key="inventory_pair")
