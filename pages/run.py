"""Run: configure a values or MBTI run, see its cost before starting, watch it live, cancel and resume it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pandas as pd
import streamlit as st

from analysis.errors import RoleScopeError
from analysis.llm.keys import endpoint_trusted, find_api_key
from analysis.llm.specs import ModelSpec, load_named_models, parse_model_spec
from analysis import methods
from analysis.methods import create_run
from analysis.runs.runner import new_run_id
from analysis.runs.estimate import RunEstimate, estimate_run
from analysis.runs.limits import CONFIRM_CALLS
from app.nav import PAGES
from app import choose, data, links, state, ui
from app.jobs import RunJob, registry
from app.stores import USER_LABEL, demo_ref, user_ref

ui.context()
ui.header("Run", "Start a small evaluation against any model: it runs in the background, writes every finished call to "
          "your store at once (so nothing is lost on a crash) and can be cancelled and resumed.")
ref = user_ref()
jobs = registry()
st.caption(f"Runs write to **{USER_LABEL}**: `{ref.path}`. API keys are never written to the store, logs or exports.")


def _show_user_store() -> None:
    st.session_state["store"] = "user"


#: Where a finished run's results are shown, per method.

# -- live progress -----------------------------------------------------------------------------------
def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "estimating…"
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def outcome(run_id: str, status: str, done: int, cached: int, failed: int, error: str | None) -> None:
    """How a finished run ended, in the colour it deserves: red when it failed or no call succeeded (with the first
    error in view), yellow with failed calls or when cancelled, green only when every call succeeded."""
    failures = data.failures(user_ref(), run_id) if failed or status == "failed" else None
    first = (f" First error: {ui.plain(failures['error'].iloc[0])}" if failures is not None and len(failures) else "")
    if error or status == "failed":
        st.error(f"Run failed: {ui.plain(error) if error else 'see the failed calls below'}.{first}", icon="🛑")
    elif failed and failed >= done:
        st.error(f"Run failed: all {failed} calls failed, nothing was answered.{first}", icon="🛑")
    elif status.startswith("completed") and failed:
        st.warning(f"Run completed with {failed} failed call(s) of {done}: its results leave those units out (resume it "
                   f"below to retry them).{first}", icon="⚠️")
    elif status.startswith("completed"):
        st.success(f"Run completed: {done} calls ({cached} from cache). Its results are on every page of your store.")
    elif status == "cancelled":
        st.warning("Run cancelled. Everything that finished is stored; resume it below to make only the missing calls.")
    if failures is not None and len(failures):
        with st.expander(f"{failed} failed calls"):
            ui.table(failures, hide_index=True, width="stretch")


def progress_panel(job: RunJob) -> None:
    """Progress bar, counts, ETA, failures; a cancel button while it runs (drawn by a polling fragment)."""
    snap = job.tracker.snapshot()
    status = job.status
    st.markdown(f"**Run `{job.run_id}`** · {status}")
    if snap.total == 0 and job.running:
        st.progress(0.0, text="Starting (the embedded model loads on its first run)…")
    else:
        st.progress(min(1.0, snap.fraction), text=f"{snap.done} of {snap.total} calls")
    cols = st.columns(5)
    cols[0].metric("Done", snap.done)
    cols[1].metric("From cache", snap.cached)
    cols[2].metric("Failed", snap.failed)
    cols[3].metric("Tokens in / out", f"{snap.tokens_in:,} / {snap.tokens_out:,}")
    cols[4].metric("ETA" if job.running else "Took", _eta(snap.eta_s if snap.total else None) if job.running else
                   f"{(job.finished_at or time.time()) - job.started_at:.0f} s")
    if job.running:
        if st.button("Cancel run", key=f"cancel-{job.run_id}", icon=":material/stop_circle:", disabled=job.cancel.is_set()):
            job.cancel.set()
            st.toast("Cancelling: calls in flight finish, nothing else starts.")
        st.session_state.setdefault("_jobs_live", set()).add(job.run_id)
        return
    outcome(job.run_id, status, snap.done, snap.cached, snap.failed, job.error)
    live = st.session_state.setdefault("_jobs_live", set())
    if job.run_id in live:  # it just finished: refresh the whole page once
        live.discard(job.run_id)
        st.rerun()


# The runs of this page live in the URL (?run_job=…, twice for an A/B pair), so a reload or a shared link shows
# their panels again.
def _shown_runs() -> list[str]:
    mine = st.session_state.get("run_jobs") or ([st.session_state["run_job"]] if st.session_state.get("run_job") else [])
    if mine and st.query_params.get_all("run_job") != mine:
        st.query_params["run_job"] = mine
    return st.query_params.get_all("run_job") or mine


def _stored_panel(run_id: str, record: pd.Series) -> None:
    """A run that finished in an earlier server process (or before a restart): its record tells how it ended."""
    st.markdown(f"**Run `{run_id}`** · {ui.plain(record['status'])}")
    n_failed = int(record.get("n_failed") or 0)
    n_calls = int(record.get("n_calls") or 0)
    error = record.get("error")
    outcome(run_id, str(record["status"]), n_calls + n_failed, 0, n_failed, error if isinstance(error, str) and error else None)


def _results_button(run_id: str, method: str) -> None:
    if st.button("Show the results", icon=":material/insights:", on_click=_show_user_store, key=f"results-{run_id}"):
        st.switch_page(next((p.path for p in PAGES if p.method == method), "pages/overview.py"))


def _open_compare(models: list[str]) -> None:
    """Compare's two sides set to the pair's models in the user's store (the sidebar shows that store, all models)."""
    _show_user_store()
    for key in ("models",):
        st.session_state.pop(key, None)
        st.session_state.get("_url_keep", {}).pop(key, None)
    st.session_state["a"], st.session_state["b"] = (f"user::{m}" for m in models)


