"""The MBTI options of the Run page: the same plan builder as ``python -m analysis run mbti``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from analysis.llm.specs import ModelSpec
from app import state


def reply_limit() -> int | None:
    """Text mode: the reply length limit (``--max-tokens``), None for none (the reference protocol)."""
    c = st.columns([1, 2])
    cap = state.number_input("Max tokens per reply (0 = no limit, the protocol)", 0, 8000, 0, key="run_mbti_max_tokens",
                             container=c[0], help="The reference sets no limit: a reply has the model's own length (a "
                                                  "small model can ramble for minutes).")
    if not cap:
        return None
    c[1].caption(f"A limit of {cap} departs from the reference protocol, which sets none; replies that hit it are "
                 "flagged truncated.")
    return cap


def form() -> Callable[[ModelSpec], Any] | None:
    """The MBTI options (``MbtiOptions``: the same model and plan builder as ``run mbti``)."""
    from analysis.methods.mbti.cli import plan_from_args
    from analysis.methods.mbti.options import MbtiOptions
    from analysis.methods.mbti.subjects import DEFAULT_SUBJECTS
    from analysis.methods.options import choices, validate

    subjects = state.multiselect("Subjects", [*DEFAULT_SUBJECTS, "Doctors", "Teachers", "Engineers"], default=["People"],
                                 key="run_subjects", accept_new_options=True, help="Plural groups; type to add your own.")
    c = st.columns(4)
    testings = state.number_input("Testings", 1, 30, 2, key="run_testings", container=c[0],
                                  help="Independent testings per subject (15 in the paper).")
    statements = state.number_input("Statements (0 = all 60)", 0, 60, 10, key="run_statements", container=c[1])
    order = state.selectbox("Option order", choices(MbtiOptions, "order"), key="run_order", container=c[2],
                            help="'both' gives the robustness score.")
    mode = state.selectbox("Answer mode", choices(MbtiOptions, "answer_mode"), key="run_mbti_mode", container=c[3])
    max_tokens = reply_limit() if mode == "text" else None
    structured = mode == "text" and state.toggle(
        "Structured answers (JSON schema)", key="run_mbti_json",
        help="Each reply as a JSON object {reasoning, answer} its endpoint constrains to a schema, the answer one of the "
             "seven options (run mbti --answer-format json): a deliberate difference from the paper's free reply, and a "
             "configuration of its own.")
    if not subjects:
        st.warning("Pick at least one subject.")
        return None
    options = validate(MbtiOptions, {"subjects": subjects, "testings": int(testings), "order": order,
                                     "limit_statements": int(statements) or None, "answer_mode": mode,
                                     "max_tokens": max_tokens, "answer_format": "json" if structured else "text"})
    return lambda spec: plan_from_args(options, spec)
