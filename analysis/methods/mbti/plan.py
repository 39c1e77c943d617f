"""Building an MBTI plan from the run options (``run mbti``, the demo and the tests share it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from analysis.errors import InputError
from analysis.llm.options import AnswerMode
from analysis.llm.specs import ModelSpec
from analysis.methods.mbti import OPTIONS
from analysis.methods.mbti.session import MbtiPlan
from analysis.methods.mbti.statements import load_statements
from analysis.methods.mbti.subjects import DEFAULT_SUBJECTS, background_subjects, subject_from

OrderChoice = Literal["permuted", "fixed", "both"]
# The embedded model serves a 4096-token context: a whole 60-statement conversation does not fit.
EMBEDDED_HISTORY = 10


def build_mbti_plan(
    spec: ModelSpec,
    *,
    subjects: list[str] | None = None,
    testings: int = 15,
    order: OrderChoice = "permuted",
    statements: str | Path = "default",
    key: str | Path | None = None,
    limit_statements: int | None = None,
    answer_mode: AnswerMode = "text",
    seed: int = 0,
    history: int | None = None,
    text_max_tokens: int | None = None,
    prefix_reuse: bool = False,
    params: dict[str, Any] | None = None,
    backgrounds: list[str] | None = None,
    answer_format: str = "text",
) -> MbtiPlan:
    """Resolve every source now, so the stored plan is self-contained. ``backgrounds`` (income, age, education) adds
    the background subjects of those categories (the paper's Table 4) after ``subjects`` (default: none then).
    ``answer_format`` 'json': each reply as a JSON object {reasoning, answer} constrained by its schema (text mode)."""
    if answer_format not in ("text", "json"):
        raise InputError(f"--answer-format '{answer_format}': use text or json")
    if answer_format == "json" and answer_mode == "logprob":
        raise InputError("--answer-format json asks for a JSON reply; --answer-mode logprob reads one token's logprobs "
                         "(use --answer-mode text)")
    try:
        extra = background_subjects(list(backgrounds or []))
    except ValueError as exc:
        raise InputError(f"--background: {exc}") from None
    chosen = subjects if subjects is not None or extra else list(DEFAULT_SUBJECTS)
    names = [s.strip() for s in (chosen or []) if s.strip()]
    if not names and not extra:
        raise InputError("--subjects: give at least one subject, e.g. People,Men,Women")
    lowered = [n.lower() for n in names] + [b.name.lower() for b in extra]
    if len(set(lowered)) != len(lowered):
        raise InputError(f"--subjects lists a subject twice: {names}")
    if testings < 1:
        raise InputError("--testings must be >= 1")
    if order not in ("permuted", "fixed", "both"):
        raise InputError(f"--order '{order}': use permuted, fixed or both")
    if history is not None and history < 0:
        raise InputError("--history must be >= 0")
    if text_max_tokens is not None and text_max_tokens < 1:
        raise InputError("--max-tokens must be >= 1")
    if answer_mode == "logprob" and spec.max_top_logprobs < len(OPTIONS):
        raise InputError(f"model {spec.name} returns at most {spec.max_top_logprobs} top logprobs; use --answer-mode text")
    stset = load_statements(statements, key).limited(limit_statements)
    if not stset.keyed:
        raise InputError(f"--limit-statements {limit_statements} keeps no statement keyed to a dimension; nothing "
                         "could be scored")
    if history is None and spec.backend == "embedded":
        history = EMBEDDED_HISTORY
    return MbtiPlan(
        statements=stset, subjects=[subject_from(n) for n in names] + extra, testings=testings,
        orders=["permuted", "fixed"] if order == "both" else [order], answer_mode=answer_mode, seed=seed,
        history=history, params=spec.params | (params or {}), top_logprobs=min(200, spec.max_top_logprobs),
        text_max_tokens=text_max_tokens, prefix_reuse=prefix_reuse, answer_format=answer_format,
    )
