"""Individual level: per persona and Trustee archetype T_k, forecasts and R rounds of play.

Forecasts (``plan.forecast``): 'per_round' (the paper, Sec. 5.2 and Tables 6–8; the default): before
each round t one call forecasts that round's send from a crafted state summary (round 1: the game
has just started; later: T_k has returned $k after each transfer, rounds remaining), stored on the
round's row with its explanation, then the round is played. 'upfront': one call before play
forecasts every round (one JSON list), stored in ``trust_forecasts``. Play is ReAct
style, one call per round: the prompt holds the rules, the round number and every earlier
action and observation; the reply reasons (THOUGHT) and acts (ACTION: Send $X); the archetype's
return min(k, 3·sent) is the observation fed into the next round. An invalid forecast is stored
invalid and play goes on. A round whose call fails, or whose amount is invalid, ends that game:
its later rounds are stored as "not played: ..." (never guessed) and counted as done, so
``resume`` retries exactly the failed call (the earlier rounds come from the call cache).

Each (persona, archetype) game is its own simulation: its requests carry the archetype as the
sample number, so games never share a cached reply (round 1's prompt is otherwise the same for
every archetype unless ``play_knows_archetype``: nothing has been observed yet).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from analysis.llm.client import ChatRequest
from analysis.llm.specs import ModelSpec
from analysis.runs.executor import Executor, run_units
from analysis.runs.store import Store
from analysis.methods.trust import schemas
from analysis.methods.trust.game import RoundOutcome, play_round
from analysis.methods.trust.parse import extract_amount, parse_forecast, parse_round_forecast, thought_of
from analysis.methods.trust.personas import Persona
from analysis.methods.trust.plan import TrustPlan
from analysis.methods.trust.prompts import forecast_messages, round_forecast_messages, round_messages
from analysis.methods.trust.tables import FORECASTS, ROUNDS


class IndividualSession:
    """Executes an individual-level TrustPlan."""

    def __init__(self, plan: TrustPlan, executor: Executor, store: Store, run_id: str, spec: ModelSpec):
        self.plan, self.ex, self.store, self.run_id, self.spec = plan, executor, store, run_id, spec

    def _base(self, persona: Persona, k: int) -> dict[str, Any]:
        return {"run_id": self.run_id, "model": self.spec.name, "endowment": self.plan.endowment, "persona_id": persona.id,
                "archetype": k}

    async def run(self) -> None:
        await run_units((partial(self.game, p, k) for p in self.plan.personas for k in self.plan.archetypes),
                        one_at_a_time=self.plan.prefix_reuse)

    async def forecast(self, persona: Persona, k: int) -> list[int] | None:
        """The forecast call; stores its row; the sends of rounds 1..R when valid."""
        plan = self.plan
        messages = forecast_messages(persona.description, plan.endowment, plan.rounds, k)
        structured = schemas.schema_param(plan.answer_format, schemas.forecast_upfront, plan.rounds, plan.endowment)
        request = ChatRequest.build(messages, self.plan.request_params("forecast", self.spec.backend) | structured,
                                    sample=k)
        out = await self.ex.call(f"individual/{persona.id}/T{k}/forecast", request)
        row = self._base(persona, k) | {"rounds": plan.rounds, "cache_key": out.cache_key}
        if not out.ok:
            self.store.upsert(FORECASTS.name, [row | {"valid": 0, "reason": f"call failed: {out.error}"}])
            return None
        parsed = parse_forecast(out.reply.text, plan.rounds, plan.endowment, out.reply.finish_reason)
        self.store.upsert(FORECASTS.name, [row | {"raw": out.reply.text, "finish_reason": out.reply.finish_reason,
                                                  "valid": int(parsed.valid), "reason": parsed.reason,
                                                  "sends": parsed.sends, "explanations": parsed.explanations}])
        return parsed.sends

    async def round_forecast(self, persona: Persona, k: int, t: int) -> dict[str, Any]:
        """The per-round forecast call of round ``t``: its columns of the round row (forecast, explanation, validity)."""
        plan = self.plan
        messages = round_forecast_messages(persona.description, plan.endowment, plan.rounds, t, k)
        structured = schemas.schema_param(plan.answer_format, schemas.forecast_round, plan.endowment)
        request = ChatRequest.build(messages, self.plan.request_params("forecast", self.spec.backend) | structured,
                                    sample=k)
        out = await self.ex.call(f"individual/{persona.id}/T{k}/forecast{t}", request)
        if not out.ok:
            return {"forecast": None, "forecast_valid": 0, "forecast_reason": f"call failed: {out.error}",
                    "forecast_cache_key": out.cache_key}
        parsed = parse_round_forecast(out.reply.text, plan.endowment, out.reply.finish_reason)
        return {"forecast": parsed.sends[0] if parsed.valid else None,
                "forecast_explanation": parsed.explanations[0] if parsed.valid else None,
                "forecast_valid": int(parsed.valid), "forecast_reason": parsed.reason, "forecast_raw": out.reply.text,
                "forecast_finish_reason": out.reply.finish_reason, "forecast_cache_key": out.cache_key}

    async def game(self, persona: Persona, k: int) -> None:
        """Forecast(s), then play every round against T_k until the end or the first failed/invalid round."""
        plan = self.plan
        per_round = plan.forecast == "per_round"
        sends = None if per_round else await self.forecast(persona, k)
        history: list[RoundOutcome] = []
        for t in range(1, plan.rounds + 1):
            forecast = (await self.round_forecast(persona, k, t) if per_round
                        else {"forecast": sends[t - 1] if sends else None})
            messages = round_messages(persona.description, plan.endowment, plan.rounds, t, history,
                                      k if plan.play_knows_archetype else None, plan.answer_format)
            structured = schemas.schema_param(plan.answer_format, schemas.round_play, plan.endowment)
            request = ChatRequest.build(messages, self.plan.request_params("round", self.spec.backend) | structured,
                                        sample=k)
            out = await self.ex.call(f"individual/{persona.id}/T{k}/round{t}", request)
            row = self._base(persona, k) | {"round": t, **forecast, "cache_key": out.cache_key}
            if not out.ok:
                self._stop(persona, k, t, row | {"valid": 0, "reason": f"call failed: {out.error}"}, sends, "failed")
                return
            got = extract_amount(out.reply.text, plan.endowment, out.reply.finish_reason)
            row |= {"raw": out.reply.text, "finish_reason": out.reply.finish_reason, "thought": thought_of(out.reply.text),
                    "extraction": got.how}
            if not got.valid:
                self._stop(persona, k, t, row | {"valid": 0, "reason": got.reason}, sends, "had no valid amount")
                return
            outcome = play_round(t, plan.endowment, got.amount, k)
            self.store.upsert(ROUNDS.name, [row | {"valid": 1, "sent": outcome.sent, "received": outcome.received,
                                                   "returned": outcome.returned, "earnings": outcome.earnings}])
            history.append(outcome)

    def _stop(self, persona: Persona, k: int, t: int, row: dict[str, Any], sends: list[int] | None, why: str) -> None:
        rest = range(t + 1, self.plan.rounds + 1)
        rows = [row] + [self._base(persona, k) | {"round": r, "forecast": sends[r - 1] if sends else None, "valid": 0,
                                                  "reason": f"not played: round {t} {why}"} for r in rest]
        self.store.upsert(ROUNDS.name, rows)
        skipped = len(rest) * (2 if self.plan.forecast == "per_round" else 1)  # per round: its forecast and its play
        if skipped:
            self.ex.progress.update(done=skipped, skipped=skipped)
