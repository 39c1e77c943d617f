"""The options of an MBTI run (``run mbti`` flags and the Run page's form): defaults are the paper's protocol."""

from __future__ import annotations

from typing import Literal

from analysis.cli_types import non_negative_float, non_negative_int, positive_int
from analysis.methods.mbti.subjects import DEFAULT_SUBJECTS
from analysis.methods.options import Options, option


class MbtiOptions(Options):
    subjects: list[str] = option(
        help="comma list of groups (default: %(default)s), e.g. Doctors,'Low-income people', or one person as Name:she, "
             "Name:he or Name:they", factory=lambda: list(DEFAULT_SUBJECTS), min_length=1)
    background: list[str] | None = option(
        None, "background subjects (the paper's Table 4): comma list of income, age, education")
    testings: int = option(15, "independent testings per subject and order (default 15)", parse=positive_int, ge=1)
    order: Literal["permuted", "fixed", "both"] = option(
        "permuted", "option order: permuted per question (seeded), fixed Correct..Wrong, or both (robustness)")
    statements: str = option("default", "'default' (bundled) or a statements .json/.csv/.txt file")
    key: str | None = option(None, "key for the statements: chatgpt-mbti (the original 60) or a key .json/.csv file")
    limit_statements: int | None = option(None, "ask only the first N statements", parse=positive_int, ge=1)
    answer_mode: Literal["text", "logprob"] = option(
        "text", "text: free reply to the options in words (default); logprob: one letter A-G")
    answer_format: Literal["text", "json"] = option(
        "text", "json: each reply as a JSON object {reasoning, answer} the endpoint constrains to a JSON schema (OpenAI "
                "response_format, vLLM guided decoding, llama.cpp), the answer one of the seven options as shown; text "
                "mode only; text: the paper's free reply (default)")
    seed: int = option(0, "seed of the option permutations")
    temperature: float | None = option(None, parse=non_negative_float, ge=0)
    max_tokens: int | None = option(
        None, "text mode: reply length limit (default: none, the model's own, as the reference); a reply that hits it "
              "is flagged truncated", parse=positive_int, ge=1)
    history: int | None = option(
        None, "keep only the last N exchanges in each conversation (default: all; embedded: 10)", parse=non_negative_int,
        ge=0)
    prefix_reuse: bool = option(False, "embedded: keep the shared prompt prefix in the KV cache")
