"""The MBTI part of the Compare page: the statements where two models differ most, and their dimension scores
overlaid."""

from __future__ import annotations

import streamlit as st

from app import data, state, ui
from app.methods.base import Pair
from app.methods.mbti import charts as mbti_charts
from app.methods.mbti import data as mbti_data


def section(pair: Pair) -> None:
    ref_a, a, ref_b, b, la, lb = pair
    if a not in mbti_data.mbti_models(ref_a) or b not in mbti_data.mbti_models(ref_b):
        return
    st.subheader("MBTI: where they differ most")
    stm = data.gaps(ref_a, a, ref_b, b, "mbti")["statements"]
    if stm.empty:
        st.caption("Both models need MBTI answers on the same subjects.")
    else:
        st.caption("Mean signed agreement per statement (+3 = fully towards the dimension's first pole), sorted by |A − B|.")
        ui.table(stm.head(30).rename(columns={"a": la, "b": lb, "diff": "A − B"}), hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(c, format="%.2f") for c in (la, lb, "A − B")})
    da, db = mbti_data.mbti_doc(ref_a)["models"][a], mbti_data.mbti_doc(ref_b)["models"][b]
    subjects = [s for s in da["subjects"] if s in db["subjects"]]
    if subjects:
        subject = state.selectbox("MBTI subject", subjects, key="subject", default="People")
        st.caption("MBTI dimension scores of the two models for the same subject (whiskers ±1 SD over testings).")
        ui.plot(mbti_charts.mbti_pair(ref_a, a, ref_b, b, subject, (la, lb)), key="mbti_pair")
