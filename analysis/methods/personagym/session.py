"""Running PersonaGym: per persona, environments -> questions -> answers + score examples -> grades.

Three roles, each a model spec: the *agent* (the run's model) answers in persona; the *generator*
picks environments, writes questions and score examples (default: the first evaluator); the
*evaluators* grade (default: the run's model). Other models than the run's get their own Executor
(``Executor.for_model``: same store, run id, progress and retry policy).

Per persona (personas run concurrently; the executor bounds the requests in flight):

1. environments: the generator picks the relevant environments from the list -- as many as it likes
   (the reference), or at most ``environments_per_persona`` when the plan caps them; a reply with no
   known name is retried (new sample index and seed) up to ``max_retries`` times;
2. questions, per task: the generator is asked for the questions still missing until N valid,
   distinct ones are collected or ``1 + max_retries`` attempts are spent; missing slots are stored
   as ``shortfall``. Personas with fixed questions (question files) skip steps 1-2 and use the
   first N questions of each task;
3. per question, concurrently: the agent's answer (refusals flagged; an answer cut by the length
   limit flagged ``truncated``) and the score examples (one generator call per question at
   temperature 0, all five scores parsed from that one reply; ``examples_retries`` extra attempts);
4. per question and evaluator: one grade (the plan's ``judge_system`` as the system message, then the filled
   rubric), parsed from "Therefore, the final score is N". A question
   whose score examples stayed incomplete is graded with the examples that parsed and the rubric's
   criteria (the grade's ``n_examples`` < 5 marks it), unless ``grade_without_examples`` is False
   (then it is not graded).

A call that fails after its retries stores ``failed`` and its dependants ``not_asked`` with the
reason; the run goes on, and ``resume`` asks the failed calls again (finished ones come from the call
cache, and the same replies lead the session down the same path).

Call count: ``n_calls()`` is the number of calls when nothing fails and every generator reply is
usable at its first attempt -- exact then, and a lower bound otherwise. Each retry raises the progress total by one as it is made; calls
not made (a shortfall, dependants of a failure) are counted as done when they are skipped, so the
progress bar ends at done == total.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any, Literal

from pydantic import Field

from analysis.llm.structured import UnstatedTextFormat, response_format

from analysis.llm.client import ChatRequest
from analysis.llm.specs import ModelSpec
from analysis.methods.personagym import TASKS, task_slug
from analysis.methods.personagym.data import Persona, Rubric
from analysis.methods.personagym.parse import (
    detect_refusal,
    match_environments,
    parse_grade,
    parse_list,
    parse_questions,
    parse_score_examples,
    question_key,
)
from analysis.methods.personagym.prompts import (
    JUDGE_SYSTEM,
    agent_messages,
    environment_prompt,
    examples_prompt,
    GRADE_SCHEMA,
    grading_prompt,
    question_prompt,
)
from analysis.methods.personagym.tables import ANSWERS, ENVIRONMENTS, EXAMPLES, GENERATIONS, GRADES, QUESTIONS
from analysis.runs.executor import CallOutcome, Executor
from analysis.runs.store import Store

# Decoding of the reference (github vsamuel2003/PersonaGym): ``code/utils.py`` ``run_model`` defaults
# (temperature 0.9, top_p 0.9, max_tokens 3000) for environment selection, question generation and the agent's
# answers; ``code/run.py`` ``gen_score_examples`` and ``score_rubrics`` call it with temperature 0 (and top_p 0,
# not sent here: at temperature 0 it changes nothing, and vLLM / TGI endpoints refuse top_p 0).
GENERATOR_PARAMS = {"temperature": 0.9, "top_p": 0.9}
AGENT_PARAMS = {"temperature": 0.9, "top_p": 0.9}
EXAMPLES_PARAMS = {"temperature": 0.0}
EVALUATOR_PARAMS = {"temperature": 0.0}
REFERENCE_MAX_TOKENS = 3000


class PersonaGymPlan(UnstatedTextFormat):
    """Everything a PersonaGym run needs, resolved (so ``resume`` repeats it exactly)."""

    method: Literal["personagym"] = "personagym"
    personas: list[Persona]
    environments: list[str]
    rubrics: dict[str, Rubric]
    judge_system: str = Field(JUDGE_SYSTEM, description="The judges' system prompt, as sent: RoleScope's (the bundled "
                                                        "rubrics or a rubrics JSON) or the one of a rubric folder "
                                                        "(the reference's prompts/rubric_grading/sys_prompt.txt).")
    judge_system_source: str = Field("bundled", description="Where judge_system came from (bundled, or its file).")
    answer_format: Literal["text", "json"] = Field(
        "text", description="json: each grade as a JSON object {reasoning, score} constrained by a JSON schema; text: "
                            "'Therefore, the final score is N.' Left out of the stored plan when text (plans stored "
                            "before the choice existed stay the same configuration).")
    questions_per_task: int = Field(10, ge=1)
    environments_per_persona: int | None = Field(
        None, ge=1, description="None = the generator picks as many relevant environments as it likes (the reference); "
                                "N = it is asked for N and at most N are kept.")
    max_retries: int = Field(3, ge=0, description="Extra attempts for environments and questions.")
    examples_retries: int = Field(0, ge=0, description="Extra attempts for incomplete score examples (the reference "
                                                       "makes one call).")
    seed: int = 0
    generator: dict[str, Any] | None = Field(None, description="Public ModelSpec dict; None = the run's model.")
    evaluators: list[dict[str, Any]] = Field(default_factory=list, description="Public ModelSpec dicts; [] = the run's model.")
    agent_params: dict[str, Any] = Field(default_factory=lambda: dict(AGENT_PARAMS),
                                         description="Overrides of the agent spec's params.")
    generator_params: dict[str, Any] = Field(default_factory=lambda: dict(GENERATOR_PARAMS))
    examples_params: dict[str, Any] = Field(default_factory=lambda: dict(EXAMPLES_PARAMS))
    evaluator_params: dict[str, Any] = Field(default_factory=lambda: dict(EVALUATOR_PARAMS))
    answer_max_tokens: int = Field(REFERENCE_MAX_TOKENS, ge=1)
    selection_max_tokens: int = Field(REFERENCE_MAX_TOKENS, ge=1)
    question_max_tokens: int = Field(REFERENCE_MAX_TOKENS, ge=1)
    examples_max_tokens: int = Field(REFERENCE_MAX_TOKENS, ge=1)
    grade_max_tokens: int = Field(REFERENCE_MAX_TOKENS, ge=1)
    grade_without_examples: bool = Field(
        True, description="Grade a question whose score examples stayed incomplete with the examples that parsed and "
                          "the rubric's criteria (marked by the grade's n_examples < 5), as the reference grades every "
                          "question; False = leave it ungraded.")

    def n_evaluators(self) -> int:
        return max(1, len(self.evaluators))

    def n_questions(self, persona: Persona) -> int:
        n = self.questions_per_task
        if persona.questions is not None:
            return sum(min(n, len(persona.questions.get(t, []))) for t in TASKS)
        return n * len(TASKS)

    def n_calls(self) -> int:
        """Calls when nothing fails and every generator reply is usable at once (see module docstring)."""
        per_question = 2 + self.n_evaluators()  # answer, score examples, one grade per evaluator
        return sum((0 if p.questions is not None else 1 + len(TASKS)) + per_question * self.n_questions(p)
                   for p in self.personas)


class PersonaGymSession:
    """Executes one PersonaGymPlan; writes one row per finished unit to the stage tables."""

    def __init__(self, plan: PersonaGymPlan, executor: Executor, store: Store, run_id: str, spec: ModelSpec):
        self.plan, self.agent, self.store, self.run_id, self.spec = plan, executor, store, run_id, spec
        self.generator_spec = ModelSpec.model_validate(plan.generator) if plan.generator else spec
        self.evaluator_specs = [ModelSpec.model_validate(e) for e in plan.evaluators] or [spec]
        self.progress = executor.progress
        self.gen: Executor = executor
        self.evaluators: list[tuple[ModelSpec, Executor]] = []

    async def run(self) -> None:
        # other models' executors are made here (not in __init__), inside the runner's error handling
        self.gen = self.agent.for_model(self.generator_spec)
        self.evaluators = [(s, self.agent.for_model(s)) for s in self.evaluator_specs]
        await asyncio.gather(*(self.persona(p) for p in self.plan.personas))

    # -- helpers ----------------------------------------------------------------------------------
    def _seed(self, *parts: object) -> int:
        digest = hashlib.sha256("|".join(map(str, (self.plan.seed, *parts))).encode("utf-8")).hexdigest()
        return int(digest[:8], 16) % 2**31

    def _gen_params(self, max_tokens: int, *seed_parts: object, decoding: dict[str, Any] | None = None) -> dict[str, Any]:
        fixed = {"max_tokens": max_tokens, "seed": self._seed(*seed_parts)}
        return self.generator_spec.params | (self.plan.generator_params if decoding is None else decoding) | fixed

    def _add_total(self, n: int) -> None:
        self.progress.update(total=self.progress.snapshot().total + n)

    def _skip(self, n: int) -> None:
        if n:
            self.progress.update(done=n, skipped=n)

    def _base(self, p: Persona, model: str) -> dict[str, Any]:
        return {"run_id": self.run_id, "model": model, "persona_id": p.id, "persona": p.description}

    def _per_question(self) -> int:
        return 2 + len(self.evaluator_specs)

    # -- stages -----------------------------------------------------------------------------------
    async def persona(self, p: Persona) -> None:
        n = self.plan.questions_per_task
        if p.questions is not None:
            questions = {t: [(q, None) for q in p.questions.get(t, [])[:n]] for t in TASKS}
            self.store.upsert(QUESTIONS.name, [
                self._base(p, "file") | {"task": t, "q_index": i, "question": q, "environments": [], "status": "ok",
                                         "source": "file"}
                for t in TASKS for i, (q, _) in enumerate(questions[t])])
            environments: list[str] = []
        else:
            environments, reason = await self.select_environments(p)
            if not environments:
                self.store.upsert(QUESTIONS.name, [
                    self._base(p, self.generator_spec.name) | {"task": t, "q_index": i, "status": "not_asked",
                                                              "reason": f"not asked: {reason}", "source": "run"}
                    for t in TASKS for i in range(n)])
                self._skip(len(TASKS) + n * len(TASKS) * self._per_question())
                return
            got = await asyncio.gather(*(self.generate(p, t, environments) for t in TASKS))
            questions = dict(zip(TASKS, got))
        await asyncio.gather(*(self.question(p, t, i, q) for t in TASKS for i, (q, _) in enumerate(questions[t])))

    async def select_environments(self, p: Persona) -> tuple[list[str], str]:
        """The environments picked for ``p`` ([] and the reason when none could be had)."""
        k = self.plan.environments_per_persona
        reason = "no environment selected"
        for attempt in range(1 + self.plan.max_retries):
            if attempt:
                self._add_total(1)
            params = self._gen_params(self.plan.selection_max_tokens, "environments", p.id, attempt)
            request = ChatRequest.build(environment_prompt(p.description, self.plan.environments, k), params,
                                        sample=attempt)
            out = await self.gen.call(f"{p.id}/environments/a{attempt}", request)
            row = self._base(p, self.generator_spec.name) | {"attempt": attempt, "cache_key": out.cache_key}
            if not out.ok:
                self.store.upsert(ENVIRONMENTS.name, [row | {"status": "failed", "reason": f"call failed: {out.error}"}])
                return [], f"environment selection failed: {out.error}"
            parsed = parse_list(out.reply.text, split_commas=True)
            match = match_environments(parsed.items, self.plan.environments, k)
            reason = _cut(f"no known environment in the reply ({len(match.unknown)} unknown names)" if parsed.items
                          else "no list in the reply", out)
            self.store.upsert(ENVIRONMENTS.name, [row | {
                "status": "ok" if match.selected else "invalid", "selected": match.selected, "n_selected": len(match.selected),
                "unknown": match.unknown, "n_unknown": len(match.unknown), "n_duplicates": match.duplicates,
                "n_extra": len(match.extra), "form": parsed.form, "raw": out.reply.text,
                "reason": None if match.selected else reason}])
            if match.selected:
                return match.selected, ""
        return [], f"no environment selected after {1 + self.plan.max_retries} attempts ({reason})"

    async def generate(self, p: Persona, task: str, environments: list[str]) -> list[tuple[str, int]]:
        """Up to N valid, distinct questions for one task, as (question, attempt); shortfall stored."""
        n, rubric = self.plan.questions_per_task, self.plan.rubrics[task]
        accepted: list[tuple[str, int]] = []
        seen: set[str] = set()
        reason, attempts = "", 0
        for attempt in range(1 + self.plan.max_retries):
            if attempt:
                self._add_total(1)
            attempts += 1
            need = n - len(accepted)
            params = self._gen_params(self.plan.question_max_tokens, "questions", p.id, task, attempt)
            request = ChatRequest.build(question_prompt(p.description, environments, rubric, need), params, sample=attempt)
            out = await self.gen.call(f"{p.id}/{task_slug(task)}/questions/a{attempt}", request)
            row = self._base(p, self.generator_spec.name) | {"task": task, "attempt": attempt, "n_asked": need,
                                                            "cache_key": out.cache_key}
            if not out.ok:
                self.store.upsert(GENERATIONS.name, [row | {"status": "failed", "reason": f"call failed: {out.error}"}])
                reason = f"question generation failed: {out.error}"
                break
            parsed = parse_questions(out.reply.text, seen)
            new = parsed.questions[:need]
            seen.update(question_key(q) for q in new)
            accepted += [(q, attempt) for q in new]
            self.store.upsert(GENERATIONS.name, [row | {
                "status": "ok" if new else "invalid", "n_parsed": parsed.n_parsed, "n_new": len(new),
                "rejected": parsed.rejected, "form": parsed.form, "raw": out.reply.text,
                "reason": None if new else _cut("no list in the reply" if parsed.form == "none" else "no valid new question",
                                                out)}])
            if len(accepted) >= n:
                break
        missing = n - len(accepted)
        if missing and not reason:
            reason = f"{len(accepted)} of {n} valid questions after {attempts} attempts"
        rows = [self._base(p, self.generator_spec.name) | {
            "task": task, "q_index": i, "question": q, "environments": environments, "attempt": a, "status": "ok",
            "source": "run"} for i, (q, a) in enumerate(accepted)]
        rows += [self._base(p, self.generator_spec.name) | {
            "task": task, "q_index": i, "environments": environments, "status": "shortfall", "reason": reason,
            "source": "run"} for i in range(len(accepted), n)]
        self.store.upsert(QUESTIONS.name, rows)
        self._skip(missing * self._per_question())
        return accepted

    async def question(self, p: Persona, task: str, i: int, question: str) -> None:
        """Answer and score examples (concurrently), then one grade per evaluator."""
        (answer, why_not_answer), (examples, complete, why_not_examples) = await asyncio.gather(
            self.answer(p, task, i, question), self.examples(p, task, i, question))
        usable = examples is not None and (complete or self.plan.grade_without_examples)
        if answer is None or not usable:
            reason = f"not asked: {why_not_answer or why_not_examples}"
            self.store.upsert(GRADES.name, [
                self._base(p, self.spec.name) | {"evaluator": spec.name, "task": task, "q_index": i, "status": "not_asked",
                                                 "reason": reason} for spec, _ in self.evaluators])
            self._skip(len(self.evaluators))
            return
        await asyncio.gather(*(self.grade(p, task, i, question, answer, examples, spec, ex) for spec, ex in self.evaluators))

    async def answer(self, p: Persona, task: str, i: int, question: str) -> tuple[str | None, str]:
        # a seed per answer (the spec's or the plan's own seed wins) so that a sampled run repeats and resumes exactly
        params = ({"seed": self._seed("answer", p.id, task, i)} | self.spec.params | self.plan.agent_params
                  | {"max_tokens": self.plan.answer_max_tokens})
        request = ChatRequest.build(agent_messages(p.description, question), params)
        out = await self.agent.call(f"{p.id}/{task_slug(task)}/q{i}/answer", request)
        row = self._base(p, self.spec.name) | {"task": task, "q_index": i, "question": question, "cache_key": out.cache_key}
        if not out.ok:
            self.store.upsert(ANSWERS.name, [row | {"status": "failed", "reason": f"call failed: {out.error}"}])
            return None, f"answer failed: {out.error}"
        marker = detect_refusal(out.reply.text)
        self.store.upsert(ANSWERS.name, [row | {
            "status": "ok", "answer": out.reply.text, "finish_reason": out.reply.finish_reason,
            "refusal": int(marker is not None), "refusal_marker": marker,
            "truncated": int(out.reply.finish_reason == "length")}])
        return out.reply.text, ""

    async def examples(self, p: Persona, task: str, i: int, question: str) -> tuple[dict[str, str] | None, bool, str]:
        """(examples, complete, reason): the five score examples for one question, retried while incomplete;
        when they stay incomplete, the most complete set parsed; None when a call failed."""
        rubric = self.plan.rubrics[task]
        reason = ""
        best: dict[str, str] = {}
        for attempt in range(1 + self.plan.examples_retries):
            if attempt:
                self._add_total(1)
            params = self._gen_params(self.plan.examples_max_tokens, "examples", p.id, task, i, attempt,
                                      decoding=self.plan.examples_params)
            request = ChatRequest.build(examples_prompt(p.description, question, rubric), params, sample=attempt)
            out = await self.gen.call(f"{p.id}/{task_slug(task)}/q{i}/examples/a{attempt}", request)
            row = self._base(p, self.generator_spec.name) | {"task": task, "q_index": i, "attempt": attempt,
                                                            "cache_key": out.cache_key}
            if not out.ok:
                self.store.upsert(EXAMPLES.name, [row | {"status": "failed", "reason": f"call failed: {out.error}"}])
                return None, False, f"score examples failed: {out.error}"
            parsed = parse_score_examples(out.reply.text)
            self.store.upsert(EXAMPLES.name, [row | {
                "status": "ok" if parsed.valid else "invalid", "examples": parsed.examples, "n_examples": len(parsed.examples),
                "raw": out.reply.text, "reason": None if parsed.valid else _cut(parsed.reason or "unparseable", out)}])
            if parsed.valid:
                return parsed.examples, True, ""
            reason = _cut(parsed.reason or "unparseable", out)
            if len(parsed.examples) > len(best):
                best = parsed.examples
        return best, False, f"no complete score examples after {1 + self.plan.examples_retries} attempts ({reason})"

    async def grade(self, p: Persona, task: str, i: int, question: str, answer: str, examples: dict[str, str],
                    spec: ModelSpec, ex: Executor) -> None:
        params = spec.params | self.plan.evaluator_params | {"max_tokens": self.plan.grade_max_tokens}
        if self.plan.answer_format == "json":
            params |= {"response_format": response_format("personagym_grade", GRADE_SCHEMA)}
        messages = grading_prompt(p.description, question, answer, self.plan.rubrics[task], examples,
                                  system=self.plan.judge_system, answer_format=self.plan.answer_format)
        out: CallOutcome = await ex.call(f"{p.id}/{task_slug(task)}/q{i}/grade/{spec.name}", ChatRequest.build(messages, params))
        row = self._base(p, self.spec.name) | {"evaluator": spec.name, "task": task, "q_index": i, "cache_key": out.cache_key,
                                               "n_examples": len(examples)}
        if not out.ok:
            self.store.upsert(GRADES.name, [row | {"status": "failed", "reason": f"call failed: {out.error}"}])
            return
        grade = parse_grade(out.reply.text)
        self.store.upsert(GRADES.name, [row | {"status": "ok" if grade.valid else "invalid", "score": grade.score,
                                               "raw": out.reply.text,
                                               "reason": None if grade.valid else _cut(grade.reason or "unparseable", out)}])


def _cut(reason: str, out: CallOutcome) -> str:
    """An invalid reply's reason, saying when the reply was cut by the length limit (what it lacks may be past the cut)."""
    return f"{reason} (the reply hit the length limit)" if out.reply is not None and out.reply.finish_reason == "length" \
        else reason


