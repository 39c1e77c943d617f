"""The Stick to Your Role! options of the Run page: the same plan builder as ``python -m analysis run values``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from analysis.errors import RoleScopeError
from analysis.llm.specs import ModelSpec
from app import choose, links, state, ui


def population_choice() -> tuple[str, list[int]] | None:
    """(population source for the plan, ticked persona ids) from the persona chooser; None without a usable source."""
    from analysis.methods.values.populations import load_population, read_population

    source = choose.persona_source(
        "run_pop", types=[".json", ".csv"], check=lambda path: read_population(path)[1],
        bundled_label="Bundled population", path_help="A personas.json list ({name, description, gender}), a CSV with "
        "columns name, description, gender, a folder holding personas.json, or hf://datasets/<owner>/<name>/<path>.")
    if source is None:
        return None
    population = "default" if source == "bundled" else source
    try:
        personas = load_population(population)
    except RoleScopeError as exc:
        st.error(ui.plain(exc))
        return None
    frame = pd.DataFrame([p.model_dump() for p in personas])
    with st.expander(f"Browse and tick personas ({len(personas)} in this population)"):
        ids = choose.persona_picker(frame, key="run_pop", search=("name", "description"), filters=("gender",),
                                    columns=("name", "gender", "description"))
    return population, [int(i) for i in ids]


def answer_length(mode: str) -> int | None:
    """Text and cot answers: the reply length limit, None when it is the protocol's (one field per mode, each starting
    from its own protocol value, so that switching text -> cot never carries 10 tokens into cot)."""
    from analysis.methods.values.questionnaire import ValuesPlan

    if mode not in ("text", "cot"):
        return None
    protocol = ValuesPlan.model_fields[f"{mode}_max_tokens"].default
    c = st.columns([1, 2])
    cap = state.number_input("Max tokens per answer", 1, 8000, protocol, key=f"run_max_tokens_{mode}", container=c[0],
                             help=f"{protocol}: the protocol's limit for a {mode} answer.")
    if cap == protocol:
        return None
    c[1].caption(f"A limit of {cap} departs from the protocol's {protocol} for {mode} answers: a reply cut there is "
                 "read as it stands (a chain of thought cut before its 'Answer: (X)' is invalid), and the run is "
                 "another configuration.")
    return cap


#: The smallest default plan with a headline: rank-order stability needs two contexts and a rank over personas (two
#: personas rank only as ±1, so three); the circumplex needs five personas and the CFA thirty (the page says so).
DEFAULT_PERSONAS = 3
DEFAULT_CONTEXTS = ("no_conv", "topics_a")


def form() -> Callable[[ModelSpec], Any] | None:
    """The values options (``ValuesOptions``: the same model and plan builder as ``run values``)."""
    from analysis.methods.values.contexts import available_contexts
    from analysis.methods.options import choices, validate
    from analysis.methods.values.cli import plans_from_args
    from analysis.methods.values.options import ValuesOptions

    chosen = population_choice()
    if chosen is None:
        return None
    population, ids = chosen
    c = st.columns(3)
    personas = choose.persona_count("Personas", 1, 200, DEFAULT_PERSONAS, key="run_personas", ids=ids, container=c[0],
                                    help="The first N of the population (ticked personas replace this).")
    items = state.number_input("Items (0 = all)", 0, 100, 10, key="run_items", container=c[1])
    messages = state.number_input("Conversation messages", 1, 21, 3, key="run_messages", container=c[2],
                                  help="Messages generated after the opening: persona, interlocutor, persona... (odd, "
                                       "the persona speaks last; the leaderboard uses 3). no_conv: none.")
    c = st.columns([2, 1])
    contexts = state.multiselect("Contexts", available_contexts(), default=list(DEFAULT_CONTEXTS), key="run_contexts",
                                 container=c[0],
                                 help="Stability needs at least two.")
    extra = state.text_input("More contexts (paths or hub references, comma-separated)", key="run_contexts_more",
                             container=c[1], help="A .jsonl chunk of conversation openings (one per persona), or "
                             "hf://datasets/<owner>/<name>/<file>.jsonl",
                             link_filter=links.comma_paths(available_contexts()))
    contexts = [*contexts, *(x.strip() for x in extra.split(",") if x.strip())]
    c = st.columns(3)
    instrument = state.text_input("Instrument", key="run_instrument", default="pvq", container=c[0],
                                  help="'pvq' (bundled), a path to a reference data_pvq / data_svs folder, or a hub "
                                       "reference hf://datasets/<owner>/<name>/<folder>.",
                                  link_filter=links.one_path(("pvq", "svs")))
    mode = state.selectbox("Answer mode", choices(ValuesOptions, "answer_mode"), key="run_mode", container=c[1],
                           help="logprob: the most probable letter after '('; text: '(X)' in 10 tokens; cot: reasoning "
                                "then 'Answer: (X)' in up to 2000 tokens, as the leaderboard's configurations.")
    samples = state.number_input("Samples per item", 1, 10, 1, key="run_samples", container=c[2])
    answer_max_tokens = answer_length(mode)
    structured = mode != "logprob" and state.toggle(
        "Structured answers (JSON schema)", key="run_json",
        help="Each answer and SVS pick as a JSON object its endpoint constrains to a schema (run values --answer-format "
             "json): a deliberate difference from the protocol's '(X)', and a configuration of its own. A logprob "
             "answer reads one token, no JSON.")
    if not contexts:
        st.warning("Pick at least one context.")
        return None
    options = validate(ValuesOptions, {
        "population": population, "contexts": contexts, "instrument": instrument or "pvq", "persona_ids": ids or None,
        "limit_personas": None if ids else int(personas), "limit_items": int(items) or None, "messages": int(messages),
        "answer_mode": mode, "samples": int(samples), "answer_max_tokens": answer_max_tokens,
        "answer_format": "json" if structured else "text"})
    return lambda spec: [plan for _, plan in plans_from_args(options, spec)]
