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
from dataclasses import dataclass
from typing import Any, Protocol

from analysis.errors import InputError, RunFailure
from analysis.llm.client import CallError, LLMClient
from analysis.llm.keys import redact, resolve_api_key
from analysis.llm.specs import ModelSpec
from analysis.runs.executor import Executor, RetryPolicy
from analysis.runs.progress import ProgressTracker
from analysis.runs.store import Store, claim_owner


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
) -> RunSummary:
    """Execute (or resume) a stored run. Cancellation (event or task cancel) marks it 'cancelled'. ``offline``: the
    replies come from the call cache only; a request not in it fails and is never sent (``reread``).

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

    for other in [] if offline else [spec, *specs_in(run["plan"])]:  # refused before the run is touched
        resolve_api_key(other, api_key if same_endpoint(other) else None, confirmed=confirmed)
    progress = progress or ProgressTracker()
    progress.update(total=method.n_calls(run["plan"]), status="running")
    started = time.time()
    store.set_run_status(run_id, "running")
    client = CacheOnlyClient(spec) if offline else LLMClient(spec, api_key=api_key, confirmed=confirmed)

    def other_client(other: ModelSpec) -> LLMClient:  # e.g. evaluators: the caller's key only for the same endpoint
        if offline:
            return CacheOnlyClient(other)
        return LLMClient(other, api_key=api_key if same_endpoint(other) else None, confirmed=confirmed)

    executor = Executor(store, run_id, client, concurrency=concurrency, retry=retry, progress=progress,
                        client_factory=other_client)
    session = method.build_session(run["plan"], executor, store, run_id, spec)
    owner = claim_owner(secrets.token_hex(4))
    store.own_run(run_id, owner, RUN_LEASE_S)
    work = asyncio.ensure_future(session.run())
    watcher = asyncio.ensure_future(_watch_cancel(cancel, work)) if cancel else None
    renewer = asyncio.ensure_future(_renew_ownership(store, run_id, owner))
    status, error = "completed", None
    try:
        await work
    except asyncio.CancelledError:
        status = "cancelled"
    except Exception as exc:
        status, error = "failed", redact(f"{type(exc).__name__}: {exc}")
    finally:
        if watcher:
            watcher.cancel()
        renewer.cancel()
        store.release_run(run_id, owner)
        await executor.close_others()
        await client.aclose()
    snap = progress.snapshot()
    if status == "completed" and snap.failed:
        status = "completed_with_failures"
    store.set_run_status(run_id, status, error=error)
    progress.update(status=status)
    if status == "failed":
        raise RunFailure(f"run {run_id} failed: {error}")
    return RunSummary(run_id, status, snap.total, snap.done, snap.cached, snap.failed, snap.tokens_in, snap.tokens_out,
                      time.time() - started, snap.skipped)


class CacheOnlyClient:
    """A client that sends nothing: every request not answered from the call cache fails (``offline`` runs)."""

    def __init__(self, spec: ModelSpec):
        self.spec = spec

    async def complete(self, request: Any) -> Any:
        raise CallError(NOT_CACHED, retryable=False)

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
