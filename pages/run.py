"""Run: configure a run of any method (its options are the method's run form), see its cost before starting, watch it live, cancel and resume it."""

from __future__ import annotations

import dataclasses
import json
import time
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
from app.methods import view
from app.nav import page
from app import data, state, ui
from analysis.runs.outcome import Counts, Outcome, live_counts, progress_title, titled_run
from app.jobs import RunJob, registry
from app.stores import USER_LABEL, demo_ref, user_ref

ui.context()
ui.header("Start a small evaluation against any model: it runs in the background, writes every finished call to "
          "your store at once (so nothing is lost on a crash) and can be cancelled and resumed.")
ref = user_ref()
jobs = registry()
st.caption(f"Runs write to **{USER_LABEL}**: `{ref.path}`. API keys are never written to the store, logs or exports.")


def _show_user_store() -> None:
    st.session_state["store"] = "user"



# -- live progress and how a run ended ----------------------------------------------------------------------
def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "estimating…"
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


LEVEL = {"success": (st.success, "✅"), "warning": (st.warning, "⚠️"), "error": (st.error, "🛑"), "info": (st.info, "⏳")}


def _row() -> Any:
    """A row of metrics or buttons, each as wide as its text, wrapping onto a next line where the page is narrow:
    in equal columns (seven on a 1000 px window) a value such as the token counts, a label or a button's text was cut
    with an ellipsis."""
    return st.container(horizontal=True, gap="medium", vertical_alignment="center")


def _counts_row(counts: Counts, tokens: str | None, clock: tuple[str, str]) -> None:
    """Planned, sent, answered, failed and not-asked calls apart (and tokens, ETA or time taken)."""
    row = _row()
    row.metric("Planned", counts.planned, width="content", help="Calls the plan makes: an upper bound where a step's "
               "output sets the next step's size (e.g. generated environments and questions may come out fewer)")
    row.metric("Sent", counts.sent, width="content",
               help="Requests that went to the endpoint (answers from the cache are not sent)")
    row.metric("Answered", counts.answered, width="content",
               help=f"Calls with a stored reply ({counts.cached} from the cache)")
    row.metric("Failed", counts.failed, width="content", help="No reply after the retries")
    row.metric("Not asked", counts.not_asked, width="content", help="Planned calls never made: a step they needed "
               "failed or came out smaller, or the run was cancelled")
    row.metric("Tokens in / out", tokens or "—", width="content")
    row.metric(*clock, width="content")


def _show_outcome(result: Outcome, run_id: str) -> None:
    draw, icon = LEVEL[result.level]
    draw(f"**{ui.plain(result.title)}.** {ui.plain(result.detail)}", icon=icon)
    failures = data.failures(user_ref(), run_id) if result.counts.failed else None
    if failures is not None and len(failures):
        with st.expander(f"{result.counts.failed} failed calls"):
            ui.table(failures, hide_index=True, width="stretch")


def progress_panel(job: RunJob) -> None:
    """A run executing in this server: progress, the counts apart, ETA, a cancel button; once it ends, how it ended
    (drawn by a polling fragment)."""
    snap = job.tracker.snapshot()
    if job.running:
        st.markdown(f"**Run `{job.run_id}`** · {job.status}")
        counts = live_counts(snap.total, snap.done, snap.cached, snap.failed, snap.skipped)
        if snap.total == 0:
            st.progress(0.0, text="Starting (the embedded model loads on its first run)…")
        else:
            st.progress(min(1.0, snap.fraction), text=f"{snap.done} of {snap.total} planned calls done "
                        f"({counts.answered} answered, {counts.failed} failed, {snap.skipped} not needed)")
        _counts_row(counts, f"{snap.tokens_in:,} / {snap.tokens_out:,}", ("ETA", _eta(snap.eta_s if snap.total else None)))
        if snap.message:  # a provider batch: its status and counts as the provider gives them
            st.caption(ui.plain(snap.message))
        if st.button("Cancel run", key=f"cancel-{job.run_id}", icon=":material/stop_circle:", disabled=job.cancel.is_set()):
            job.cancel.set()
            st.toast("Cancelling: calls in flight finish, nothing else starts.")
        st.session_state.setdefault("_jobs_live", set()).add(job.run_id)
        return
    live = st.session_state.setdefault("_jobs_live", set())
    if job.run_id in live:  # it just finished: the whole page reruns once, to tell (toast, title) and link it
        live.discard(job.run_id)
        st.session_state.setdefault("_jobs_ended", []).append(job.run_id)
        st.rerun()
    _finished_panel(job.run_id, job.status, job.error, f"{snap.tokens_in:,} / {snap.tokens_out:,}",
                    f"{(job.finished_at or time.time()) - job.started_at:.0f} s")


