"""Prompts (RoleScope's wording of the paper's App. B and C; the paper's templates were not released).

- ``role_messages``: single-round role play (B.1): the persona as system message, the rules, an
  optional belief block (self-conditioning / imposed priors, C.2.3), reasoning ending in
  "Amount: $X".
- ``belief_messages``: NoCtx+Tr (no game, rank by interpersonal trust + η²), Ctx+Tr (the same
  after the rules and the role), Ctx+$ (after the rules: mean and SD of dollars sent per level),
  each asking for one JSON object with the schema written out.
- ``round_forecast_messages`` (default, Tables 6–8): individual level, one forecast per round from a
  crafted state summary (``state_summary``: "The game has just started ..." in round 1, then "the
  other player has returned $k after each transfer ..." with the rounds remaining), the archetype
  described (C.3), reply as JSON {"send", "explanation"}.
- ``forecast_messages`` (option ``--forecast upfront``): the archetype described, a send forecast for
  every round as one JSON list before play.
- ``round_messages``: multi-round ReAct play (B.2): rules, round number, history of actions and
  observations, THOUGHT then ACTION: Send $X.
"""

from __future__ import annotations

from collections.abc import Sequence

from analysis.methods.trust import DOLLAR_STRATEGY
from analysis.methods.trust.game import RoundOutcome
from analysis.methods.trust.attributes import Attribute
from analysis.methods.trust.personas import BY_KEY

ROLE_SYSTEM = ("You are role-playing a real person. Stay in character and make every decision as this person would.\n\n"
               "Who you are: {description}")
EXPERT_SYSTEM = "You are an expert in social and behavioural science."


def rules(endowment: int) -> str:
    """The Trust Game rules in the third person."""
    return (f"Player A receives ${endowment}. Player A decides how many whole dollars, from $0 to ${endowment}, to send "
            "to Player B, a stranger they will never meet. The amount sent is tripled before it reaches Player B. "
            "Player B then decides how much of the tripled amount to return to Player A and keeps the rest. Player A "
            "keeps whatever they did not send, plus whatever Player B returns.")


def archetype_text(k: int) -> str:
    """The fixed rule of Trustee archetype T_k, as told to the Trustor."""
    return (f"after every round Player B returns ${k} to Player A, or everything Player B received if that is less than "
            f"${k}, no matter how much was sent")


def _attr(attribute: str | Attribute, table: dict[str, Attribute] | None = None) -> Attribute:
    """An Attribute as given, or looked up by key in ``table`` (default the rolescope15 set)."""
    return attribute if isinstance(attribute, Attribute) else (table or BY_KEY)[attribute]


def belief_block(beliefs: dict[str, list[str]], strategy: str, table: dict[str, Attribute] | None = None) -> str:
    """The conditioning text: one ranking per attribute (App. C.2.3); identical for own and imposed beliefs."""
    order = ("from the groups who send the most to those who send the least" if strategy == DOLLAR_STRATEGY
             else "from the most trusting groups to the least trusting")
    lines = [f"- {_attr(key, table).label}: " + " > ".join(ranking) for key, ranking in beliefs.items()]
    return ("Research on the people in this study has found the following (each line lists groups "
            f"{order}):\n" + "\n".join(lines) + "\nMake your decision consistent with these findings, given who you are.")


def role_messages(description: str, endowment: int, beliefs: dict[str, list[str]] | None = None,
                  strategy: str = "Ctx+Tr", table: dict[str, Attribute] | None = None,
                  answer: str = "reasoned", answer_format: str = "text") -> list[dict[str, str]]:
    """Single-round role play as Player A; ``beliefs`` (attribute -> ranking) adds the conditioning block.

    ``answer``: 'reasoned' asks for a few sentences ending "Amount: $X"; 'numeric' for a bare whole number (App. E).
    ``answer_format`` 'json': the reasoning and the amount as one JSON object (``schemas.amount``)."""
    block = f"\n\n{belief_block(beliefs, strategy, table)}" if beliefs else ""
    if answer_format == "json":
        ask = ('Think it through as yourself, then reply with one JSON object only: {"thought": "<your reasoning, a '
               f'few sentences>", "amount": X}} where X is a whole number from 0 to {endowment}.')
    elif answer == "reasoned":
        ask = ("Think it through as yourself in a few sentences, then end your reply with a last line of the form\n"
               f"Amount: $X\nwhere X is a whole number from 0 to {endowment}.")
    else:
        ask = f"Answer as yourself with a single whole number of dollars from 0 to {endowment} and nothing else."
    user = (f"You take part in a study and play Player A in this game.\n\n{rules(endowment)}{block}\n\n"
            f"How much do you send to Player B? {ask}")
    return [{"role": "system", "content": ROLE_SYSTEM.format(description=description)}, {"role": "user", "content": user}]


def _characteristic(attribute: str | Attribute) -> str:
    attr = _attr(attribute)
    values = "\n".join(f"- {level}" for level in attr.levels)
    return f'Consider the characteristic "{attr.label}", which takes these values:\n{values}'


_TRUST_QUESTION = (
    "Rank all of these values by the interpersonal trust that people with each value show towards strangers, from the "
    "most trusting to the least trusting. Also estimate how much of the differences in interpersonal trust between "
    "people this characteristic explains, as an eta squared between 0 and 1.\n\n"
    "Reply with one JSON object only, in exactly this form:\n"
    '{"ranking": ["<most trusting value>", "...", "<least trusting value>"], "effect_size": <number between 0 and 1>, '
    '"explanation": "<one or two sentences>"}'
)


