"""A stored run's outcome through its method (``analysis.runs.outcome`` tells any counts; this reads the run's plan
and samples through the registry, a layer above ``analysis/runs/``, which never imports a method)."""

from __future__ import annotations

from typing import Any

from analysis import methods
from analysis.runs.outcome import Outcome, not_asked_reasons, outcome, store_counts
from analysis.samples import scorable


def run_outcome(store: Any, run_id: str, status: str | None = None, error: str | None = None) -> Outcome:
    """How a stored run ended, as the CLI and the app both tell it: the plan's calls (``Method.n_calls``), the calls
    the store holds (``store_counts``), what the method's samples hold to score and why calls were not asked, and
    the first stored error. ``status`` / ``error`` default to the run's record."""
    record = store.get_run(run_id)
    method = methods.get(record["method"])
    try:
        planned = method.n_calls(record["plan"])
    except Exception:  # noqa: BLE001 - a plan this version cannot read: its stored calls are what is known
        planned = None
    counts = store_counts(store, run_id, planned)
    frame = method.samples(store, [run_id]) if method.samples is not None else None
    scored, valid = scorable(frame) if frame is not None else (None, None)
    first = store.query_one(  # a failure whose unit was answered later (resume) is no longer the run's error
        "SELECT error FROM call_failures f WHERE run_id=? AND NOT EXISTS (SELECT 1 FROM run_calls r WHERE "
        "r.run_id=f.run_id AND r.unit=f.unit) ORDER BY id LIMIT 1", (run_id,))
    return outcome(status or str(record["status"]), counts, scored, valid, error=error or record.get("error") or None,
                   first_error=str(first["error"]) if first else None,
                   not_asked_why=not_asked_reasons(frame) if counts.not_asked else "")
