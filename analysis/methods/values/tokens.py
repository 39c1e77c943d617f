"""Tokens a values plan will use, modelled from its prompts (``Method.tokens``)."""

from __future__ import annotations

from typing import Any

from analysis.runs.estimate import CHARS_PER_TOKEN, REPLY_FILL


def _tok(chars: float) -> float:
    return chars / CHARS_PER_TOKEN


def plan_tokens(plan: Any) -> tuple[float, float]:
    """(tokens in, tokens out) of a ``ValuesPlan``: every prompt as the session builds it; replies at ``REPLY_FILL`` of
    their limit, 2 tokens for a logprob answer."""
    from analysis.methods.values import prompts

    inst = plan.instrument
    labels = [o.label for o in inst.options]
    out_per_item = {"logprob": 2, "text": REPLY_FILL * plan.text_max_tokens,
                    "cot": REPLY_FILL * plan.cot_max_tokens}[plan.answer_mode]
    tin = tout = 0.0
    for persona in plan.personas:
        system = len(prompts.persona_system(persona, plan.persona_prompt))
        for ctx in plan.contexts:
            conv = 0.0
            if ctx.kind != "no_conv":
                conv = len(ctx.opening_for(persona.id) or "")
                for t in range(1, plan.turns(ctx) + 1):
                    tin += _tok(system + conv)
                    reply = REPLY_FILL * plan.max_tokens("persona" if t % 2 == 1 else "interlocutor")
                    tout += reply
                    conv += reply * CHARS_PER_TOKEN
            for item in inst.items:
                q = len(prompts.item_question(inst, item, persona.gender, labels, plan.answer_mode))
                tin += plan.samples * _tok(system + conv + q)
                tout += plan.samples * out_per_item
    return tin, tout


def tokens(plan: dict[str, Any]) -> tuple[float, float]:
    """``Method.tokens``: ``plan_tokens`` of a stored plan."""
    from analysis.methods.values.questionnaire import ValuesPlan

    return plan_tokens(ValuesPlan.model_validate(plan))
