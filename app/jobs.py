"""Runs started from the app: one background worker thread per run, polled from the page.

The worker opens its own connection to the user store and calls ``analysis.methods.execute_run``
with a ``ProgressTracker`` and a cancel ``threading.Event``. It never calls Streamlit: the Run page
reads ``job.tracker.snapshot()`` from a fragment that reruns every second. The registry is
process-wide (``st.cache_resource``), so a run keeps going, and stays visible, when the user
switches pages or reloads. The API key is passed to the worker as an argument and is not kept
on the job.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import streamlit as st

from analysis.llm.keys import redact
from analysis.runs.progress import ProgressTracker
from analysis.methods import execute_run
from analysis.runs.runner import RunSummary
from analysis.runs.store import Store


@dataclass
class RunJob:
    """One run executing (or executed) in a worker thread of this server process."""

    run_id: str
    store_path: str
    tracker: ProgressTracker = field(default_factory=ProgressTracker)
    cancel: threading.Event = field(default_factory=threading.Event)
    started_at: float = field(default_factory=time.time)
    thread: threading.Thread | None = None
    summary: RunSummary | None = None
    error: str | None = None
    finished_at: float | None = None

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    @property
    def status(self) -> str:
        if self.running:
            return "cancelling" if self.cancel.is_set() else "running"
        if self.error:
            return "failed"
        return self.summary.status if self.summary else self.tracker.snapshot().status


def _work(job: RunJob, api_key: str | None, concurrency: int, confirmed: tuple[str, ...], via: str) -> None:
    try:
        with Store(job.store_path) as store:
            job.summary = execute_run(store, job.run_id, api_key=api_key, concurrency=concurrency, progress=job.tracker,
                                      cancel=job.cancel, confirmed=confirmed, via=via)
    except Exception as exc:  # noqa: BLE001 - reported on the page, never raised into Streamlit
        job.error = redact(str(exc) if type(exc).__name__ in ("RunFailure", "InputError") else f"{type(exc).__name__}: {exc}")
    finally:
        job.finished_at = time.time()


class JobRegistry:
    """Jobs by run id (process-wide)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, RunJob] = {}
        self._dismissed: set[str] = set()

    def start(self, store_path: str, run_id: str, *, api_key: str | None = None, concurrency: int = 4,
              confirmed: tuple[str, ...] = (), via: str = "live") -> RunJob:
        """Execute (or resume) ``run_id`` in a new worker thread; refuses a run that is already executing here.
        ``confirmed``: the endpoints the user ticked, in this session, to receive their key; ``via``: live calls or
        the provider's batch API (``analysis.runs.runner.execute_run_async``)."""
        with self._lock:
            current = self._jobs.get(run_id)
            if current is not None and current.running:
                raise RuntimeError(f"run {run_id} is already executing")
            job = RunJob(run_id, store_path)
            self._dismissed.discard(run_id)
            job.thread = threading.Thread(target=_work, args=(job, api_key, concurrency, confirmed, via), name=f"run-{run_id}", daemon=True)
            self._jobs[run_id] = job
            job.thread.start()
            return job

    def get(self, run_id: str | None) -> RunJob | None:
        with self._lock:
            return self._jobs.get(run_id) if run_id else None

    def undismissed(self, store_path: str) -> list[str]:
        """The runs of ``store_path`` executed (or executing) here that nobody dismissed, oldest first: every tab shows
        them until then."""
        with self._lock:
            return [r for r, j in sorted(self._jobs.items(), key=lambda kv: kv[1].started_at)
                    if r not in self._dismissed and j.store_path == store_path]

    def dismiss(self, run_id: str) -> None:
        with self._lock:
            self._dismissed.add(run_id)

    def active(self) -> list[RunJob]:
        with self._lock:
            return [j for j in self._jobs.values() if j.running]


@st.cache_resource(show_spinner=False)
def registry() -> JobRegistry:
    return JobRegistry()
