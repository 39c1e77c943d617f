"""Independent computations on forked worker processes (the chance simulations, one report per context or model).

``run_parallel(jobs, workers)`` returns ``[f(*args) for f, *args in jobs]`` in order. Outside a ``shared_pool`` the
first job runs in this process, so that whatever it imports lazily (scikit-learn, the CFA) is loaded once, and the
others on forked workers (no re-import: a worker starts with everything the parent loaded). Inside a
``shared_pool`` every call (and ``submit``) uses the same workers, forked once: work submitted early (a report's
observed metrics) runs while later work (its chance draws) is planned. It runs serially when forking is unsafe or
useless: one job, one worker, a process running other threads (the dashboard's server: a forked copy could inherit
a lock another thread holds), or inside a worker already (no pool of pools).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

_IN_WORKER = False
_POOL: ProcessPoolExecutor | None = None


def default_workers() -> int:
    """Processes to use: ``ROLESCOPE_WORKERS`` if set, else the CPUs this process may run on."""
    env = os.environ.get("ROLESCOPE_WORKERS")
    if env:
        return max(1, int(env))
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def die_with_parent(parent: int) -> None:
    """Ask Linux to kill this process when its parent dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), and exit at once if
    the parent ``parent`` is already gone (it died before the request): a ``metrics`` killed with SIGKILL leaves no
    worker running on. Elsewhere (no prctl) nothing is asked."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(1)


def _worker_start(preload: Sequence[str] = (), parent: int | None = None) -> None:
    """In each worker: dies with its parent (``die_with_parent``), no pool of pools, one BLAS thread (the workers
    already fill the CPUs; BLAS threads on top of them only contend), and the modules its jobs will import
    (``preload``) imported at once."""
    global _IN_WORKER
    if parent is not None:
        die_with_parent(parent)
    _IN_WORKER = True
    import importlib

    from threadpoolctl import threadpool_limits  # a dependency of scikit-learn

    threadpool_limits(1)
    for name in preload:
        importlib.import_module(name)


def _call(job: tuple[Any, ...]) -> Any:
    return job[0](*job[1:])


def _can_fork(workers: int) -> bool:
    return workers > 1 and not _IN_WORKER and threading.active_count() == 1


def _new_pool(workers: int, preload: Sequence[str] = ()) -> ProcessPoolExecutor:
    import multiprocessing

    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=_worker_start,
                               initargs=(tuple(preload), os.getpid()))


@contextmanager
def shared_pool(workers: int | None = None, preload: Sequence[str] = ()) -> Iterator[None]:
    """Fork ``workers`` (default ``default_workers()``) once for every ``run_parallel`` and ``submit`` inside; a
    no-op inside another shared pool or where forking is unsafe (see the module docstring). The workers import the
    modules in ``preload`` as they start, while this process goes on: they are not loaded here for nothing."""
    global _POOL
    workers = default_workers() if workers is None else workers
    if _POOL is not None or not _can_fork(workers):
        yield
        return
    with _new_pool(workers, preload) as pool:
        _POOL = pool
        try:
            yield
        finally:
            _POOL = None


def submit(jobs: Sequence[tuple[Any, ...]]) -> list[Callable[[], Any]]:
    """Start ``jobs`` on the shared pool and return, per job, a call that waits for its result; without a shared
    pool the calls compute the jobs themselves, one by one, when called."""
    if _POOL is not None:
        futures: list[Future[Any]] = [_POOL.submit(_call, job) for job in jobs]
        return [future.result for future in futures]
    return [lambda job=job: _call(job) for job in jobs]


def run_parallel(jobs: Sequence[tuple[Any, ...]], workers: int | None = None) -> list[Any]:
    """``[f(*args) for f, *args in jobs]``, on the shared pool, or on up to ``workers`` forked processes."""
    if _POOL is not None and workers != 1 and len(jobs) > 1:
        return [wait() for wait in submit(jobs)]
    workers = min(default_workers() if workers is None else workers, len(jobs) - 1)
    if not _can_fork(workers):
        return [_call(job) for job in jobs]
    first = _call(jobs[0])  # in this process: what it imports lazily, every worker then inherits
    with _new_pool(workers) as pool:
        return [first, *pool.map(_call, jobs[1:])]
