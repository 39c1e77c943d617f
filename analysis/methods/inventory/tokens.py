"""Tokens of an inventory plan, modelled from its prompts (``analysis.runs.estimate``): ~4 characters per token."""

from __future__ import annotations

from analysis.methods.inventory.prompts import item_prompt
from analysis.methods.inventory.session import InventoryPlan

CHARS_PER_TOKEN = 4.0


def plan_tokens(plan: InventoryPlan) -> tuple[float, float]:
    """(tokens in, tokens out) of the whole plan: every prompt's characters / 4; one token out per logprob answer,
    the reply limit per text answer (an upper bound)."""
    inv = plan.inventory
    chars = sum(len(item_prompt(p.description, it.text, inv.options, o)) for p in plan.personas for o in plan.orders
                for it in inv.items)
    out_each = 1 if plan.answer_mode == "logprob" else (plan.text_max_tokens or 32)
    return chars / CHARS_PER_TOKEN, float(plan.n_calls() * out_each)


def tokens(plan: dict) -> tuple[float, float]:
    """``Method.tokens``: ``plan_tokens`` of a stored plan."""
    return plan_tokens(InventoryPlan.model_validate(plan))