def belief_messages(strategy: str, attribute: str | Attribute, endowment: int) -> list[dict[str, str]]:
    """The belief elicitation request of one strategy for one attribute."""
    game = (f"A study uses the following game.\n\n{rules(endowment)}\n\nIn the study you will play Player A, role-playing "
            "people with many different characteristics.\n\n")
    if strategy == "NoCtx+Tr":
        user = f"Think about adults in the United States. {_characteristic(attribute)}\n\n{_TRUST_QUESTION}"
    elif strategy == "Ctx+Tr":
        user = f"{game}{_characteristic(attribute)}\n\n{_TRUST_QUESTION}"
    elif strategy == DOLLAR_STRATEGY:
        user = (f"{game}{_characteristic(attribute)}\n\nFor each value, estimate the mean and the standard deviation of "
                f"the dollars (out of ${endowment}) that Player A sends when Player A has that value.\n\n"
                "Reply with one JSON object only, in exactly this form, with one entry for every value:\n"
                '{"groups": [{"level": "<value>", "mean": <dollars>, "sd": <dollars>}, "..."], '
                '"explanation": "<one or two sentences>"}')
    else:
        raise ValueError(f"unknown strategy {strategy!r}")
    return [{"role": "system", "content": EXPERT_SYSTEM}, {"role": "user", "content": user}]


def forecast_messages(description: str, endowment: int, rounds: int, k: int) -> list[dict[str, str]]:
    """Individual level: forecast the send of every round against archetype T_k, as JSON."""
    user = (f"You take part in a study and will play {rounds} rounds of this game as Player A. Every round you receive a "
            f"fresh ${endowment}.\n\n{rules(endowment)}\n\nPlayer B follows a fixed rule: {archetype_text(k)}.\n\n"
            "Before the game starts, forecast how much you will send in each round. Reply with one JSON object only, in "
            "exactly this form, with one entry for each round from 1 to "
            f"{rounds}:\n"
            '{"forecasts": [{"round": 1, "send": <whole dollars from 0 to ' f"{endowment}" '>, '
            '"explanation": "<one sentence>"}, "..."]}')
    return [{"role": "system", "content": ROLE_SYSTEM.format(description=description)}, {"role": "user", "content": user}]


def state_summary(round_no: int, rounds: int, k: int) -> str:
    """The crafted state of the game before round ``round_no`` against T_k (Sec. 5.2, Tables 6–8): never the model's
    own play, only what T_k's fixed rule implies (returned $k, or everything received when less)."""
    remaining = rounds - round_no + 1
    left = f"This is round {round_no} of {rounds}; {remaining} round{'s' * (remaining != 1)} remain{'s' * (remaining == 1)}, " \
           "this one included."
    if round_no == 1:
        return f"The game has just started: there is no history of the other player's behaviour yet. {left}"
    played = round_no - 1
    return (f"{played} round{'s have' if played != 1 else ' has'} been played. The other player has returned ${k} after each transfer "
            f"(or everything they received, when that was less than ${k}). {left}")


def round_forecast_messages(description: str, endowment: int, rounds: int, round_no: int,
                            k: int) -> list[dict[str, str]]:
    """Individual level, one round: forecast this round's send from the crafted state summary, as JSON."""
    user = (f"You take part in a study and play {rounds} rounds of this game as Player A. Every round you receive a fresh "
            f"${endowment}.\n\n{rules(endowment)}\n\nPlayer B follows a fixed rule: {archetype_text(k)}.\n\n"
            f"{state_summary(round_no, rounds, k)}\n\n"
            "Before this round is played, forecast how much you will send in it. Reply with one JSON object only, in "
            "exactly this form:\n"
            '{"send": <whole dollars from 0 to ' f"{endowment}" '>, "explanation": "<why, in a few sentences>"}')
    return [{"role": "system", "content": ROLE_SYSTEM.format(description=description)}, {"role": "user", "content": user}]


def history_text(history: Sequence[RoundOutcome]) -> str:
    """The actions and observations of the rounds played so far."""
    if not history:
        return "This is the first round; nothing has happened yet."
    total, lines = 0, ["What happened so far:"]
    for h in history:
        total += h.earnings
        lines.append(f"Round {h.round}. ACTION: Send ${h.sent}. OBSERVATION: Player B received ${h.received} and returned "
                     f"${h.returned}; you earned ${h.earnings} this round (${total} in total).")
    return "\n".join(lines)


def round_messages(description: str, endowment: int, rounds: int, round_no: int, history: Sequence[RoundOutcome],
                   k: int | None = None, answer_format: str = "text") -> list[dict[str, str]]:
    """One ReAct round: rules, history, round number; ``k`` (when Player A is told the archetype) adds its rule.
    ``answer_format`` 'json': THOUGHT and the send as one JSON object (``schemas.round_play``)."""
    known = f" Player B follows a fixed rule: {archetype_text(k)}." if k is not None else ""
    act = ('Reason, then act, as one JSON object only:\n{"thought": "<your reasoning as yourself>", "send": X}\n'
           if answer_format == "json" else
           "Reason, then act, in this format:\nTHOUGHT: <your reasoning as yourself>\nACTION: Send $X\n")
    user = (f"You take part in a study and play {rounds} rounds of this game as Player A. Every round you receive a fresh "
            f"${endowment}.{known}\n\n{rules(endowment)}\n\n{history_text(history)}\n\n"
            f"This is round {round_no} of {rounds}. {act}"
            f"where X is a whole number from 0 to {endowment}.")
    return [{"role": "system", "content": ROLE_SYSTEM.format(description=description)}, {"role": "user", "content": user}]
