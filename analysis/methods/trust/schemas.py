"""The JSON schemas of the trust game's answers with ``--answer-format json`` (``analysis.llm.structured``): the same
fields the text prompts ask for, so the same readers read both."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from analysis.llm.structured import SHORT_TEXT as TEXT, obj, response_format, whole


def amount(endowment: int) -> str:
    """A single-round play: the reasoning, then the whole dollars sent (read by ``extract_amount``'s JSON rule)."""
    return response_format("trust_amount", obj({"thought": TEXT, "amount": whole(0, endowment)}))


def round_play(endowment: int) -> str:
    """A ReAct round: THOUGHT, then the dollars sent this round."""
    return response_format("trust_round", obj({"thought": TEXT, "send": whole(0, endowment)}))


def belief(strategy_is_dollars: bool, levels: Sequence[str], endowment: int) -> str:
    """A population belief: every level ranked with the stated η² (NoCtx+Tr, Ctx+Tr), or each level's mean and SD
    of dollars sent (Ctx+$)."""
    n = len(levels)
    if strategy_is_dollars:
        group = obj({"level": {"enum": list(levels)}, "mean": {"type": "number", "minimum": 0, "maximum": endowment},
                     "sd": {"type": "number", "minimum": 0}})
        schema = obj({"groups": {"type": "array", "items": group, "minItems": n, "maxItems": n}, "explanation": TEXT})
        return response_format("trust_dollar_belief", schema)
    schema = obj({"ranking": {"type": "array", "items": {"enum": list(levels)}, "minItems": n, "maxItems": n},
                  "effect_size": {"type": "number", "minimum": 0, "maximum": 1}, "explanation": TEXT})
    return response_format("trust_belief", schema)


def forecast_round(endowment: int) -> str:
    return response_format("trust_forecast", obj({"send": whole(0, endowment), "explanation": TEXT}))


def forecast_upfront(rounds: int, endowment: int) -> str:
    item = obj({"round": whole(1, rounds), "send": whole(0, endowment), "explanation": TEXT})
    return response_format("trust_forecasts", obj({"forecasts": {"type": "array", "items": item, "minItems": rounds,
                                                                 "maxItems": rounds}}))


def schema_param(answer_format: str, make: Any, *args: Any) -> dict[str, str]:
    """``{"response_format": ...}`` with ``--answer-format json``, else nothing (the paper's free text)."""
    return {"response_format": make(*args)} if answer_format == "json" else {}