shown = _shown_runs()
stored = data.runs(user_ref())
stored = stored.set_index("run_id") if len(stored) else stored
live = [j for j in (jobs.get(r) for r in shown) if j is not None] or jobs.active()[:1]
known = {j.run_id for j in live}
earlier = [r for r in shown if r not in known and len(stored) and r in stored.index]
if live or earlier:
    st.subheader("Current runs" if len(live) + len(earlier) > 1 else "Current run" if live else "Last run")
for run_id in earlier:
    _stored_panel(run_id, stored.loc[run_id])
    _results_button(run_id, str(stored.loc[run_id, "method"]))
for job in live:

    @st.fragment(run_every=1.0 if job.running else None)
    def _live(job: RunJob = job) -> None:
        progress_panel(job)

    with st.container():  # a fragment's identity is its container's place: one container per run
        _live()
    if not job.running:
        _results_button(job.run_id, str(stored["method"].get(job.run_id, "values")) if len(stored) else "values")
finished = [r for r in shown if len(stored) and r in stored.index]
models = list(dict.fromkeys(str(stored.loc[r, "model"]) for r in finished))  # an A/B pair: its runs span two models
if len(shown) >= 2 and len(finished) == len(shown) and len(models) == 2 and not any(j.running for j in live):
    if st.button(f"Compare {models[0]} and {models[1]}", type="primary", icon=":material/compare_arrows:",
                 key="pair_compare", on_click=_open_compare, args=(models,)):
        st.switch_page("pages/compare.py")


# -- model and key ------------------------------------------------------------------------------------
def _spec_picker(suffix: str = "", label: str = "Model") -> ModelSpec | None:
    """The model of a run: the embedded one, a named configuration of models.toml or any spec typed in."""
    named = load_named_models()
    options = ["embedded", *named, "other"]
    labels = {"embedded": "embedded — SmolLM2-135M (offline, no key; near-chance answers)", "other": "Other model spec…"}
    choice = state.selectbox(label, options, key=f"run_model{suffix}",
                             format_func=lambda o: labels.get(o, f"{o} (models.toml)"))
    text = choice
    if choice == "other":
        text = state.text_input(f"{label} spec", key=f"run_spec{suffix}",
                                placeholder="openai:gpt-4o-mini · hf:<model> · <model>@http://host:port/v1")
        if not text:
            return None
    try:
        return parse_model_spec(text)
    except RoleScopeError as exc:
        st.error(ui.plain(str(exc)))
        return None