def _finished_panel(run_id: str, status: str, error: str | None, tokens: str | None, took: str | None) -> Outcome:
    """A finished run (in this server, or before a restart: its store tells how it ended)."""
    result = data.run_outcome(user_ref(), run_id, status, error)
    st.markdown(f"**Run `{run_id}`** · {ui.plain(status)}")
    st.progress(min(1.0, result.counts.answered / result.counts.planned) if result.counts.planned else 0.0,
                text=f"{result.counts.answered} of {result.counts.planned} planned calls answered")
    _counts_row(result.counts, tokens, ("Took", took or "—"))
    _show_outcome(result, run_id)
    return result


# The runs of this page live in the URL (?run_job=…, twice for an A/B pair), so a reload or a shared link shows
# their panels again; the runs this server executed stay shown, in any tab, until dismissed.
def _shown_runs() -> list[str]:
    mine = st.session_state.get("run_jobs") or ([st.session_state["run_job"]] if st.session_state.get("run_job") else [])
    if mine and st.query_params.get_all("run_job") != mine:
        st.query_params["run_job"] = mine
    linked = st.query_params.get_all("run_job") or mine
    return list(dict.fromkeys([*linked, *jobs.undismissed(str(ref.path))]))


def _dismiss(run_id: str) -> None:
    jobs.dismiss(run_id)
    st.session_state["run_jobs"] = [r for r in st.session_state.get("run_jobs") or [] if r != run_id]
    if st.session_state.get("run_job") == run_id:
        st.session_state["run_job"] = (st.session_state.get("run_jobs") or [None])[0]
    st.query_params["run_job"] = [r for r in st.query_params.get_all("run_job") if r != run_id]


def _run_links(run_id: str, method: str | None, result: Outcome | None) -> None:
    """Below a finished run: its results (when it has any to show), its samples, and dismiss."""
    if method is None:  # not in the store's run list yet: the next rerun shows the links
        return
    row = _row()
    if result is not None and result.has_results:
        if row.button("Show the results", icon=":material/insights:", on_click=_show_user_store, key=f"results-{run_id}"):
            st.switch_page(page(view(method).home_url).script)
    else:
        row.caption("No results to show: nothing of this run could be scored.", width="content")
    row.page_link(page("samples").script, label="Its samples", icon=":material/list_alt:",
                  query_params={"store": "user", "s_run": run_id})
    row.button("Dismiss", icon=":material/close:", key=f"dismiss-{run_id}", on_click=_dismiss, args=(run_id,))


def _open_compare(models: list[str]) -> None:
    """Compare's two sides set to the pair's models in the user's store (the sidebar shows that store, all models)."""
    _show_user_store()
    for key in ("models",):
        st.session_state.pop(key, None)
        st.session_state.get("_url_keep", {}).pop(key, None)
    st.session_state["a"], st.session_state["b"] = (f"user::{m}" for m in models)


def _announce(ended: list[str], outcomes: dict[str, Outcome]) -> None:
    """A toast for each run that just ended, and the browser tab's title saying how the newest ended."""
    for run_id in ended:
        result = outcomes.get(run_id)
        if result is not None:
            st.toast(f"Run {run_id}: {result.title}", icon=LEVEL[result.level][1])
    titled = titled_run(list(outcomes), st.query_params.get_all("run_job"))  # the run in the URL, not another
    if titled is not None:
        told = outcomes[titled]
        st.set_page_config(page_title=f"{LEVEL[told.level][1]} {told.title} · RoleScope")


shown = _shown_runs()
stored = data.runs(user_ref())
stored = stored.set_index("run_id") if len(stored) else stored
live = [j for j in (jobs.get(r) for r in shown) if j is not None]
known = {j.run_id for j in live}
earlier = [r for r in shown if r not in known and len(stored) and r in stored.index]
outcomes: dict[str, Outcome] = {}
if live or earlier:
    running = [j for j in live if j.running]
    st.subheader("Current runs" if len(live) + len(earlier) > 1 else "Current run" if running else "Last run")
    if running:
        snap = running[0].tracker.snapshot()
        st.set_page_config(page_title=f"{progress_title(snap.done, snap.total)} · Run · RoleScope")
