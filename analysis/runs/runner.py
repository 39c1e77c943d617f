"""Run lifecycle: create a run from a plan, execute it, resume it, cancel it.

The caller hands over the method (a ``Runnable``: its plan's call count and ``build_session(plan_dict, executor,
store, run_id, spec)`` returning an object with ``async run()``); ``analysis.methods`` looks it up by name.
``execute_run`` re-executes the stored plan; the call cache makes that pay only for the calls not stored yet, which
is what ``resume`` means.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, get_args

from analysis.errors import InputError, RunFailure
from analysis.llm.client import CallError, LLMClient, reply_from, request_body
from analysis.llm.keys import redact, resolve_api_key
from analysis.llm.specs import ModelSpec
from analysis.runs.executor import Executor, RetryPolicy
from analysis.runs.offline_batch import ExportWave, ImportRefused, ImportReplies
from analysis.runs.provider_batch import BatchPolicy, ProviderBatches
from analysis.runs.progress import ProgressTracker
from analysis.runs.results_index import ResultsIndex
from analysis.runs.store import Store, claim_owner
from analysis.runs.waves import Handler, WaveCollector, WaveStop


class Session(Protocol):
    async def run(self) -> None: ...


class Runnable(Protocol):
    """What the runner needs of a method (``analysis.methods.base.Method`` is one); its caller hands it over."""

    name: str

    def n_calls(self, plan: dict[str, Any]) -> int: ...

    def build_session(self, plan: dict[str, Any], executor: Executor, store: Store, run_id: str,
                      spec: ModelSpec) -> Session: ...


def specs_in(plan: Any) -> list[ModelSpec]:
    """Every model spec stored inside a plan (a PersonaGym evaluator or generator, ...): the dicts with a spec's
    fields, wherever they are."""
    found: list[ModelSpec] = []
    if isinstance(plan, dict):
        if {"backend", "model", "base_url", "api_key_env"} <= plan.keys() and plan.get("backend") != "imported":
            try:
                found.append(ModelSpec.model_validate(plan))
            except ValueError as exc:
                raise InputError(f"a model spec stored in the plan is invalid: {str(exc).splitlines()[0]}") from None
        else:
            for value in plan.values():
                found.extend(specs_in(value))
    elif isinstance(plan, list):
        for value in plan:
            found.extend(specs_in(value))
    return found


def new_run_id(method: str) -> str:
    return f"{method}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


def create_run(store: Store, method: Runnable, spec: ModelSpec, plan: dict[str, Any], run_id: str | None = None) -> str:
    """Store a new run of ``plan``; a plan that makes no call (no personas, no items, limits of 0) is refused."""
    n_calls = method.n_calls(plan)
    if n_calls < 1:
        raise InputError(f"{method.name} plan makes no calls (no personas, items, statements or subjects left); nothing run")
    run_id = run_id or new_run_id(method.name)
    store.create_run(run_id, method.name, spec.name, spec.public_dict(), plan)
    store.set_run_status(run_id, "created", n_units=n_calls)
    return run_id


@dataclass(frozen=True)
class RunSummary:
    run_id: str
    status: str
    total: int
    done: int
    cached: int
    failed: int
    tokens_in: int
    tokens_out: int
    seconds: float
    skipped: int = 0
    #: ``--via export``/``import``: the requests of the wave the run awaits next (written to the file when one was
    #: named), and which models they are for; 0 when the plan is done.
    awaiting: int = 0
    awaiting_note: str = ""
    #: ``--via batch``: provider batches this execution created, and open ones it collected.
    batches_created: int = 0
    batches_adopted: int = 0

    @property
    def answered(self) -> int:
        """Calls that have a reply (made now or found in the cache)."""
        return self.done - self.failed - self.skipped


async def execute_run_async(
    store: Store,
    run_id: str,
    *,
    method: Runnable,
    api_key: str | None = None,
    concurrency: int = 8,
    retry: RetryPolicy | None = None,
    progress: ProgressTracker | None = None,
    cancel: threading.Event | None = None,
    confirmed: tuple[str, ...] = (),
    offline: bool = False,
    via: Via = "live",
    out: Path | None = None,
    replies: ImportedReplies | None = None,
    batch_policy: BatchPolicy | None = None,
    settle_s: float | None = None,
) -> RunSummary:
    """Execute (or resume) a stored run. Cancellation (event or task cancel) marks it 'cancelled'. ``offline``: the
    replies come from the call cache only; a request not in it fails and is never sent (``reread``).

    ``via`` says how requests not in the cache are answered: ``live`` (one HTTP request each), ``batch`` (a wave at a
    time through the provider's batch API: ``analysis.runs.provider_batch``), ``export`` (the run stops at the first
    wave it awaits, written to ``out`` when given: status ``awaiting_replies``) or ``import`` (that wave answered from
    ``replies``, then as ``export``): ``analysis.runs.offline_batch``. Export and import send nothing and need no key.

    Its specs are read from the store, so a key goes to an endpoint only when the user configured it or named it in
    ``confirmed`` (``analysis.llm.keys``); every spec of the plan (evaluators, generators) is checked before a call."""
    run = store.get_run(run_id)
    if run["status"] == "imported":
        raise InputError(f"run {run_id} was imported from {run['plan'].get('path', 'a file')}; there is nothing to resume")
    if method.name != run["method"]:
        raise InputError(f"run {run_id} is a {run['method']} run, not {method.name}")
    spec = ModelSpec.model_validate(run["model_spec"])

    def same_endpoint(other: ModelSpec) -> bool:
        return (other.api_key_env, other.base_url) == (spec.api_key_env, spec.base_url)

    sends = not offline and via in ("live", "batch")
    prefix_reuse = _prefix_reuse(run["plan"])
    if prefix_reuse:
        # one call at a time: llama.cpp's numbers for a prompt depend on the prefix its single slot held before (a
        # logprob moved 0.03 with the request before it), so two calls in flight, arriving in either order, made two
        # builds of one plan differ; the slot answers one call at a time anyway
        concurrency = 1
    if via != "live" and prefix_reuse:
        raise InputError(f"run {run_id}: its plan reuses prompt prefixes (embedded server), which asks its units one "
                         f"after another; --via {via} needs them side by side: run it without --prefix-reuse")
    if via == "live" and not offline and (open_ := store.open_batch_ids(run_id)):
        raise InputError(f"run {run_id} has {len(open_)} batch(es) still open at the provider ({open_[0]}); resume "
                         "with --via batch to collect them (a live resume would pay for their requests again)")
    for other in [spec, *specs_in(run["plan"])] if sends else []:  # refused before the run is touched
        resolve_api_key(other, api_key if same_endpoint(other) else None, confirmed=confirmed)
    progress = progress or ProgressTracker()
    progress.update(total=method.n_calls(run["plan"]), status="running")
    started = time.time()
    store.set_run_status(run_id, "running")
    client = LLMClient(spec, api_key=api_key, confirmed=confirmed) if sends else CacheOnlyClient(spec)

    def other_client(other: ModelSpec) -> LLMClient:  # e.g. evaluators: the caller's key only for the same endpoint
        if not sends:
            return CacheOnlyClient(other)  # type: ignore[return-value]
        return LLMClient(other, api_key=api_key if same_endpoint(other) else None, confirmed=confirmed)

    handler = _wave_handler(via, store, run_id, progress, out, replies, batch_policy)
    waves = None if handler is None else WaveCollector(handler, **({"settle_s": settle_s} if settle_s else {}))
    executor = Executor(store, run_id, client, concurrency=concurrency, retry=retry, progress=progress,
                        client_factory=other_client, waves=waves)
    session = method.build_session(run["plan"], executor, store, run_id, spec)
    owner = claim_owner(secrets.token_hex(4))
    store.own_run(run_id, owner, RUN_LEASE_S)
    work = asyncio.ensure_future(session.run())
    watcher = asyncio.ensure_future(_watch_cancel(cancel, work)) if cancel else None
    renewer = asyncio.ensure_future(_renew_ownership(store, run_id, owner))
    status, error = "completed", None
    stop: WaveStop | None = None
    try:
        await work
    except asyncio.CancelledError:
        status = "cancelled"
    except WaveStop as exc:
        stop, status = exc, "awaiting_replies"
    except Exception as exc:
        status, error = "failed", redact(f"{type(exc).__name__}: {exc}")
    finally:
        if watcher:
            watcher.cancel()
        renewer.cancel()
        store.release_run(run_id, owner)
        if waves is not None:
            await waves.aclose()
        await executor.close_others()
        await client.aclose()
    snap = progress.snapshot()
    if isinstance(stop, ImportRefused):  # nothing of the file was stored: the run is as it was
        store.set_run_status(run_id, run["status"] if run["status"] != "running" else "cancelled")
        raise InputError(stop.message)
    if status == "completed" and snap.failed:
        status = "completed_with_failures"
    store.set_run_status(run_id, status, error=error)
    progress.update(status=status)
    if status == "failed":
        raise RunFailure(f"run {run_id} failed: {error}")
    made = handler if isinstance(handler, ProviderBatches) else None
    return RunSummary(run_id, status, snap.total, snap.done, snap.cached, snap.failed, snap.tokens_in, snap.tokens_out,
                      time.time() - started, snap.skipped, awaiting=stop.n_requests if stop else 0,
                      awaiting_note=stop.note if stop else "", batches_created=len(made.created) if made else 0,
                      batches_adopted=len(made.adopted) if made else 0)


Via = Literal["live", "batch", "export", "import"]
VIAS: tuple[str, ...] = get_args(Via)


@dataclass(frozen=True)
class ImportedReplies:
    """A results file checked line by line and indexed (``analysis.runs.results_index``; the file stays open while
    the run uses it) and its name."""

    results: ResultsIndex
    where: str


def _wave_handler(via: str, store: Store, run_id: str, progress: ProgressTracker, out: Path | None,
                  replies: ImportedReplies | None, policy: BatchPolicy | None) -> Handler | None:
    if via == "live":
        return None
    if via == "batch":
        return ProviderBatches(store, run_id, progress, policy)
    if via == "export":
        return ExportWave(out)
    if via == "import":
        if replies is None:
            raise InputError("--via import needs the replies file")
        return ImportReplies(replies.results, replies.where, ExportWave(out), store)
    raise InputError(f"--via {via}: one of {', '.join(VIAS)}")


def plan_parts(plan: Any) -> Iterator[dict[str, Any]]:
    """Every object of a plan, the plan first: a composite plan nests its parts' plans, whose options (prefix reuse,
    answer mode) hold for the part only."""
    if isinstance(plan, dict):
        yield plan
        values: Any = plan.values()
    elif isinstance(plan, list):
        values = plan
    else:
        return
    for value in values:
        if isinstance(value, (dict, list)):
            yield from plan_parts(value)


def _prefix_reuse(plan: Any) -> bool:
    """Whether a plan (or a part of a composite one) asks for prefix reuse."""
    return any(part.get("prefix_reuse") for part in plan_parts(plan))


def logprobs_asked(plan: Any) -> int:
    """The most top logprobs a plan's parts that answer by logprobs (``answer_mode`` logprob) ask for; 0 when none
    does. Why: a server refusing that many refuses every such call, which is known before the run is created."""
    asked = [part.get("top_logprobs") for part in plan_parts(plan) if part.get("answer_mode") == "logprob"]
    return max((n for n in asked if isinstance(n, int) and not isinstance(n, bool)), default=0)


class CacheOnlyClient:
    """A client that sends nothing: every request not answered from the call cache fails (``offline`` runs)."""

    def __init__(self, spec: ModelSpec):
        self.spec = spec

    async def complete(self, request: Any) -> Any:
        raise CallError(NOT_CACHED, retryable=False)

    def request_body(self, request: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        return request_body(self.spec, request)

    def reply_from(self, doc: Any, params: dict[str, Any], latency: float = 0.0) -> Any:
        return reply_from(self.spec, doc, params, latency)

    async def aclose(self) -> None:
        return None


NOT_CACHED = "not in the call cache (sent nothing: offline)"

#: How long a run's ownership lasts without renewal (renewed every third of it while the run executes).
RUN_LEASE_S = 300.0


async def _renew_ownership(store: Store, run_id: str, owner: str) -> None:
    while True:
        await asyncio.sleep(RUN_LEASE_S / 3)
        store.own_run(run_id, owner, RUN_LEASE_S)


async def _watch_cancel(cancel: threading.Event, work: asyncio.Future) -> None:
    while not cancel.is_set():
        await asyncio.sleep(0.1)
    work.cancel()


def execute_run(store: Store, run_id: str, **kwargs: Any) -> RunSummary:
    """Synchronous wrapper (CLI, worker threads): runs its own event loop."""
    return asyncio.run(execute_run_async(store, run_id, **kwargs))