def _api_key(spec: ModelSpec, key: str = "run_api_key") -> tuple[bool, str | None, tuple[str, ...]]:
    """(usable, key, confirmed endpoints): the key from the environment / secrets, or one typed into a session-only
    password field. An endpoint that is neither built in nor in models.toml (typed, pre-filled by a link, or read
    from a stored run) gets the key only after a tick naming its host, held in this session only."""
    if spec.backend == "embedded":
        st.caption("No key needed: the embedded model runs inside this app.")
        return True, None, ()
    found = find_api_key(spec)
    if found:
        st.caption(f"Key found in `{spec.api_key_env}` (environment or `.streamlit/secrets.toml`).")
    else:
        found = st.text_input(f"API key ({spec.api_key_env or 'none needed for a local server'})", type="password",
                              key=key, help="Kept in this browser session only; never stored or logged.") or None
        if found:
            found = find_api_key(spec, found)
        elif spec.backend == "custom":
            return True, None, ()  # local servers usually need none, and no key goes anywhere
        else:
            st.warning(f"Set `{spec.api_key_env}` in the environment or `.streamlit/secrets.toml`, or type the key above.")
            return False, None, ()
    if endpoint_trusted(spec):
        return True, found, ()
    host = ui.plain(urlsplit(spec.base_url or "").hostname or spec.base_url)
    url = ui.plain(spec.base_url)
    if st.checkbox(f"Send the key in `{spec.api_key_env}` to **{host}**", key=f"{key}_send_to_host", value=False,
                   help=f"{url} is not in models.toml: a link or a stored run can name any host. Tick only if "
                        "you meant this endpoint (this session only; never in the link)."):
        return True, found, (spec.base_url or "",)
    st.info(f"{url} is not one of your configured endpoints: tick the box to send it your key.")
    return False, None, ()


# -- plans --------------------------------------------------------------------------------------------
def _values_personas() -> tuple[str, list[int]] | None:
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


