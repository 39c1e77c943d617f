"""The PersonaGym options of the Run page: the same plan builder as ``python -m analysis run personagym``."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from analysis.errors import RoleScopeError
from analysis.llm.specs import ModelSpec
from app import choose, links, state, ui


def form() -> Callable[[ModelSpec], dict] | None:
    """The PersonaGym options of ``run personagym`` (the same plan builder as the command line), on ticked personas."""
    from analysis.methods.personagym.data import load_personas
    from analysis.methods.options import validate
    from analysis.methods.personagym.cli import plan_from_args
    from analysis.methods.personagym.options import PersonaGymOptions

    source = choose.persona_source(
        "run_pg_pop", types=[".json", ".txt", ".csv"], check=lambda path: (load_personas(path), [])[1],
        bundled_label="Bundled personas", path_help="A personas file (.json list of strings or {id, description}, "
        ".txt one per line, .csv with a description column) or a folder of PersonaGym question files.",
        names=("all", "default", "bundled"))
    if source is None:
        return None
    try:
        population = load_personas("all" if source == "bundled" else source)
    except RoleScopeError as exc:
        st.error(ui.plain(exc))
        return None
    frame = pd.DataFrame([{"id": p.id, "description": p.description} for p in population])
    with st.expander(f"Browse and tick personas ({len(population)})"):
        ids = choose.persona_picker(frame, key="run_pg_pop", search=("description",), filters=(), columns=("description",))
    c = st.columns(3)
    personas = choose.persona_count("Personas", 1, len(population), 1, key="run_pg_personas", ids=ids,
                                    container=c[0], help="A seeded sample of N (ticked personas replace this)")
    per_task = state.number_input("Questions per task", 1, 10, 1, key="run_pg_questions", container=c[1],
                                  help="10 in the paper")
    environments = state.number_input("Environments per persona (cap)", 0, 10, 0, key="run_pg_envs", container=c[2],
                                      help="0: the generator picks as many relevant ones as it likes (the reference)")
    max_tokens = state.number_input("Max tokens per call", 1, 8000, 3000, key="run_pg_max_tokens", container=c[0],
                                    help="3000: the reference's limit for every call; answers that hit it are flagged. "
                                         "A small model loops to any limit: a lower one saves time")
    c = st.columns(3)
    evaluators = state.text_input("Evaluators (comma list of model specs)", key="run_pg_evaluators", container=c[0],
                                  help="Empty: the agent grades itself (self-graded, said on the page). Two or more give "
                                       "judge agreement.")
    generator = state.text_input("Question generator", key="run_pg_generator", container=c[1],
                                 help="Empty: the first evaluator")
    rubrics = state.text_input("Rubrics", key="run_pg_rubrics", container=c[2],
                               help="Empty: the bundled rubrics and judge prompt (RoleScope's wording). A folder of rubric .txt "
                                    "files (e.g. your clone's PersonaGym/rubrics: its judge prompt "
                                    "PersonaGym/prompts/rubric_grading/sys_prompt.txt comes with it) or a rubrics .json",
                               link_filter=links.one_path(("default", "bundled")))
    structured = state.toggle("Structured grades (JSON schema)", key="run_pg_json",
                              help="Each judge replies with a JSON object {reasoning, score} its endpoint constrains to "
                                   "a schema (run personagym --answer-format json); off: the paper's 'Therefore, the "
                                   "final score is N.'")
    if source == "bundled":  # ticked ones out of all, else a seeded sample of N
        chosen = "all" if ids else str(personas)
    else:
        chosen = source
    options = validate(PersonaGymOptions, {
        "personas": chosen, "questions_per_task": int(per_task), "persona_ids": ids or None,
        "limit_personas": int(personas) if not ids and source != "bundled" else None,  # a file: its first N
        "evaluators": [e.strip() for e in evaluators.split(",") if e.strip()], "generator": generator.strip() or None,
        "environments_per_persona": int(environments) or None, "rubrics": rubrics.strip() or "default",
        "max_tokens": int(max_tokens), "call_max_tokens": int(max_tokens),
        "answer_format": "json" if structured else "text"})

    def build(spec: ModelSpec) -> dict:
        return plan_from_args(options, spec)

    return build
