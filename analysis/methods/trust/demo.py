"""The trust-game parts of the demo campaign (``analysis.demo``): the population game (the paper's Table 3 attributes,
self-conditioned) and the repeated individual game against three archetypes."""

from __future__ import annotations

from typing import Any

from analysis.demo_config import DemoConfig, DemoPart, Size

#: ``tokens``: reply caps per call kind (a 135M model rambles to any limit; a number comes first when it comes at all;
#: a structured reply's JSON needs room to close: its explanation is at most 400 characters).
SIZES: dict[Size, dict[str, Any]] = {
    "full": {"personas": 30, "individual_personas": 2, "rounds": 6,
             "attributes": None,  # the paper's Table 3 attributes (nine, test split of Table 5)
             "campaign_rounds": 3, "tokens": {"belief": 300, "action": 200, "forecast": 300, "round": 160}},
    # two rounds: a forecast of the next; text replies capped short (a number first), structured ones left room to close
    "reduced": {"personas": 2, "individual_personas": 1, "rounds": 2, "attributes": ["age"],
                "campaign_rounds": 1, "tokens": {"belief": 200, "action": 100, "forecast": 200, "round": 120},
                "text_tokens": {"belief": 60, "action": 40, "forecast": 60, "round": 40}},
}


def _tokens(config: DemoConfig, size: Size) -> dict[str, int]:
    s = SIZES[size]
    return s.get("text_tokens", s["tokens"]) if config.answer_format == "text" else s["tokens"]


def population_plan(config: DemoConfig, size: Size) -> dict[str, Any]:
    from analysis.methods.trust.plan import build_trust_plan

    s = SIZES[size]
    return build_trust_plan(config.spec(), level="population", conditioning="self", max_tokens=_tokens(config, size),
                            attributes=s["attributes"], limit_personas=s["personas"], seed=0,
                            answer_format=config.answer_format).model_dump()


def individual_plan(config: DemoConfig, size: Size) -> dict[str, Any]:
    from analysis.methods.trust.plan import build_trust_plan

    s = SIZES[size]
    return build_trust_plan(config.spec(), level="individual", rounds=s["rounds"], archetypes=(1, 3, 5),
                            max_tokens=_tokens(config, size), limit_personas=s["individual_personas"], seed=0, prefix_reuse=True,
                            answer_format=config.answer_format).model_dump()


def campaign_settings(config: DemoConfig, size: Size) -> list[str]:
    """This method's options in the demo's cross-method campaign (``METHOD.FIELD=VALUE``)."""
    return [f"trust.rounds={SIZES[size]['campaign_rounds']}", "trust.archetypes=1+3+5",
            f"trust.max_tokens={SIZES[size]['tokens']['action']}", "trust.prefix_reuse=true"]


PARTS = (DemoPart("trust-population", "trust", population_plan, structured=True),
         DemoPart("trust-individual", "trust", individual_plan, structured=True))