def _values_plan() -> Callable[[ModelSpec], Any] | None:
    from analysis.methods.values.contexts import available_contexts
    from analysis.methods.values.method import build_values_plan

    chosen = _values_personas()
    if chosen is None:
        return None
    population, ids = chosen
    c = st.columns(3)
    personas = state.number_input("Personas", 1, 200, 2, key="run_personas", container=c[0], disabled=bool(ids),
                                  help="The first N of the population (ticked personas replace this).")
    items = state.number_input("Items (0 = all)", 0, 100, 10, key="run_items", container=c[1])
    messages = state.number_input("Conversation messages", 1, 21, 3, key="run_messages", container=c[2],
                                  help="Messages generated after the opening: persona, interlocutor, persona... (odd, "
                                       "the persona speaks last; the leaderboard uses 3). no_conv: none.")
    c = st.columns([2, 1])
    contexts = state.multiselect("Contexts", available_contexts(), default=["no_conv"], key="run_contexts", container=c[0],
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
    mode = state.selectbox("Answer mode", ["logprob", "text", "cot"], key="run_mode", container=c[1],
                           help="logprob: the most probable letter after '('; text: '(X)' in 10 tokens; cot: reasoning "
                                "then 'Answer: (X)' in up to 2000 tokens, as the leaderboard's configurations.")
    samples = state.number_input("Samples per item", 1, 10, 1, key="run_samples", container=c[2])
    if not contexts:
        st.warning("Pick at least one context.")
        return None
    return lambda spec: build_values_plan(spec, population=population, contexts=contexts, instrument=instrument or "pvq",
                                          persona_ids=ids or None, limit_personas=None if ids else int(personas),
                                          limit_items=int(items) or None, messages=int(messages), answer_mode=mode,
                                          samples=int(samples))


def _mbti_plan() -> Callable[[ModelSpec], Any] | None:
    from analysis.methods.mbti.method import build_mbti_plan
    from analysis.methods.mbti.subjects import DEFAULT_SUBJECTS

    subjects = state.multiselect("Subjects", [*DEFAULT_SUBJECTS, "Doctors", "Teachers", "Engineers"], default=["People"],
                                 key="run_subjects", accept_new_options=True, help="Plural groups; type to add your own.")
    c = st.columns(4)
    testings = state.number_input("Testings", 1, 30, 2, key="run_testings", container=c[0],
                                  help="Independent testings per subject (15 in the paper).")
    statements = state.number_input("Statements (0 = all 60)", 0, 60, 10, key="run_statements", container=c[1])
    order = state.selectbox("Option order", ["permuted", "fixed", "both"], key="run_order", container=c[2],
                            help="'both' gives the robustness score.")
    mode = state.selectbox("Answer mode", ["text", "logprob"], key="run_mbti_mode", container=c[3])
    if not subjects:
        st.warning("Pick at least one subject.")
        return None
    return lambda spec: build_mbti_plan(spec, subjects=subjects, testings=int(testings), order=order,
                           limit_statements=int(statements) or None, answer_mode=mode)


TRUST_FILTERS = ("age", "political_views", "religion", "work_status", "sex")
ATTRIBUTE_SETS = {"paper": "The paper's (Table 5, test split)", "rolescope15": "RoleScope's earlier 15"}
ANSWERS = {"reasoned": "Reasoned, ending 'Amount: $X'", "numeric": "A bare number (App. E)"}
FORECASTS = {"per_round": "Before each round (Tables 6-8)", "upfront": "Once, before play"}
ABLATION = [10, 44, 100]


def _trust_plan() -> Callable[[ModelSpec], list[dict]] | None:
    """The trust-game options of ``run trust`` (the same plan builders as the command line), on ticked personas: one
    plan, or one per endowment of the ablation (App. D.1, Table 9)."""
    from analysis.methods.trust import CONDITIONINGS, STRATEGIES
    from analysis.methods.trust.cli import plans_from_args, run_args
    from analysis.methods.trust.genagents import load_genagents
    from analysis.methods.trust.personas import generate_bank, select

    source = choose.persona_source(
        "run_trust_pop", types=[".jsonl", ".json"], check=lambda path: (load_genagents(path), [])[1],
        bundled_label="Generated bank (offline)",
        path_help="A GenAgents agent bank: a .jsonl file with one agent per line (its test personas of the paper's "
                  "Table 5; 50 of them unless ticked).")
    if source is None:
        return None
    c = st.columns(4)
    level = state.selectbox("Level", ["population", "individual"], key="run_trust_level", container=c[0],
                            help="population: beliefs per attribute and one game per persona; individual: forecasts and "
                                 "multi-round play against Trustee archetypes")
    attribute_set = state.selectbox("Attributes", list(ATTRIBUTE_SETS), key="run_trust_attrs", container=c[1],
                                    format_func=ATTRIBUTE_SETS.get,
                                    help="paper: Table 5's traits and levels, personas described by the test split's "
                                         "attributes (the default); rolescope15: the earlier 15 attributes")
    bank_size = state.number_input("Generated bank size", 10, 5000, 250, key="run_trust_bank", container=c[2],
                                   disabled=source != "bundled", help="Personas generated offline (test split: 20 %)")
    personas = state.number_input("Personas", 1, 1000, 4, key="run_trust_personas", container=c[3],
                                  help="The first N of the test split (ticked personas replace this).")
    bank_arg = str(bank_size) if source == "bundled" else source
    try:
        people = generate_bank(bank_size, attribute_set=attribute_set) if source == "bundled" else \
            load_genagents(source, attribute_set=attribute_set)
        bank = select(people, "test")
    except RoleScopeError as exc:
        st.error(ui.plain(exc))
        return None
    frame = pd.DataFrame([{"id": p.id, "description": p.description, **p.attributes} for p in bank])
    with st.expander(f"Browse and tick personas ({len(bank)} in the test split)"):
        ids = choose.persona_picker(frame, key="run_trust_pop", search=("description",),
                                    filters=tuple(f for f in TRUST_FILTERS if f in frame),
                                    columns=tuple(c for c in (*TRUST_FILTERS, "description") if c in frame))
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
                                      "or a bare whole number whose first integer is taken (the paper's App. E)")
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
    args = run_args(level="population" if paper else level, strategies=strategies, conditioning=conditioning,
                    rounds=int(rounds), archetypes=[int(a) for a in archetypes],
                    endowment=10 if paper or ablation else int(endowment), endowments=ABLATION if ablation else None,
                    paper_tables=paper, personas=bank_arg, attribute_set=attribute_set, forecast=forecast, answer=answer,
                    limit_personas=None if ids else int(personas), persona_ids=ids or None)
    return lambda spec: [plan for _, plan in plans_from_args(args, spec)]


