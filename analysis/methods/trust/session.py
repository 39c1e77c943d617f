"""A stored trust plan as a runnable session: the population game or the repeated individual game, by its level."""

from __future__ import annotations

from typing import Any

from analysis.llm.specs import ModelSpec
from analysis.methods.trust.individual import IndividualSession
from analysis.methods.trust.plan import TrustPlan
from analysis.methods.trust.population import PopulationSession
from analysis.runs.executor import Executor
from analysis.runs.store import Store


class TrustSession:
    """Runs a stored trust plan at its level."""

    def __init__(self, plan: TrustPlan, executor: Executor, store: Store, run_id: str, spec: ModelSpec):
        cls = PopulationSession if plan.level == "population" else IndividualSession
        self.inner = cls(plan, executor, store, run_id, spec)

    async def run(self) -> None:
        await self.inner.run()


def n_calls(plan: dict[str, Any]) -> int:
    """``Method.n_calls``: the calls a stored plan makes."""
    return TrustPlan.model_validate(plan).n_calls()


def build_session(plan: dict[str, Any], executor: Executor, store: Store, run_id: str, spec: ModelSpec) -> TrustSession:
    """``Method.session``: the session of a stored plan."""
    return TrustSession(TrustPlan.model_validate(plan), executor, store, run_id, spec)


def tokens(plan: dict[str, Any]) -> str:
    """``Method.tokens``: not modelled (a game's prompts hold the replies before them)."""
    return "not modelled: its prompts hold replies not yet made; measured after a first run"
