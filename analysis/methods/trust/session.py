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


def waves(plan: dict[str, Any]) -> int:
    """``Method.waves``. Population: beliefs and every persona's game at once (1), or, conditioned on beliefs, the
    beliefs first (2). Individual: games side by side, each round after the one before: a forecast per round and its
    play (2 × rounds), or one forecast up front then the rounds (1 + rounds)."""
    p = TrustPlan.model_validate(plan)
    if p.level == "population":
        return 1 if p.conditioning == "none" else 2
    return 2 * p.rounds if p.forecast == "per_round" else 1 + p.rounds


def build_session(plan: dict[str, Any], executor: Executor, store: Store, run_id: str, spec: ModelSpec) -> TrustSession:
    """``Method.session``: the session of a stored plan."""
    return TrustSession(TrustPlan.model_validate(plan), executor, store, run_id, spec)


def tokens(plan: dict[str, Any]) -> str:
    """``Method.tokens``: not modelled (a game's prompts hold the replies before them)."""
    return "not modelled: its prompts hold replies not yet made; measured after a first run"
