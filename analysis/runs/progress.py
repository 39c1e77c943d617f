"""Progress of a run as a stream of events, readable from any thread.

The executor (event-loop thread) publishes; the CLI progress bar subscribes with a callback; the
app's fragment polls ``ProgressTracker.snapshot()`` from the Streamlit thread, so no Streamlit call
ever happens in the worker thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class ProgressEvent:
    """Counts so far. ``done`` includes cache hits, failures and ``skipped`` calls (planned calls a failed or invalid
    earlier step made moot: the rest of a conversation or game); ``total`` is the planned calls."""

    total: int
    done: int = 0
    cached: int = 0
    failed: int = 0
    skipped: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    started_at: float = 0.0
    status: str = "running"
    message: str = ""

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the rate of completed (non-cached) calls so far."""
        elapsed = time.time() - self.started_at
        paid = self.done - self.cached
        left = self.total - self.done
        if left <= 0:
            return 0.0
        if paid <= 0 or elapsed <= 0:
            return None
        return left * elapsed / paid


class ProgressTracker:
    """Thread-safe counters plus subscribers called on every change."""

    def __init__(self, total: int = 0):
        self._lock = threading.Lock()
        self._state = ProgressEvent(total=total, started_at=time.time())
        self._listeners: list[Callable[[ProgressEvent], None]] = []

    def subscribe(self, listener: Callable[[ProgressEvent], None]) -> None:
        self._listeners.append(listener)

    def snapshot(self) -> ProgressEvent:
        with self._lock:
            return self._state

    def update(self, **changes: object) -> None:
        """Add to counters (ints/floats) or set ``total``/``status``/``message``."""
        with self._lock:
            fields = {}
            for key, value in changes.items():
                if key in ("total", "status", "message"):
                    fields[key] = value
                else:
                    fields[key] = getattr(self._state, key) + value
            self._state = replace(self._state, **fields)
            state = self._state
        for listener in self._listeners:
            listener(state)
