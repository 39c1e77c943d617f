"""The options of an inventory run (``run inventory`` flags and the Run page's form): defaults are the protocol of
Serapio-García et al. (2023): IPIP-NEO, single-trait shaping at nine levels, likelihood scoring; plus both option
orders (RoleScope's check of position bias)."""

from __future__ import annotations

from typing import Literal

from analysis.cli_types import non_negative_float, positive_int
from analysis.methods.options import Options, option


class InventoryOptions(Options):
    inventory: str = option("ipip-neo-120", "ipip-neo-120 | ipip-neo-300 (the public-domain items: a local copy, see "
                            "docs/methods/inventory.md) | rolescope-mini | PATH (inventory .json or five-factor-e "
                            "questions.json) | hf://datasets/...")
    personas: int | None = option(None, "keep the first N personas of the design (levels are spread so a few "
                                  "already span low, middle and high)", parse=positive_int, ge=1)
    persona_ids: list[str] | None = option(None, "only these personas of the design (comma list, e.g. b1-E9,b1-E1)",
                                           metavar="ID,ID", min_length=1)
    limit_items: int | None = option(None, "ask only the first K items (norms then do not apply)", parse=positive_int, ge=1)
    shaping: Literal["single", "none"] = option(
        "single", "single: each persona gets one domain at a target level 1-9 (the paper's single-trait shaping); none: "
                  "the biographies alone")
    domains: list[str] | None = option(None, "shaped domains (default all five: O,C,E,A,N)")
    levels: list[int] | None = option(None, "target levels (default 1-9)")
    biographies: int | None = option(None, "use the first N of the six authored biographies (default all)",
                                     parse=positive_int, ge=1)
    order: Literal["both", "ascending", "descending"] = option(
        "both", "numbering of the options: ascending (1 = very inaccurate, the paper's), descending, or both (test–retest "
                "and position bias)")
    answer_mode: Literal["logprob", "text"] = option(
        "logprob", "logprob: the likeliest number 1-k (the paper's scoring); text: a short free reply read by the "
                   "inventory-option reader")
    answer_format: Literal["text", "json"] = option(
        "text", "json: each rating as a JSON object {answer: N} the endpoint constrains to a JSON schema (OpenAI "
                "response_format, vLLM guided decoding, llama.cpp), N one of the scale's numbers; text mode only; text: "
                "a free reply (default)")
    temperature: float | None = option(None, "text mode's sampling temperature", parse=non_negative_float, ge=0)
    max_tokens: int = option(32, "text mode: reply length limit (a number comes first)", parse=positive_int, ge=1)
    prefix_reuse: bool = option(False, "embedded: keep the persona's prompt prefix in the KV cache")