for run_id in earlier:
    record = stored.loc[run_id]
    with st.container(border=True):
        outcomes[run_id] = _finished_panel(run_id, str(record["status"]),
                                           record["error"] if isinstance(record.get("error"), str) and record["error"]
                                           else None, None, None)
        _run_links(run_id, str(record["method"]), outcomes[run_id])
for job in live:

    @st.fragment(run_every=1.0 if job.running else None)
    def _live(job: RunJob = job) -> None:
        progress_panel(job)

    with st.container(border=True):  # a fragment's identity is its container's place: one container per run
        _live()
        if not job.running:
            method_of = stored["method"].get(job.run_id) if len(stored) else None
            outcomes[job.run_id] = data.run_outcome(user_ref(), job.run_id, job.status, job.error)
            _run_links(job.run_id, method_of, outcomes[job.run_id])
_announce(st.session_state.pop("_jobs_ended", []), outcomes)
finished = [r for r in shown if len(stored) and r in stored.index and (jobs.get(r) is None or not jobs.get(r).running)]
pair = st.session_state.get("run_jobs") or st.query_params.get_all("run_job")  # an A/B pair: two runs, two models
pair_models = [str(stored.loc[r, "model"]) for r in pair if r in finished]
if len(pair) == 2 and len(set(pair_models)) == 2:
    if st.button(f"Compare {pair_models[0]} and {pair_models[1]}", type="primary", icon=":material/compare_arrows:",
                 key="pair_compare", on_click=_open_compare, args=(pair_models,)):
        st.switch_page(page("compare").script)


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


@st.cache_data(show_spinner="Checking what this plan can show…", max_entries=16)
def _shows(method: str, plan_json: str, n_runs: int) -> Any:
    shows = methods.get(method).can_show(json.loads(plan_json), n_runs)
    return dataclasses.replace(shows, probes={})  # the cache pickles what it keeps: the lines, not the probes


def _what_it_will_show(method: str, plan: dict, n_runs: int = 1) -> None:
    """Before starting: which of the method's analyses this plan (the first of ``n_runs`` per model) can produce
    (``Method.can_show``), and a warning when none."""
    shows = _shows(method, json.dumps(plan, sort_keys=True), n_runs)
    st.markdown(f"**This run can show** ({shows.design}): " + "; ".join(
        f"{name} :green[ok]" if ok else f"{name} :orange[cannot show] ({why})" for name, ok, why in shows.lines))
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


def _estimate(method: str, plan: Any, plan_dict: dict, spec: ModelSpec, concurrency: int = 1) -> RunEstimate:
    """The plan's calls; tokens and time measured on this model's newest earlier run of the method (your store, else the
    demo's), else modelled: the embedded model's time at this machine's calibrated speed, a remote model's from its past
    calls' latency. A composite plan (``Method.parts``): each part estimated on its own method, summed."""
    m = methods.get(method)
    if m.parts is not None:
        from analysis.runs.estimate import combine

        return combine([(name, _estimate(name, part, part, spec, concurrency)) for name, part in m.parts(plan_dict)])
    measured = latency = None
    refs = (user_ref(), *([demo_ref()] if demo_ref() is not None else []))
    for ref_ in refs:
        measured = data.throughput(ref_, spec.name, method)
        if measured is not None:
            break
    for ref_ in refs if spec.backend != "embedded" else ():
        latency = data.past_latency(ref_, spec.name)
        if latency is not None:
            break
    from analysis.runs.calibration import kept_speed

    return estimate_run(method, m.tokens(plan_dict), spec, m.n_calls(plan_dict), measured, m.waves(plan_dict),
                        speed=kept_speed() if spec.backend == "embedded" else None, latency=latency,
                        concurrency=concurrency)


def _calibrate_button(spec: ModelSpec | None) -> None:
    """For the embedded model not yet calibrated on this machine: measure its speed (about 20 s, kept)."""
    from analysis.runs.calibration import calibrate, kept_speed

    if spec is None or kept_speed() is not None:
        return
    if st.button("Measure this machine's speed (about 20 s, once)", key="run_calibrate", icon=":material/speed:",
                 help="Six short calls to the embedded model: its per-call overhead, prompt and generation speed here. "
                      "Kept for later estimates; until then the time is at assumed speeds."):
        with st.spinner("Measuring the embedded model's speed on this machine…"):
            calibrate(spec)
        st.rerun()


