"""Administering the MBTI statements: one conversation per subject x order mode x testing.

Each testing answers every statement once, in questionnaire order, in ONE conversation: every
question is sent with the previous questions and answers as history (Rao et al. 2023, Sec. 3.4),
optionally only the last ``history`` exchanges (small context windows). Testings are independent:
their requests carry their testing index as the sample number, so the call cache keeps them
apart (at temperature 0 they may still be identical: that is the model's consistency).

A call that fails after all retries ends its testing: that statement is stored as failed and the
later ones as not asked (valid = 0, reason kept), so ``resume`` asks them again (the earlier
exchanges come from the call cache). An unparseable reply is stored invalid with its raw text and
the conversation goes on; later answers keep their own statement ids, nothing shifts.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Literal

from pydantic import Field

from analysis.llm.client import ChatRequest
from analysis.llm.options import LETTERS, AnswerMode, option_from_logprobs
from analysis.llm.specs import ModelSpec
from analysis.llm.structured import UnstatedTextFormat, read_structured
from analysis.methods.mbti import OPTIONS, schemas
from analysis.methods.mbti.parse import ParsedAnswer, parse_correctness
from analysis.methods.mbti.prompts import OrderMode, letter_question, option_order, option_seed, text_question
from analysis.methods.mbti.scoring import option_weight
from analysis.methods.mbti.statements import Statement, StatementSet
from analysis.methods.mbti.subjects import Subject, replace_subject
from analysis.runs.executor import CallOutcome, Executor, run_units
from analysis.runs.store import Store, Table, register_table
from analysis.methods.mbti import row_rules

ANSWERS = register_table(Table(
    "mbti_answers",
    (("run_id", "TEXT"), ("model", "TEXT"), ("subject", "TEXT"), ("order_mode", "TEXT"), ("testing", "INTEGER"),
     ("seq", "INTEGER"), ("statement_id", "TEXT"), ("dimension", "TEXT"), ("direction", "INTEGER"), ("statement", "TEXT"),
     ("perm_seed", "INTEGER"), ("option_order", "TEXT"), ("mode", "TEXT"), ("letter", "TEXT"), ("option", "TEXT"),
     ("option_index", "INTEGER"), ("weight", "INTEGER"), ("valid", "INTEGER"), ("reason", "TEXT"), ("raw", "TEXT"),
     ("logprob", "REAL"), ("cache_key", "TEXT"), ("source", "TEXT"), ("truncated", "INTEGER")),
    ("run_id", "subject", "order_mode", "testing", "statement_id"),
    row_rules.answer_rules,
))


class MbtiPlan(UnstatedTextFormat):
    """Everything an MBTI run needs, resolved (so ``resume`` repeats it exactly)."""

    method: Literal["mbti"] = "mbti"
    statements: StatementSet
    subjects: list[Subject]
    testings: int = Field(15, ge=1, description="Independent testings per subject and order mode.")
    orders: list[OrderMode] = Field(default_factory=lambda: ["permuted"])
    answer_mode: AnswerMode = "text"
    answer_format: Literal["text", "json"] = Field(
        "text", description="json: each reply as a JSON object {reasoning, answer} constrained by a JSON schema "
                            "(analysis.llm.structured; text mode only); text: the paper's free reply. Left out of the "
                            "stored plan when text (plans stored before the choice existed stay the same configuration).")
    seed: int = 0
    history: int | None = Field(None, ge=0, description="Previous exchanges kept in the conversation; None = all.")
    system: str | None = None
    params: dict[str, Any] = Field(default_factory=dict, description="Generation params (model defaults + overrides).")
    top_logprobs: int = 200
    text_max_tokens: int | None = Field(None, ge=1, description="Text mode reply limit; None = the model's own (the "
                                        "reference sends none). A reply that hits a limit is flagged truncated.")
    prefix_reuse: bool = False

    def n_calls(self) -> int:
        return len(self.subjects) * len(self.orders) * self.testings * len(self.statements.statements)


class MbtiSession:
    """Executes one MbtiPlan with an Executor; writes one mbti_answers row per statement asked."""

    def __init__(self, plan: MbtiPlan, executor: Executor, store: Store, run_id: str, spec: ModelSpec):
        self.plan, self.ex, self.store, self.run_id, self.spec = plan, executor, store, run_id, spec

    def _params(self) -> dict[str, Any]:
        params = dict(self.plan.params)
        if self.plan.answer_mode == "logprob":
            params |= {"max_tokens": 1, "temperature": 0.0, "top_logprobs": self.plan.top_logprobs, "logprobs": True}
        elif self.plan.text_max_tokens is not None:
            params |= {"max_tokens": self.plan.text_max_tokens}
        if self.spec.backend == "embedded":
            params["cache_prompt"] = self.plan.prefix_reuse
        return params

    async def run(self) -> None:
        await run_units((partial(self.testing, subject, order, t) for subject in self.plan.subjects
                         for order in self.plan.orders for t in range(self.plan.testings)), one_at_a_time=self.plan.prefix_reuse)

    async def testing(self, subject: Subject, order_mode: OrderMode, testing: int) -> None:
        """One conversation answering every statement in order."""
        exchanges: list[tuple[str, str]] = []
        statements = self.plan.statements.statements
        for seq, st in enumerate(statements):
            text = replace_subject(st.text, subject)
            permuted = order_mode == "permuted"
            perm_seed = option_seed(self.plan.seed, subject.name, order_mode, testing, st.id) if permuted else None
            order = option_order(order_mode, perm_seed)
            question = (letter_question(text, order) if self.plan.answer_mode == "logprob" else
                        text_question(text, order, self.plan.answer_format))
            kept = exchanges if self.plan.history is None else exchanges[max(0, len(exchanges) - self.plan.history):]
            messages = ([{"role": "system", "content": self.plan.system}] if self.plan.system else []) + [
                m for q, a in kept for m in ({"role": "user", "content": q}, {"role": "assistant", "content": a})
            ] + [{"role": "user", "content": question}]
            unit = f"{subject.name}/{order_mode}/t{testing}/q{st.id}"
            structured = {"response_format": schemas.verdict(order)} if self.plan.answer_format == "json" else {}
            out = await self.ex.call(unit, ChatRequest.build(messages, self._params() | structured, sample=testing))
            row = self._row(subject, order_mode, testing, seq, st, text, perm_seed, order)
            if not out.ok:
                self._stop(row, out, statements[seq + 1:], subject, order_mode, testing, seq)
                return
            parsed, letter, logprob = self._parse(out, text, order)
            # a reply cut by the length limit keeps the verdict read before the cut, flagged and counted
            row |= {"raw": out.reply.text, "cache_key": out.cache_key, "valid": int(parsed.valid),
                    "reason": parsed.reason or None, "letter": letter, "logprob": logprob,
                    "truncated": int(self.plan.answer_mode == "text" and out.reply.finish_reason == "length")}
            if parsed.valid:
                row |= {"option": OPTIONS[parsed.option], "option_index": parsed.option, "weight": option_weight(parsed.option)}
            self.store.upsert(ANSWERS.name, [row])
            if self.plan.answer_mode == "logprob":
                answer = f"{letter}. {OPTIONS[parsed.option]}" if parsed.valid else (out.reply.text.strip() or "...")
            else:
                answer = out.reply.text.strip() or "..."
            exchanges.append((question, answer))

    def _row(self, subject: Subject, order_mode: str, testing: int, seq: int, st: Statement, text: str,
             perm_seed: int | None, order: list[int]) -> dict[str, Any]:
        return {"run_id": self.run_id, "model": self.spec.name, "subject": subject.name, "order_mode": order_mode,
                "testing": testing, "seq": seq, "statement_id": st.id, "dimension": st.dimension, "direction": st.direction,
                "statement": text, "perm_seed": perm_seed, "option_order": order, "mode": self.plan.answer_mode,
                "source": "run"}

    def _parse(self, out: CallOutcome, statement: str, order: list[int]) -> tuple[ParsedAnswer, str | None, float | None]:
        if self.plan.answer_mode == "logprob":
            first = out.reply.top_logprobs[0] if out.reply.top_logprobs else None
            got = option_from_logprobs(first, len(order))
            if not got.valid:
                return ParsedAnswer(None, got.reason), None, None
            return ParsedAnswer(order[got.index]), LETTERS[got.index], got.logprob
        if self.plan.answer_format == "json":
            return read_structured(out.reply.text, schemas.option_of,
                                   lambda reply: parse_correctness(reply, statement)), None, None
        return parse_correctness(out.reply.text, statement), None, None

    def _stop(self, row: dict[str, Any], out: CallOutcome, rest: list[Statement], subject: Subject, order_mode: OrderMode,
              testing: int, seq: int) -> None:
        """The call failed after its retries: store it and the rest of the testing as not answered."""
        rows = [row | {"cache_key": out.cache_key, "valid": 0, "reason": f"call failed: {out.error}"}]
        for n, st in enumerate(rest, seq + 1):
            text = replace_subject(st.text, subject)
            rows.append(self._row(subject, order_mode, testing, n, st, text, None, []) | {
                "valid": 0, "reason": f"not asked: statement {row['statement_id']} failed", "option_order": None})
        self.store.upsert(ANSWERS.name, rows)
        if rest:
            self.ex.progress.update(done=len(rest), skipped=len(rest))


def n_calls(plan: dict[str, Any]) -> int:
    """``Method.n_calls``: the calls a stored plan makes."""
    return MbtiPlan.model_validate(plan).n_calls()


def waves(plan: dict[str, Any]) -> int:
    """``Method.waves``: one testing answers its statements one after another in one conversation (testings, subjects
    and orders side by side): one wave per statement."""
    return len(MbtiPlan.model_validate(plan).statements.statements)


def build_session(plan: dict[str, Any], executor: Executor, store: Store, run_id: str, spec: ModelSpec) -> MbtiSession:
    """``Method.session``: the session of a stored plan."""
    return MbtiSession(MbtiPlan.model_validate(plan), executor, store, run_id, spec)