def _personagym_plan() -> Callable[[ModelSpec], dict] | None:
    """The PersonaGym options of ``run personagym`` (the same plan builder as the command line), on ticked personas."""
    from analysis.methods.personagym.data import load_personas
    from analysis.methods.personagym.method import build_personagym_plan
    from analysis.methods.personagym.session import plan_json

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
    personas = state.number_input("Personas", 1, len(population), 1, key="run_pg_personas", container=c[0],
                                  disabled=bool(ids), help="A seeded sample of N (ticked personas replace this)")
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
                               help="Empty: the bundled rubrics. A folder of rubric .txt files (e.g. your clone's "
                                    "PersonaGym/rubrics) or a rubrics .json",
                               link_filter=links.one_path(("default", "bundled")))
    if source == "bundled":  # ticked ones out of all, else a seeded sample of N
        chosen = "all" if ids else str(personas)
    else:
        chosen = source
    def build(spec: ModelSpec) -> dict:
        plan = build_personagym_plan(
            spec, personas=chosen, questions_per_task=int(per_task), persona_ids=ids or None,
            limit_personas=int(personas) if not ids and source != "bundled" else None,  # a file: its first N
            evaluators=[e.strip() for e in evaluators.split(",") if e.strip()], generator=generator.strip() or None,
            environments_per_persona=int(environments) or None, rubrics=rubrics.strip() or "default",
            answer_max_tokens=int(max_tokens),
            **{f"{call}_max_tokens": int(max_tokens) for call in ("selection", "question", "examples", "grade")})
        return plan_json(plan)

    return build


@st.cache_data(show_spinner="Checking what this plan can show…", max_entries=16)
def _shows(method: str, plan_json: str, n_runs: int) -> Any:
    return methods.get(method).can_show(json.loads(plan_json), n_runs)


def _what_it_will_show(method: str, plan: dict, n_runs: int = 1) -> None:
    """Before starting: which of the method's analyses this plan (the first of ``n_runs`` per model) can produce
    (``Method.can_show``), and a warning when none."""
    shows = _shows(method, json.dumps(plan, sort_keys=True), n_runs)
    st.markdown(f"**This run can show** ({shows.design}): " + "; ".join(
        f"{name} {'✅' if ok else '— ' + why}" for name, ok, why in shows.lines))
    if shows.nothing:
        st.warning("As planned, this run produces no metric any analysis page can show. Add personas, contexts or "
                   "testings first.", icon="⚠️")


def _connection_check(spec: ModelSpec, api_key: str | None, enabled: bool, suffix: str = "",
                      confirmed: tuple[str, ...] = ()) -> None:
    if st.button("Test connection", icon=":material/network_check:", disabled=not enabled, key=f"run_check{suffix}",
                 help="One tiny request (1 token) to this model with this key; the exact error when it fails."):
        from analysis.llm.check import check_connection

        with st.spinner("Sending one request…"):
            result = check_connection(spec, api_key, confirmed=confirmed)
        if result.ok:
            st.success("Connected: " + ui.plain(result.message))
        else:
            st.error("Connection failed: " + ui.plain(result.message))


