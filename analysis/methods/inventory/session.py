"""Giving an inventory: one independent call per persona × item × option order (Serapio-García et al. 2023: every
item is its own prompt, no history).

A failed call is stored invalid with its reason (``resume`` asks it again); an unreadable reply is stored invalid
with its raw text. Nothing is ever filled in.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any, Literal

from pydantic import Field

from analysis.llm.client import ChatRequest
from analysis.llm.options import AnswerMode
from analysis.llm.specs import ModelSpec
from analysis.llm.structured import UnstatedTextFormat, read_structured
from analysis.methods.inventory import schemas
from analysis.methods.inventory.inventory import Inventory, Item
from analysis.methods.inventory.parse import ReadNumber, number_from_logprobs, number_from_text
from analysis.methods.inventory.personas import Persona
from analysis.methods.inventory.prompts import OrderMode, item_prompt, option_of_number
from analysis.runs.executor import CallOutcome, Executor, run_units
from analysis.runs.store import Store, Table, register_table
from analysis.methods.inventory import row_rules

ANSWERS = register_table(Table(
    "inventory_answers",
    (("run_id", "TEXT"), ("model", "TEXT"), ("inventory", "TEXT"), ("persona_id", "TEXT"), ("persona", "TEXT"),
     ("sex", "TEXT"), ("age", "INTEGER"), ("targets", "TEXT"), ("order_mode", "TEXT"), ("seq", "INTEGER"),
     ("item_id", "TEXT"), ("domain", "TEXT"), ("facet", "TEXT"), ("reverse", "INTEGER"), ("item", "TEXT"),
     ("mode", "TEXT"), ("number", "INTEGER"), ("option_index", "INTEGER"), ("option", "TEXT"), ("score", "REAL"),
     ("keyed", "REAL"), ("valid", "INTEGER"), ("reason", "TEXT"), ("raw", "TEXT"), ("logprob", "REAL"),
     ("cache_key", "TEXT"), ("truncated", "INTEGER"), ("source", "TEXT"), ("administration", "INTEGER"),
     ("persona_type", "TEXT")),
    ("run_id", "persona_id", "order_mode", "item_id"),
    row_rules.answer_rules,
))
#: Text mode's reply limit (the paper scores the options' likelihood and generates nothing): a number comes first.
TEXT_MAX_TOKENS = 32


class InventoryPlan(UnstatedTextFormat):
    """Everything an inventory run needs, resolved (so ``resume`` repeats it exactly)."""

    method: Literal["inventory"] = "inventory"
    inventory: Inventory
    personas: list[Persona]
    orders: list[OrderMode] = Field(default_factory=lambda: ["ascending", "descending"])
    answer_mode: AnswerMode = "logprob"
    answer_format: Literal["text", "json"] = Field(
        "text", description="json: each rating as a JSON object {answer: 1..k} constrained by a JSON schema "
                            "(analysis.llm.structured; text mode only); text: a free reply. Left out of the stored plan "
                            "when text (plans stored before the choice existed stay the same configuration).")
    shaping: bool = True
    params: dict[str, Any] = Field(default_factory=dict)
    top_logprobs: int = 200
    text_max_tokens: int | None = Field(TEXT_MAX_TOKENS, ge=1)
    prefix_reuse: bool = False

    def n_calls(self) -> int:
        return len(self.personas) * len(self.orders) * len(self.inventory.items)


class InventorySession:
    """Executes one InventoryPlan; writes one ``inventory_answers`` row per item asked."""

    def __init__(self, plan: InventoryPlan, executor: Executor, store: Store, run_id: str, spec: ModelSpec):
        self.plan, self.ex, self.store, self.run_id, self.spec = plan, executor, store, run_id, spec

    def _params(self) -> dict[str, Any]:
        params = dict(self.plan.params)
        if self.plan.answer_mode == "logprob":
            params |= {"max_tokens": 1, "temperature": 0.0, "top_logprobs": self.plan.top_logprobs, "logprobs": True}
        elif self.plan.text_max_tokens is not None:
            params |= {"max_tokens": self.plan.text_max_tokens}
        if self.spec.backend == "embedded":
            params["cache_prompt"] = self.plan.prefix_reuse
        return params

    async def run(self) -> None:
        await run_units((partial(self.sheet, persona, order) for persona in self.plan.personas for order in self.plan.orders),
                        one_at_a_time=self.plan.prefix_reuse)

    async def sheet(self, persona: Persona, order: OrderMode) -> None:
        """Every item for one persona in one option order, each its own call: side by side (each prompt holds one item
        only), or one after another with prefix reuse (the embedded server keeps one prompt prefix in its cache)."""
        inv = self.plan.inventory
        asks = [partial(self.item, persona, order, seq, item) for seq, item in enumerate(inv.items)]
        await run_units(asks, one_at_a_time=self.plan.prefix_reuse)

    async def item(self, persona: Persona, order: OrderMode, seq: int, item: Item) -> None:
        inv = self.plan.inventory
        messages = [{"role": "user", "content": item_prompt(persona.description, item.text, inv.options, order,
                                                            self.plan.answer_format)}]
        structured = {"response_format": schemas.rating(inv.n_options)} if self.plan.answer_format == "json" else {}
        out = await self.ex.call(f"{persona.id}/{order}/{item.id}", ChatRequest.build(messages, self._params() | structured))
        self.store.upsert(ANSWERS.name, [self._row(persona, order, seq, item, out)])

    def _row(self, persona: Persona, order: OrderMode, seq: int, item: Item, out: CallOutcome) -> dict[str, Any]:
        inv = self.plan.inventory
        row = {"run_id": self.run_id, "model": self.spec.name, "inventory": inv.name, "persona_id": persona.id,
               "persona": persona.description, "sex": persona.sex, "age": persona.age,
               "targets": json_targets(persona.targets), "order_mode": order, "seq": seq, "item_id": item.id,
               "domain": item.domain, "facet": item.facet, "reverse": int(item.reverse), "item": item.text,
               "mode": self.plan.answer_mode, "cache_key": out.cache_key, "source": "run"}
        if not out.ok:
            return row | {"valid": 0, "reason": f"call failed: {out.error}"}
        read = self._read(out, order)
        row |= {"raw": out.reply.text, "logprob": read.logprob, "valid": int(read.valid), "reason": read.reason or None,
                "truncated": int(self.plan.answer_mode == "text" and out.reply.finish_reason == "length")}
        if read.valid:
            index = option_of_number(read.number, inv.n_options, order)
            row |= {"number": read.number, "option_index": index, "option": inv.options[index], "score": index + 1,
                    "keyed": inv.keyed(item, index + 1)}
        return row

    def _read(self, out: CallOutcome, order: OrderMode) -> ReadNumber:
        inv = self.plan.inventory
        if self.plan.answer_mode == "logprob":
            first = out.reply.top_logprobs[0] if out.reply.top_logprobs else None
            return number_from_logprobs(first, inv.n_options)
        finish = out.reply.finish_reason
        if self.plan.answer_format == "json":
            return read_structured(out.reply.text, lambda value: schemas.number_of(value, inv.options, order),
                                   lambda reply: number_from_text(reply, inv.options, order, finish))
        return number_from_text(out.reply.text, inv.options, order, finish)


def json_targets(targets: dict[str, int]) -> str | None:
    """The targets as stored: sorted JSON, or None for an unshaped persona."""
    return json.dumps(targets, sort_keys=True) if targets else None


def n_calls(plan: dict[str, Any]) -> int:
    """``Method.n_calls``: the calls a stored plan makes."""
    return InventoryPlan.model_validate(plan).n_calls()


def waves(plan: dict[str, Any]) -> int:
    """``Method.waves``: every item is its own one-message call, so every sheet is asked at once: 1."""
    InventoryPlan.model_validate(plan)
    return 1


def build_session(plan: dict[str, Any], executor: Any, store: Any, run_id: str, spec: Any) -> InventorySession:
    """``Method.session``: the session of a stored plan."""
    return InventorySession(InventoryPlan.model_validate(plan), executor, store, run_id, spec)
