"""Tokens an MBTI plan will use, modelled from its prompts (``Method.tokens``)."""

from __future__ import annotations

from typing import Any

from analysis.runs.estimate import CHARS_PER_TOKEN, REPLY_FILL


def _tok(chars: float) -> float:
    return chars / CHARS_PER_TOKEN


def plan_tokens(plan: Any) -> tuple[float, float]:
    """(tokens in, tokens out) of an ``MbtiPlan`` with bounded replies: each statement with the history the session
    keeps; replies at ``REPLY_FILL`` of their cap, 1 token for a logprob answer."""
    from analysis.methods.mbti.prompts import CANONICAL, letter_question, text_question

    ask = letter_question if plan.answer_mode == "logprob" else text_question
    q = [len(ask(s.text, list(CANONICAL))) for s in plan.statements.statements]
    out_tokens = 1 if plan.answer_mode == "logprob" else REPLY_FILL * plan.text_max_tokens
    tin = 0.0
    for seq, chars in enumerate(q):
        kept = seq if plan.history is None else min(seq, plan.history)
        history = sum(q[seq - kept:seq]) + kept * out_tokens * CHARS_PER_TOKEN
        tin += _tok(chars + history)
    per_testing_out = out_tokens * len(q)
    n = len(plan.subjects) * len(plan.orders) * plan.testings
    return tin * n, per_testing_out * n


def tokens(plan: dict[str, Any]) -> tuple[float, float] | str:
    """``Method.tokens``: modelled from the prompts, unless text replies have no length cap."""
    from analysis.methods.mbti.session import MbtiPlan

    design = MbtiPlan.model_validate(plan)
    if design.answer_mode == "text" and design.text_max_tokens is None:
        return "not modelled: replies have the model's own length (no --max-tokens); measured after a first run"
    return plan_tokens(design)