def _estimate(method: str, plan: Any, plan_dict: dict, spec: ModelSpec) -> RunEstimate:
    """The plan's calls; tokens and time measured on this model's newest earlier run (your store, else the demo's)."""
    measured = None
    for ref_ in (user_ref(), *([demo_ref()] if demo_ref() is not None else [])):
        measured = data.throughput(ref_, spec.name, method)
        if measured is not None:
            break
    m = methods.get(method)
    return estimate_run(method, m.tokens(plan_dict), spec, m.n_calls(plan_dict), measured)


def _show_estimate(est: RunEstimate, spec: ModelSpec, label: str = "") -> None:
    cols = st.columns(4)
    cols[0].metric(f"LLM calls{label}", f"{est.n_calls:,}",
                   help="PersonaGym: the upper bound (environments and questions may come out fewer)")
    cols[1].metric("Tokens in / out (est.)", "—" if est.tokens_in is None else f"{est.tokens_in:,} / {est.tokens_out:,}",
                   help=None if est.tokens_in is not None else "Prompts of this method depend on replies not yet made: "
                   "known after a first run of this model")
    cols[2].metric("Cost (est.)", "free" if spec.backend == "embedded" else
                   (f"${est.cost:.4f}" if est.cost is not None else "no price set" if est.tokens_in is not None else "—"))
    cols[3].metric("Time (est.)", "—" if est.seconds is None else _eta(est.seconds),
                   help=None if est.seconds is not None else "Known after a first run of this model")
    st.caption(f"Estimate {est.basis}" + (" — at that run's concurrency and load" if est.measured else
               "" if est.tokens_in is None else " (characters/4; replies at 60% of their limit)") +
               ". Cost from the model's prices in models.toml; calls already in the cache are free.")


def _as_list(built: Any) -> list[Any]:
    """A plan builder's result as a list of plans (the trust endowment ablation builds one plan per endowment)."""
    return built if isinstance(built, list) else [built]


def _plan_label(spec: ModelSpec, plan: dict, plans: list[dict], n_models: int) -> str:
    """The suffix naming a plan's estimate when there are several: its model (A/B), and what tells it from the other
    plans of its model (the trust ablation's endowment, the paper tables' level and conditioning)."""
    shown = {"level": str, "endowment": lambda v: f"${v}",
             "conditioning": lambda v: "unconditioned" if v == "none" else f"{v}-conditioned"}
    parts = [spec.name] if n_models > 1 else []
    parts += [show(plan.get(key)) for key, show in shown.items() if len({json.dumps(p.get(key)) for p in plans}) > 1]
    return "".join(f" · {p}" for p in parts)


METHODS = {m.name: m.title for m in methods.all_methods()}
st.subheader("New run")
method = state.segmented("Method", list(METHODS), key="method", format_func=METHODS.get)
sides: list[tuple[ModelSpec, bool, str | None]] = []  # (spec, usable key, key) of model A, then B
confirmed: tuple[str, ...] = ()  # endpoints the user ticked to receive their key (this session)
pair_missing = False
spec = _spec_picker()
if spec is not None:
    key_ok, api_key, confirmed = _api_key(spec)
    _connection_check(spec, api_key, key_ok, confirmed=confirmed)
    sides.append((spec, key_ok, api_key))
if state.toggle("Also run on a second model (A/B)", key="run_ab",
                help="The same plan on two models at once; Compare opens on the pair when both have finished."):
    spec_b = _spec_picker("_b", "Model B")
    if spec_b is not None:
        key_ok_b, api_key_b, confirmed_b = _api_key(spec_b, key="run_api_key_b")
        _connection_check(spec_b, api_key_b, key_ok_b, "_b", confirmed_b)
        confirmed += confirmed_b
        if spec is not None and spec_b.name == spec.name:
            st.warning(f"A and B are both {ui.plain(spec.name)}: pick two different models (or two named configurations).")
        elif sides:
            sides.append((spec_b, key_ok_b, api_key_b))
    pair_missing = len(sides) < 2
