"""The trust-game options of the Run page: the same plan builder as ``python -m analysis run trust``."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from analysis.errors import RoleScopeError
from analysis.llm.specs import ModelSpec
from app import choose, state, ui


TRUST_FILTERS = ("age", "political_views", "religion", "work_status", "sex")


ATTRIBUTE_SETS = {"paper": "The paper's (Table 5, test split)", "rolescope15": "RoleScope's earlier 15"}


ANSWERS = {"reasoned": "Reasoned, ending 'Amount: $X'", "numeric": "A bare number (App. E)",
           "json": "A JSON object (schema-constrained)"}


FORECASTS = {"per_round": "Before each round (Tables 6-8)", "upfront": "Once, before play"}


ABLATION = [10, 44, 100]


def bank_choice() -> tuple[str, str, str, int, list[str]] | None:
    """(level, attribute set, bank argument, number of personas, ticked ids) from the bank chooser; None without a
    usable bank."""
    from analysis.methods.trust.genagents import load_genagents
    from analysis.methods.trust.personas import generate_bank, select

    source = choose.persona_source(
        "run_trust_pop", types=[".jsonl", ".json"], check=lambda path: (load_genagents(path), [])[1],
        bundled_label="Generated bank (offline)",
        path_help="A GenAgents agent bank: a .jsonl file with one agent per line (paper set: a seeded sample of 50 of "
                  "all its agents unless ticked, described by the attributes of the paper's App. C.4 persona).")
    if source is None:
        return None
    c = st.columns(4)
    level = state.selectbox("Level", ["population", "individual"], key="run_trust_level", container=c[0],
                            help="population: beliefs per attribute and one game per persona; individual: forecasts and "
                                 "multi-round play against Trustee archetypes")
    attribute_set = state.selectbox("Attributes", list(ATTRIBUTE_SETS), key="run_trust_attrs", container=c[1],
                                    format_func=ATTRIBUTE_SETS.get,
                                    help="paper: Table 5's test-split traits and levels (the default; generated "
                                         "personas described by them, GenAgents personas by the attributes of the "
                                         "paper's App. C.4 persona); rolescope15: the earlier 15 attributes")
    bank_size = state.number_input("Generated bank size", 10, 5000, 250, key="run_trust_bank", container=c[2],
                                   disabled=source != "bundled", help="Personas generated offline (test split: 20 %)")
    bank_arg = str(bank_size) if source == "bundled" else source
    try:
        people = generate_bank(bank_size, attribute_set=attribute_set) if source == "bundled" else \
            load_genagents(source, attribute_set=attribute_set)
        bank = select(people, "test")
    except RoleScopeError as exc:
        st.error(ui.plain(exc))
        return None
    frame = pd.DataFrame([{"id": p.id, "description": p.description, **p.attributes,
                           **{k: p.details[k] for k in TRUST_FILTERS if k not in p.attributes and k in p.details}}
                          for p in bank])
    with st.expander(f"Browse and tick personas ({len(bank)} in the test split)"):
        ids = choose.persona_picker(frame, key="run_trust_pop", search=("description",),
                                    filters=tuple(f for f in TRUST_FILTERS if f in frame),
                                    columns=tuple(c for c in (*TRUST_FILTERS, "description") if c in frame))
    personas = choose.persona_count("Personas", 1, 1000, 4, key="run_trust_personas", ids=ids, container=c[3],
                                    help="The first N of the test split (ticked personas replace this).")
    return level, attribute_set, bank_arg, int(personas), ids


def form() -> Callable[[ModelSpec], list[dict]] | None:
    """The trust-game options of ``run trust`` (the same plan builders as the command line), on ticked personas: one
    plan, or one per endowment of the ablation (App. D.1, Table 9)."""
    from analysis.methods.trust import CONDITIONINGS, STRATEGIES
    from analysis.methods.options import validate
    from analysis.methods.trust.cli import plans_from_args
    from analysis.methods.trust.options import TrustOptions

    chosen = bank_choice()
    if chosen is None:
        return None
    level, attribute_set, bank_arg, personas, ids = chosen
    paper = state.toggle("Every run of the paper's tables", key="run_trust_paper",
                         help="Tables 3, 4, 6-8 and 9 in one go (run trust --paper-tables): the individual level, the "
                              "population at $44 and $100, then at $10 under self, weak and strong conditioning and "
                              "unconditioned (the headline)")
    strategies, conditioning, answer = list(STRATEGIES), "none", "reasoned"
    rounds, archetypes, forecast = 6, [1, 3, 5], "per_round"
    if paper or level == "population":
        c = st.columns(3)
        strategies = state.multiselect("Belief elicitation", list(STRATEGIES), default=list(STRATEGIES),
                                       key="run_trust_strategies", container=c[0])
        if not paper:
            conditioning = state.selectbox("Conditioning", list(CONDITIONINGS), key="run_trust_conditioning",
                                           container=c[1], help="the role prompt carries no beliefs, the model's own, "
                                                                "or perturbed priors")
        answer = state.selectbox("Answer", list(ANSWERS), key="run_trust_answer", container=c[2], format_func=ANSWERS.get,
                                 help="How the Trustor states its transfer: reasoning that ends 'Amount: $X' (default), "
                                      "a bare whole number whose first integer is taken (the paper's App. E), or every "
                                      "answer as a JSON object its endpoint constrains to a schema (--answer-format json)")
    if paper or level == "individual":
        c = st.columns(3)
        rounds = state.number_input("Rounds", 1, 20, 6, key="run_trust_rounds", container=c[0])
        archetypes = state.multiselect("Trustee archetypes k (returns min(k, 3·sent))", list(range(1, 11)),
                                       default=[1, 3, 5], key="run_trust_archetypes", container=c[1])
        forecast = state.selectbox("Forecasts", list(FORECASTS), key="run_trust_forecast", container=c[2],
                                   format_func=FORECASTS.get,
                                   help="per round: a forecast before each round from a summary of the game so far "
                                        "(the paper, default); once: every round forecast before play")
    ablation = False
    if not paper:
        c = st.columns(3)
        ablation = state.toggle("Endowment ablation", key="run_trust_ablation", container=c[1],
                                help=f"One run per endowment, ${', $'.join(map(str, ABLATION))} (App. D.1, Table 9); "
                                     "the $10 run is the headline configuration")
        endowment = state.number_input("Endowment ($)", 1, 1000, 10, key="run_trust_endowment", container=c[0],
                                       disabled=ablation, help="10 in the paper; 44, 100 in its ablation")
    if not strategies or not archetypes:
        st.warning("Pick at least one strategy / archetype.")
        return None
    options = validate(TrustOptions, {
        "level": "population" if paper else level, "strategies": strategies, "conditioning": conditioning,
        "rounds": int(rounds), "archetypes": [int(a) for a in archetypes],
        "endowment": 10 if paper or ablation else int(endowment), "endowments": ABLATION if ablation else None,
        "paper_tables": paper, "personas": bank_arg, "attribute_set": attribute_set, "forecast": forecast,
        "answer": "reasoned" if answer == "json" else answer, "answer_format": "json" if answer == "json" else "text",
        "limit_personas": None if ids else int(personas), "persona_ids": ids or None})
    return lambda spec: [plan for _, plan in plans_from_args(options, spec)]
