"""The options of a trust-game run (``run trust`` flags and the Run page's form): defaults are the paper's protocol."""

from __future__ import annotations

import argparse
from typing import Literal

from analysis.cli_types import csv_list, int_between, non_negative_float, positive_int
from analysis.methods.options import Options, option
from analysis.methods.trust import DEFAULT_ARCHETYPES, DEFAULT_ENDOWMENT, DEFAULT_ROUNDS, MAX_ENDOWMENT, MAX_ROUNDS, STRATEGIES


def int_list(value: str) -> list[int]:
    """'1,3,5' -> [1, 3, 5] (an argparse type)."""
    try:
        return [int(v) for v in csv_list(value)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{value}': give whole numbers separated by commas, e.g. 1,3,5") from None


class TrustOptions(Options):
    level: Literal["population", "individual"] = option(
        "population", "population: beliefs per attribute + one game per persona; individual: forecast + multi-round play")
    strategies: list[str] = option(
        help="comma list of NoCtx+Tr, Ctx+Tr, Ctx+$ (aliases noctx-tr, ctx-tr, ctx-usd); default all three",
        factory=lambda: list(STRATEGIES), min_length=1)
    conditioning: Literal["none", "self", "weak", "strong"] = option(
        "none", "role prompt carries no beliefs, the model's own (self), or priors perturbed to Spearman 0.8 (weak) / 0.2 "
                "(strong)")
    condition_on: str = option("Ctx+Tr", "strategy whose beliefs condition the role prompt (default Ctx+Tr)")
    rounds: int = option(DEFAULT_ROUNDS, f"individual level: rounds per game (default {DEFAULT_ROUNDS})",
                         parse=int_between(1, MAX_ROUNDS), ge=1, le=MAX_ROUNDS)
    archetypes: list[int] = option(
        help="individual level: Trustee archetypes k (returns min(k, 3*sent)); default 1,3,5",
        factory=lambda: list(DEFAULT_ARCHETYPES), parse=int_list, min_length=1)
    endowment: int = option(DEFAULT_ENDOWMENT, "dollars per round (default 10; ablation 44, 100)",
                            parse=int_between(1, MAX_ENDOWMENT), ge=1, le=MAX_ENDOWMENT)
    endowments: list[int] | None = option(
        None, "the endowment ablation in one command (App. D.1, Table 9): one run per endowment, e.g. 10,44,100; the "
              "paper's $10 runs last so that it stays the headline configuration", parse=int_list)
    paper_tables: bool = option(
        False, "every run the paper's tables need, in one command: the individual level (Tables 6-8), the population at "
               "$44 and $100 (Table 9), then at $10 under self, weak and strong conditioning and unconditioned (Tables 3, "
               "4; the headline); sets --level, --conditioning and the endowments")
    personas: str = option(
        "250", "N: a generated bank of N personas (default 250, test split = 50); or a GenAgents .jsonl file or folder of "
               "<id>/scratch.json (paper set: its test personas, 50 of them by default)")
    split: Literal["train", "validation", "test", "all"] = option(
        "test", "persona split to run (default test, as in the paper)")
    limit_personas: int | None = option(None, "run only the first N personas of the split", parse=positive_int, ge=1)
    persona_ids: list[str] | None = option(
        None, "run only these personas of the split (their ids, as the Data page lists them)", metavar="ID,ID",
        min_length=1)
    attribute_set: Literal["paper", "rolescope15"] = option(
        "paper", "paper: Table 5's traits, levels and splits (default; test split: 10 traits, Table 3's nine elicited); "
                 "rolescope15: RoleScope's earlier 15 attributes, the same in every split")
    attributes: list[str] | None = option(
        None, "population level: attributes to elicit (default: Table 3's nine, or all 15 of rolescope15)")
    seed: int = option(0, "bank generation, Big Five augmentation and prior perturbation seed")
    temperature: float | None = option(
        None, "default 0.05 (the paper's App. E, with top_p 1 and, on the embedded server, top_k 0), unless the model "
              "spec sets one", parse=non_negative_float, ge=0)
    max_tokens: int | None = option(
        None, "reply length limit for every call (defaults: beliefs 600, game 300, forecast 600, round 300)",
        parse=positive_int, ge=1)
    forecast: Literal["per_round", "upfront"] = option(
        "per_round", "individual level: per_round = one forecast before each round from a state summary of the game so "
                     "far (the paper's Tables 6-8, default); upfront = one forecast of every round before play")
    answer: Literal["reasoned", "numeric"] = option(
        "reasoned", "population play: reasoned = reasoning ending 'Amount: $X' (default); numeric = a bare whole number, "
                    "the first integer of the reply taken (the paper's App. E extraction)")
    answer_format: Literal["text", "json"] = option(
        "text", "json: every answer (beliefs, forecasts, amounts) as a JSON object the endpoint constrains to a JSON "
                "schema (OpenAI response_format, vLLM guided decoding, llama.cpp); text: the paper's free text (default)")
    play_knows_archetype: bool = option(False, "individual level: describe the archetype in every round prompt too")
    prefix_reuse: bool = option(False, "embedded: keep the shared prompt prefix in the KV cache")