plans: list[tuple[ModelSpec, Any, str | None]] = []  # (spec, plan, key): one plan per model, or several (ablation)
if sides:
    try:
        build = {"values": _values_plan, "mbti": _mbti_plan, "trust": _trust_plan, "personagym": _personagym_plan}[method]()
        plans = [(s, p, k) for s, _, k in sides for p in _as_list(build(s))] if build is not None else []
    except RoleScopeError as exc:
        st.error(ui.plain(exc))
        plans = []
concurrency = state.number_input("Concurrent requests", 1, 256, 2 if spec is not None and spec.backend == "embedded" else 8,
                                 key="run_concurrency", help="Requests in flight at once, per model (the embedded model "
                                 "serves one at a time).")

if plans:
    dumps = [p if isinstance(p, dict) else p.model_dump() for _, p, _ in plans]
    _what_it_will_show(method, dumps[0], len(plans) // len(sides))
    per_model: dict[str, list[dict]] = {}
    for (spec_, _, _), dump in zip(plans, dumps):
        per_model.setdefault(spec_.name, []).append(dump)
    for (spec_, plan_, _), dump in zip(plans, dumps):
        _show_estimate(_estimate(method, plan_, dump, spec_), spec_,
                       _plan_label(spec_, dump, per_model[spec_.name], len(sides)))
    busy = bool(jobs.active())
    ready = all(ok for _, ok, _ in sides) and not pair_missing
    n_calls = sum(methods.get(method).n_calls(d) for d in dumps)
    if n_calls > CONFIRM_CALLS:
        ready &= st.checkbox(f"Yes, start {n_calls:,} calls", key="run_confirm_large", value=False,
                             help=f"Plans of more than {CONFIRM_CALLS:,} calls start only when confirmed.")
    label = "Start run" if len(plans) == 1 else "Run on A and B" if len(plans) == len(sides) else f"Start {len(plans)} runs"
    if st.button(label, type="primary", icon=":material/play_arrow:", disabled=busy or not ready, key="run_start"):
        started: list[str] = []
        try:
            for (spec_, _, key_), dump in zip(plans, dumps):
                run_id = new_run_id(method)
                create_run(ref.store, method, spec_, dump, run_id)
                started.append(jobs.start(ref.path, run_id, api_key=key_, concurrency=int(concurrency),
                                          confirmed=confirmed).run_id)
        except (RoleScopeError, RuntimeError) as exc:
            st.error(ui.plain(exc))
        if started:
            st.session_state["run_job"], st.session_state["run_jobs"] = started[0], started
            st.query_params["run_job"] = started
            st.rerun()
    if busy:
        st.caption("A run is executing; start the next one when it has finished or been cancelled.")

# -- resume -------------------------------------------------------------------------------------------
st.subheader("Resume")
runs = data.runs(user_ref())
unfinished = runs[~runs["status"].isin(["completed", "imported"])] if len(runs) else runs
if len(unfinished):  # a run executing in this server is not resumable
    unfinished = unfinished[[jobs.get(r) is None or not jobs.get(r).running for r in unfinished["run_id"]]]
if unfinished.empty:
    st.caption("No unfinished run in your store. A cancelled, failed or interrupted run shows up here.")
else:
    st.caption("Resuming re-executes the stored plan: finished calls come from the cache, only the missing ones are made.")
    ui.table(unfinished[["run_id", "method", "model", "status", "n_units", "n_calls", "n_failed", "created_at"]],
                 hide_index=True, width="stretch")
    run_id = st.selectbox("Run to resume", list(unfinished["run_id"]), key="resume_id")
    rspec = ModelSpec.model_validate(data.run_record(user_ref(), run_id)["model_spec"])
    ok, rkey, rconfirmed = _api_key(rspec, key="resume_api_key") if rspec.backend != "embedded" else (True, None, ())
    busy = bool(jobs.active())
    if st.button("Resume run", icon=":material/replay:", disabled=busy or not ok, key="resume_start"):
        try:
            st.session_state["run_job"] = jobs.start(ref.path, run_id, api_key=rkey, concurrency=int(concurrency),
                                                     confirmed=rconfirmed).run_id
        except RuntimeError as exc:
            st.error(ui.plain(exc))
        else:
            st.rerun()
