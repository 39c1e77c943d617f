"""The options of a values run (``run values`` flags and the Run page's form): defaults are the leaderboard's protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from analysis.cli_types import non_negative_float, positive_int
from analysis.methods.options import Options, option


class ValuesOptions(Options):
    population: str = option("default", "'default' or a personas.json path / hf:// path")
    persona_ids: list[int] | None = option(
        None, "only these personas of the population (comma list of their ids, as the Data page lists them), in population order", metavar="ID,ID", min_length=1)
    contexts: list[str] = option(help="comma list: no_conv, topics_a, chess, ..., chunk .jsonl paths",
                                 factory=lambda: ["no_conv"], min_length=1)
    instrument: str = option("pvq", "pvq (bundled) | svs | PATH (json or data_pvq/data_svs folder) | hf://datasets/...")
    limit_personas: int | None = option(None, parse=positive_int, ge=1)
    limit_items: int | None = option(None, parse=positive_int, ge=1)
    messages: int = option(
        3, "messages generated after the opening: persona, interlocutor, persona... (odd; default 3, the leaderboard's "
           "n_msgs); with --structure appended: length incl. the opening")
    answer_mode: Literal["logprob", "text", "cot"] | None = option(
        None, "logprob (default): the letter after '(' by logprobs; text: '(X)' in 10 tokens; cot: reasoning, then "
              "'Answer: (X)' in 2000 tokens (the leaderboard's configs; --campaign default)")
    answer_format: Literal["text", "json"] = option(
        "text", "json: every answer (and SVS pick) as a JSON object the endpoint constrains to a JSON schema (OpenAI "
                "response_format, vLLM guided decoding, llama.cpp); text or cot answers only (default answer mode then "
                "text); text: the reference's '(X)' (default)")
    campaign: Literal["leaderboard"] | None = option(
        None, "leaderboard: the nine evaluations of the Stick to Your Role! leaderboard (needs --reference)")
    reference: str | None = option(
        None, "with --campaign: your clone of flowersteam/value_stability (or hf://datasets/... of its layout)",
        metavar="PATH")
    samples: int = option(1, parse=positive_int, ge=1)
    seed: int = option(0)
    conversation_temperature: float = option(0.7, "conversation turns (default 0.7)", parse=non_negative_float, ge=0)
    answer_temperature: float = option(0.0, "answers and SVS picks (default 0)", parse=non_negative_float, ge=0)
    conversation_max_tokens: int = option(100, "per conversation turn (default 100)", parse=positive_int, ge=1)
    answer_max_tokens: int | None = option(
        None, "text/cot: reply length limit (default: the protocol's, 10 for text, 2000 for cot)", parse=positive_int,
        ge=1)
    structure: Literal["reference", "appended"] = option(
        "reference", "appended: RoleScope's earlier protocol (the question glued onto the last interlocutor turn)")
    persona_prompt: Literal["reference", "in-character"] = option(
        "reference", "reference: 'You are {description}'; in-character: also asks to stay in character")
    no_system_role: bool = option(
        False, "for models without a system role: the persona prompt as a user message answered 'OK'")
    svs_order: Literal["sequential", "parallel"] = option(
        "sequential", "SVS: rate the rest of a list one after another in one history (reference) or independently")
    prefix_reuse: bool = option(
        False, "embedded: reuse the KV cache of the shared prefix (persona + conversation) across items; ~4-5x fewer "
               "prompt tokens, same argmax answers in bench/bench_prefix.py, but logprobs and greedy turns are not "
               "bit-identical, so off by default")
    store: Path | None = option(None, "the store whose runs of this model time a campaign's estimate (the CLI's --store)",
                                hidden=True)
