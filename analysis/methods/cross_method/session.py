"""Running a campaign: each method's part as its own run (``<campaign run id>-<method>``), one after another, on one
executor and one progress bar.

A part's run is a normal run of its method (its answers in the method's tables, its plan in ``runs``), so every page
of that method shows it; the table ``cross_method_parts`` records which runs make a campaign. Every call is recorded
under the campaign's run id (units prefixed by the method), so the campaign's counts are its calls; a part's replies
are linked to their calls through the method's own rows. Resuming the campaign resumes every part: calls already
made come from the cache. A part that fails is marked failed, the next parts still run, and the campaign then fails
with that part's error.
"""

from __future__ import annotations

import asyncio
from typing import Any

from analysis.llm.keys import redact
from analysis.llm.specs import ModelSpec
from analysis.methods.cross_method import row_rules
from analysis.methods.cross_method.plan import CampaignPlan
from analysis.runs.executor import CallOutcome, Executor
from analysis.runs.store import Store, Table, register_table
from analysis.runs.waves import WaveStop

PARTS = register_table(Table(
    "cross_method_parts",
    (("run_id", "TEXT"), ("model", "TEXT"), ("method", "TEXT"), ("part_run_id", "TEXT"), ("seq", "INTEGER")),
    ("run_id", "method"),
    row_rules.part_rules,
))


def part_run_id(run_id: str, method: str) -> str:
    return f"{run_id}-{method}"


class PartExecutor:
    """The campaign's executor as one part's sessions see it: the same client, store, progress and concurrency; the
    calls recorded under the campaign run with the unit prefixed by the method (``values/3/no_conv/12``)."""

    def __init__(self, inner: Executor, prefix: str):
        self._inner, self._prefix = inner, prefix

    async def call(self, unit: str, request: Any) -> CallOutcome:
        return await self._inner.call(f"{self._prefix}/{unit}", request)

    def for_model(self, spec: ModelSpec) -> PartExecutor:
        return PartExecutor(self._inner.for_model(spec), self._prefix)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class CampaignSession:
    def __init__(self, plan: CampaignPlan, executor: Executor, store: Store, run_id: str, spec: ModelSpec):
        self.plan, self.ex, self.store, self.run_id, self.spec = plan, executor, store, run_id, spec

    def _part_run(self, seq: int, method: Any, plan: dict[str, Any], fresh: bool) -> str:
        """The part's run, created when missing. A part run left by an earlier campaign of the same id (one replaced
        before it made a call, as ``demo build`` does after a change) is replaced: its rows are not this plan's."""
        child = part_run_id(self.run_id, method.name)
        if fresh and self.store.query_one("SELECT 1 AS x FROM runs WHERE run_id=?", (child,)) is not None:
            self.store.delete_run(child)
        if self.store.query_one("SELECT 1 AS x FROM runs WHERE run_id=?", (child,)) is None:
            self.store.create_run(child, method.name, self.spec.name, self.spec.public_dict(), plan)
            self.store.set_run_status(child, "created", n_units=method.n_calls(plan))
        self.store.upsert(PARTS.name, [{"run_id": self.run_id, "model": self.spec.name, "method": method.name,
                                        "part_run_id": child, "seq": seq}])
        return child

    async def run(self) -> None:
        from analysis import methods

        errors: list[str] = []
        made = self.store.query_one("SELECT COUNT(*) AS n FROM run_calls WHERE run_id=?", (self.run_id,))
        fresh = not (made or {}).get("n")
        for seq, part in enumerate(self.plan.parts):
            method = methods.get(part.method)
            child = self._part_run(seq, method, part.plan, fresh)
            self.store.set_run_status(child, "running")
            failed_before = self.ex.progress.snapshot().failed
            session = method.build_session(part.plan, PartExecutor(self.ex, part.method), self.store, child, self.spec)
            try:
                await session.run()
            except asyncio.CancelledError:
                self.store.set_run_status(child, "cancelled")
                raise
            except WaveStop:  # its requests were exported: the campaign waits with it
                self.store.set_run_status(child, "awaiting_replies")
                raise
            except Exception as exc:  # noqa: BLE001 - the next parts still run; the campaign fails at the end
                message = redact(f"{type(exc).__name__}: {exc}")
                self.store.set_run_status(child, "failed", error=message)
                errors.append(f"{part.method}: {message}")
                continue
            failed = self.ex.progress.snapshot().failed > failed_before
            self.store.set_run_status(child, "completed_with_failures" if failed else "completed")
        if errors:
            raise RuntimeError("; ".join(errors))


def build_session(plan: dict[str, Any], executor: Executor, store: Store, run_id: str, spec: ModelSpec) -> CampaignSession:
    """``Method.session``: the session of a stored campaign plan."""
    return CampaignSession(CampaignPlan.model_validate(plan), executor, store, run_id, spec)