def _cost_text(cost: float | None, spec: ModelSpec, est: RunEstimate) -> str:
    if spec.backend == "embedded":
        return "free"
    return f"${cost:.4f}" if cost is not None else "no price set" if est.tokens_in is not None else "—"


def _show_estimate(est: RunEstimate, spec: ModelSpec, label: str = "", via: str = "live") -> None:
    row = _row()
    row.metric(f"LLM calls{label}", f"{est.n_calls:,}", width="content",
               help="An upper bound where a step's output sets the next step's size (e.g. generated "
               "environments and questions may come out fewer)")
    row.metric("Tokens in / out (est.)", "—" if est.tokens_in is None else f"{est.tokens_in:,} / {est.tokens_out:,}",
               width="content", help=None if est.tokens_in is not None else "Prompts of this method depend on replies "
               "not yet made: known after a first run of this model")
    if via == "batch":
        row.metric("Cost via batch (est.)", _cost_text(est.batch_cost, spec, est), width="content",
                   help=f"Live: {_cost_text(est.cost, spec, est)}. Batch price = {spec.batch_price_factor:g} × the "
                        "live price (models.toml: batch_price_factor)")
        row.metric("Batches (waves)", "—" if est.waves is None else f"{est.waves:,}", width="content",
                   help="Batches one after another: a step that needs the previous step's replies waits for its "
                        "batch to end (each can take up to the provider's 24 h window). A wave over the model's "
                        "batch limits (models.toml: batch_max_requests, batch_max_bytes, batch_max_enqueued_tokens) "
                        "goes as several batch files")
    else:
        row.metric("Cost (est.)", _cost_text(est.cost, spec, est), width="content",
                   help=None if est.batch_cost is None else f"Through the provider's batch API: "
                   f"{_cost_text(est.batch_cost, spec, est)} in {est.waves or '?'} waves")
        row.metric("Time (est.)", "—" if est.seconds is None else _eta(est.seconds), width="content",
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
                help="The same plan on two models at once; when both have finished, a button opens Compare on the pair."):
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
        build = view(method).run_form()
        plans = [(s, p, k) for s, _, k in sides for p in _as_list(build(s))] if build is not None else []
    except RoleScopeError as exc:
        st.error(ui.plain(exc))
        plans = []
concurrency = state.number_input("Concurrent requests", 1, 256, 2 if spec is not None and spec.backend == "embedded" else 8,
                                 key="run_concurrency", help="Requests in flight at once, per model (the embedded model "
                                 "serves one at a time).")
VIAS = {"live": "Live calls", "batch": "Provider batch API"}
batchable = bool(sides) and all(s.backend != "embedded" for s, _, _ in sides)
via = state.segmented("Send", list(VIAS), key="run_via", format_func=VIAS.get, disabled=not batchable,
                      help="Provider batch API (/v1/files + /v1/batches: OpenAI and compatible services): about half "
                           "the price and higher rate limits, but each wave of calls takes up to the provider's 24 h "
                           "window. The embedded model answers live only. To run a plan on your own GPUs (vllm "
                           "run_batch, Ray), use the CLI: python -m analysis export-requests (docs/scale.md).")
via = via if batchable and via in VIAS else "live"

if plans:
    dumps = [p if isinstance(p, dict) else p.model_dump() for _, p, _ in plans]
    _what_it_will_show(method, dumps[0], len(plans) // len(sides))
    per_model: dict[str, list[dict]] = {}
    for (spec_, _, _), dump in zip(plans, dumps):
        per_model.setdefault(spec_.name, []).append(dump)
    for (spec_, plan_, _), dump in zip(plans, dumps):
        _show_estimate(_estimate(method, plan_, dump, spec_, int(concurrency)), spec_,
                       _plan_label(spec_, dump, per_model[spec_.name], len(sides)), via)
    _calibrate_button(next((s for s, _, _ in plans if s.backend == "embedded"), None))
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
                                          confirmed=confirmed, via=via).run_id)
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
            open_batch = data.open_batch(user_ref(), run_id)  # collected, never paid twice
            st.session_state["run_job"] = jobs.start(ref.path, run_id, api_key=rkey, concurrency=int(concurrency),
                                                     confirmed=rconfirmed,
                                                     via="batch" if open_batch or via == "batch" else "live").run_id
        except RuntimeError as exc:
            st.error(ui.plain(exc))
        else:
            st.rerun()
