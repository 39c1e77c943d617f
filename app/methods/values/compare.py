"""The values part of the Compare page: the items and personas where two models differ most, and their profiles
overlaid."""

from __future__ import annotations

import streamlit as st

from app import data, state, ui
from app.methods.base import Pair
from app.methods.values import charts as values_charts
from app.methods.values import data as values_data


def section(pair: Pair) -> None:
    ref_a, a, ref_b, b, la, lb = pair
    if a not in values_data.values_models(ref_a) or b not in values_data.values_models(ref_b):
        return
    st.subheader("Values: where they differ most")
    found = data.gaps(ref_a, a, ref_b, b, "values")
    tabs = st.tabs(["Value items", "Personas"])
    with tabs[0]:
        items = found["items"]
        if items.empty:
            st.caption("Both models need value answers on the same personas and contexts.")
        else:
            st.caption("Mean item score over the personas both models answered (valid answers), sorted by |A − B|.")
            ui.table(items.head(30).rename(columns={"a": la, "b": lb, "diff": "A − B"}), hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(c, format="%.2f") for c in (la, lb, "A − B")})
    with tabs[1]:
        people = found["personas"]
        if people.empty:
            st.caption("Both models need value answers on the same personas.")
        else:
            st.caption("Per persona and context: mean |A − B| of the ipsatised value scores, and the Spearman between the "
                       "two models' value profiles (1 = same value hierarchy).")
            ui.table(people.head(30), hide_index=True, width="stretch",
                     column_config={"mean_abs_gap": st.column_config.NumberColumn("mean |A − B|", format="%.2f"),
                                    "profile_spearman": st.column_config.NumberColumn("profile Spearman", format="%.2f")})
    in_b = set(values_data.value_means(ref_b, b)["context"])
    contexts = [c for c in dict.fromkeys(values_data.value_means(ref_a, a)["context"]) if c in in_b]
    if contexts:
        context = state.selectbox("Context", contexts, key="context", default="no_conv")
        st.caption("Mean ipsatised value score over personas (whiskers ±1 SD): which values each model's personas put first.")
        ui.plot(values_charts.mean_profiles_pair(ref_a, a, ref_b, b, context, (la, lb)), key="means")
    if values_data.stability(ref_a, a)["by_value"] is not None and values_data.stability(ref_b, b)["by_value"] is not None:
        st.caption("Rank-order stability per value with 95% bootstrap CIs (each model on its own contexts).")
        ui.plot(values_charts.stability_pair(ref_a, a, ref_b, b, (la, lb)), key="stab_pair")
