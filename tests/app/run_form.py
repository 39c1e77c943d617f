"""Starting a run from the Run page in AppTest and reading the plan it stored."""

from __future__ import annotations

import json
import time

from analysis.runs.store import Store

#: URL parameters choosing a model no one serves (nothing listens on port 9): a started run's worker loads no model.
OFFLINE = {"run_model": "other", "run_spec": "m@http://127.0.0.1:9/v1"}


def started_plan(at, tmp_path) -> dict:
    """Start the planned run (its worker is cancelled at once and its panel dismissed: only the stored plan is read)."""
    from app.jobs import registry

    at.button(key="run_start").click().run()
    run_id = at.session_state["run_job"]
    job = registry().get(run_id)
    job.cancel.set()
    deadline = time.monotonic() + 120
    while job.running and time.monotonic() < deadline:  # the next form's Start waits for no running job
        time.sleep(0.05)
    registry().dismiss(run_id)
    with Store(tmp_path / "user.db", read_only=True) as store:
        return json.loads(store.frame("SELECT plan FROM runs WHERE run_id = ?", [run_id])["plan"].iloc[0])