def plan_json(plan: PersonaGymPlan) -> dict[str, Any]:
    """The plan as the JSON-ready dict stored with a run."""
    return json.loads(plan.model_dump_json())


def n_calls(plan: dict[str, Any]) -> int:
    """``Method.n_calls``: the calls a stored plan makes."""
    return PersonaGymPlan.model_validate(plan).n_calls()


def waves(plan: dict[str, Any]) -> int:
    """``Method.waves``: environments, then questions (every task at once), then answers with score examples, then
    grades (every evaluator at once): 4; personas with fixed questions start at the answers: 2. A generator reply that
    cannot be read is asked again (one more wave per attempt)."""
    p = PersonaGymPlan.model_validate(plan)
    return 2 if all(persona.questions is not None for persona in p.personas) else 4


def build_session(plan: dict[str, Any], executor: Executor, store: Store, run_id: str,
                  spec: ModelSpec) -> PersonaGymSession:
    """``Method.session``: the session of a stored plan."""
    return PersonaGymSession(PersonaGymPlan.model_validate(plan), executor, store, run_id, spec)


def tokens(plan: dict[str, Any]) -> str:
    """``Method.tokens``: not modelled (questions and grades hold replies before them)."""
    return "not modelled: its prompts hold replies not yet made; measured after a first run"
