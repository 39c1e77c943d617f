"""Population level: belief elicitation per strategy and attribute, then one single-round game per persona.

Without conditioning, beliefs and games are independent and run concurrently. With conditioning the
``condition_on`` strategy's beliefs are awaited first; each attribute's ranking is then put in
every role prompt as is ('self') or perturbed to the target Spearman ('weak' 0.8, 'strong' 0.2,
``analysis.methods.trust.perturb``) with a seed derived from the plan seed, conditioning and attribute.
An attribute without a valid belief is left out of the block (its prior row says why). Every
prompt is deterministic given the cached replies, so ``resume`` rebuilds the same priors.
A failed call stores its unit invalid with "call failed: ..."; nothing depends on a single game.
"""

from __future__ import annotations

import asyncio
from typing import Any

from analysis.llm.client import ChatRequest
from analysis.llm.specs import ModelSpec
from analysis.runs.executor import Executor
from analysis.runs.store import Store
from analysis.methods.trust import DOLLAR_STRATEGY, PRIOR_TARGETS, schemas
from analysis.methods.trust.parse import ParsedBelief, extract_amount, extract_first_integer, parse_belief
from analysis.methods.trust.perturb import perturb_ranking, prior_seed
from analysis.methods.trust.personas import Persona
from analysis.methods.trust.plan import TrustPlan
from analysis.methods.trust.prompts import belief_messages, role_messages
from analysis.methods.trust.tables import BELIEFS, PRIORS, TRANSFERS


class PopulationSession:
    """Executes a population-level TrustPlan."""

    def __init__(self, plan: TrustPlan, executor: Executor, store: Store, run_id: str, spec: ModelSpec):
        self.plan, self.ex, self.store, self.run_id, self.spec = plan, executor, store, run_id, spec

    def _base(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "model": self.spec.name, "endowment": self.plan.endowment}

    async def run(self) -> None:
        plan = self.plan
        tasks = {(s, a): asyncio.ensure_future(self.elicit(s, a)) for s in plan.elicited for a in plan.attributes}
        try:
            beliefs: dict[str, list[str]] | None = None
            if plan.conditioning != "none":
                originals = {a: await tasks[(plan.condition_on, a)] for a in plan.attributes}
                beliefs = self.priors(originals)
            await asyncio.gather(*(self.simulate(p, beliefs) for p in plan.personas))
            await asyncio.gather(*tasks.values())
        finally:
            for task in tasks.values():
                task.cancel()

    async def elicit(self, strategy: str, attribute: str) -> ParsedBelief | None:
        """One belief call; stores the row; returns the belief when valid."""
        attr = self.plan.table[attribute]
        levels = attr.levels
        messages = belief_messages(strategy, attr, self.plan.endowment)
        structured = schemas.schema_param(self.plan.answer_format, schemas.belief, strategy == DOLLAR_STRATEGY,
                                          list(self.plan.table[attribute].levels), self.plan.endowment)
        request = ChatRequest.build(messages, self.plan.request_params("belief", self.spec.backend) | structured)
        out = await self.ex.call(f"belief/{strategy}/{attribute}", request)
        row = self._base() | {"strategy": strategy, "attribute": attribute, "levels": list(levels), "cache_key": out.cache_key}
        if not out.ok:
            self.store.upsert(BELIEFS.name, [row | {"valid": 0, "reason": f"call failed: {out.error}"}])
            return None
        parsed = parse_belief(out.reply.text, strategy, levels, self.plan.endowment, out.reply.finish_reason)
        row |= {"raw": out.reply.text, "finish_reason": out.reply.finish_reason, "valid": int(parsed.valid),
                "reason": parsed.reason}
        if parsed.valid:
            row |= {"ranking": parsed.ranking, "effect_size": parsed.effect_size, "explanation": parsed.explanation,
                    "groups": {k: list(v) for k, v in parsed.groups.items()} or None}
        self.store.upsert(BELIEFS.name, [row])
        return parsed if parsed.valid else None

    def priors(self, originals: dict[str, ParsedBelief | None]) -> dict[str, list[str]]:
        """The rankings put in the role prompt (own or perturbed), stored one row per attribute."""
        plan, rows, out = self.plan, [], {}
        for attribute, belief in originals.items():
            row = self._base() | {"conditioning": plan.conditioning, "strategy": plan.condition_on, "attribute": attribute}
            if belief is None or belief.ranking is None:
                rows.append(row | {"reason": f"no valid {plan.condition_on} belief: left out of the role prompt"})
                continue
            if plan.conditioning == "self":
                imposed, target, achieved, seed = list(belief.ranking), None, 1.0, None
            else:
                target = PRIOR_TARGETS[plan.conditioning]
                seed = prior_seed(plan.seed, plan.conditioning, attribute)
                imposed, achieved = perturb_ranking(belief.ranking, target, seed)
            out[attribute] = imposed
            rows.append(row | {"original": belief.ranking, "imposed": imposed, "target": target, "achieved": achieved,
                               "search_seed": seed})
        self.store.upsert(PRIORS.name, rows)
        return out

    async def simulate(self, persona: Persona, beliefs: dict[str, list[str]] | None) -> None:
        """One single-round game as ``persona``; stores the amount sent or why there is none."""
        plan = self.plan
        messages = role_messages(persona.description, plan.endowment, beliefs, plan.condition_on, plan.table, plan.answer,
                                 plan.answer_format)
        structured = schemas.schema_param(plan.answer_format, schemas.amount, plan.endowment)
        request = ChatRequest.build(messages, self.plan.request_params("action", self.spec.backend) | structured)
        out = await self.ex.call(f"persona/{persona.id}", request)
        row = self._base() | {"conditioning": plan.conditioning, "persona_id": persona.id, "source": persona.source,
                              "split": persona.split, "attributes": persona.attributes, "cache_key": out.cache_key}
        if not out.ok:
            self.store.upsert(TRANSFERS.name, [row | {"valid": 0, "reason": f"call failed: {out.error}"}])
            return
        extract = extract_first_integer if plan.answer == "numeric" else extract_amount
        got = extract(out.reply.text, plan.endowment, out.reply.finish_reason)
        self.store.upsert(TRANSFERS.name, [row | {"raw": out.reply.text, "finish_reason": out.reply.finish_reason,
                                                  "valid": int(got.valid), "reason": got.reason,
                                                  "sent": got.amount, "extraction": got.how}])
