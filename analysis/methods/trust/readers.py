"""The trust-game reply readers as ``python -m analysis parse`` offers them: the functions the sessions call, with
the context they are given there (the endowment; a belief's attribute and strategy; an up-front forecast's rounds)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.errors import InputError
from pydantic import Field

from analysis.methods.base import Reader, Reading, context_model
from analysis.methods.trust import Strategy
from analysis.methods.trust.plan import TrustPlan
from analysis.methods.trust.parse import (
    ParsedAmount, extract_amount, extract_first_integer, parse_belief, parse_forecast, parse_round_forecast,
)


def _amount_reading(parsed: ParsedAmount) -> Reading:
    return Reading(parsed.amount is not None, parsed.amount, parsed.reason)


def _amount(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    return _amount_reading(extract_amount(reply, int(context["endowment"]), finish_reason))


def _numeric(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    return _amount_reading(extract_first_integer(reply, int(context["endowment"]), finish_reason))


def levels_of(attribute: str) -> tuple[str, ...]:
    """An attribute's levels: the paper's test split, else RoleScope's earlier set."""
    from analysis.methods.trust.personas import attribute_table

    for attribute_set in ("paper", "rolescope15"):
        table = attribute_table(attribute_set)
        if attribute in table:
            return tuple(table[attribute].levels)
    raise InputError(f"attribute '{attribute}': not an attribute of the paper's test split or of rolescope15")


def _belief(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    levels = context.get("levels") or levels_of(str(context["attribute"]))
    parsed = parse_belief(reply, str(context["strategy"]), levels, int(context["endowment"]), finish_reason)
    value = {"ranking": parsed.ranking, "effect_size": parsed.effect_size,
             "groups": {k: list(v) for k, v in parsed.groups.items()}} if parsed.valid else None
    return Reading(parsed.valid, value, parsed.reason)


def _forecast_round(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    parsed = parse_round_forecast(reply, int(context["endowment"]), finish_reason)
    return Reading(parsed.valid, parsed.sends[0] if parsed.valid and parsed.sends else None, parsed.reason)


def _forecast_upfront(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    parsed = parse_forecast(reply, int(context["rounds"]), int(context["endowment"]), finish_reason)
    return Reading(parsed.valid, parsed.sends if parsed.valid else None, parsed.reason)


#: The contexts, with the plan's own types and bounds (``TrustPlan``): an endowment of at least $1, rounds 1 to 100,
#: a strategy of the paper's three.
AMOUNT = context_model("AmountContext", TrustPlan, "endowment")
BELIEF = context_model("BeliefContext", TrustPlan, "endowment", attribute=(str, Field(min_length=1, max_length=100)),
                       strategy=(Strategy, ...), levels=(list[str] | None, Field(None, min_length=2, max_length=50)))
UPFRONT = context_model("UpfrontContext", TrustPlan, "endowment", "rounds")

READERS = (
    Reader("trust-amount", "the dollars a reasoned Trustor reply sends ('Amount: $X')", _amount, ("endowment",),
           {"endowment": 10}, AMOUNT),
    Reader("trust-numeric", "the dollars a bare-number reply sends (its first integer, App. E)", _numeric,
           ("endowment",), {"endowment": 10}, AMOUNT),
    Reader("trust-belief", "a belief about an attribute: ranking, stated η² or per-level means", _belief,
           ("attribute", "strategy", "endowment"), {"endowment": 10}, BELIEF),
    Reader("trust-forecast-round", "the forecast send of one round", _forecast_round, ("endowment",),
           {"endowment": 10}, AMOUNT),
    Reader("trust-forecast-upfront", "the forecast sends of every round, made before play", _forecast_upfront,
           ("rounds", "endowment"), {"endowment": 10}, UPFRONT),
)
