"""Administering a value questionnaire to simulated personas in conversation contexts.

For each persona x context: simulate the conversation (persona agent and interlocutor take turns;
the first message is the context's opening), then ask every item independently after that same
conversation, options permuted with a seed derived from (run seed, persona, context, item). SVS
follows its two-list procedure: per list, pick and rate the most important value, pick and rate
the most opposed one, then rate the rest with those exchanges in the history (Schwartz 1992).
"""

from __future__ import annotations

import asyncio
from functools import partial
import hashlib
import random
import re
from typing import Any

from pydantic import BaseModel, Field

from analysis.llm.client import ChatRequest
from analysis.llm.options import AnswerMode, ParsedOption, option_from_logprobs, parse_option_text
from analysis.llm.specs import ModelSpec
from analysis.runs.executor import CallOutcome, Executor, run_units
from analysis.runs.store import Store, Table, register_table
from analysis.values import prompts
from analysis.values.contexts import Context
from analysis.values.instruments import Instrument, Item
from analysis.values.populations import Persona

ANSWERS = register_table(Table(
    "values_answers",
    (("run_id", "TEXT"), ("model", "TEXT"), ("persona_id", "INTEGER"), ("persona", "TEXT"), ("gender", "TEXT"),
     ("context", "TEXT"), ("instrument", "TEXT"), ("item_id", "TEXT"), ("value", "TEXT"), ("list_no", "INTEGER"),
     ("stage", "TEXT"), ("sample", "INTEGER"), ("perm_seed", "INTEGER"), ("option_order", "TEXT"),
     ("letter", "TEXT"), ("option_label", "TEXT"), ("score", "REAL"), ("valid", "INTEGER"), ("reason", "TEXT"),
     ("mode", "TEXT"), ("logprob", "REAL"), ("raw", "TEXT"), ("cache_key", "TEXT")),
    ("run_id", "persona_id", "context", "item_id", "sample"),
))
CONVERSATIONS = register_table(Table(
    "values_conversations",
    (("run_id", "TEXT"), ("persona_id", "INTEGER"), ("context", "TEXT"), ("turn", "INTEGER"), ("speaker", "TEXT"),
     ("content", "TEXT"), ("valid", "INTEGER"), ("cache_key", "TEXT")),
    ("run_id", "persona_id", "context", "turn"),
))


class ValuesPlan(BaseModel):
    """Everything a values run needs, resolved (so ``resume`` repeats it exactly)."""

    method: str = "values"
    population: str
    personas: list[Persona]
    instrument: Instrument
    contexts: list[Context]
    messages: int = Field(3, ge=1, description="Conversation length including the opening (no_conv: none).")
    answer_mode: AnswerMode = "logprob"
    samples: int = Field(1, ge=1)
    seed: int = 0
    # Prefix reuse = llama.cpp ``cache_prompt`` (sent to the embedded backend only): items asked after the same
    # conversation reuse the KV cache of persona prompt + conversation. bench/bench_prefix.py (bench/README.md):
    # 4.0-5.4x fewer prompt tokens processed, ~2.5x less wall time, and no argmax answer changed (0/120). But the
    # numerics change: on identical prompts, letter logprobs moved by up to 0.36 (0.20 on the chosen letter) and
    # the order of the six letters changed in 9/40 items; greedy conversation turns changed too, and the
    # result depends on what the server processed before. The tiny model's argmax margins (>= 0.79) hid this;
    # a model with closer options would flip answers. So it stays off: repeats stay bit-identical.
    prefix_reuse: bool = Field(False, description="Embedded: reuse the shared prefix's KV cache (faster, not bit-identical).")
    top_logprobs: int = 200
    params: dict[str, Any] = Field(default_factory=dict, description="Generation params (model defaults + overrides).")
    persona_max_tokens: int = 160
    interlocutor_max_tokens: int = 60
    text_max_tokens: int = 48

    def n_calls(self) -> int:
        """Calls the plan makes: conversation turns after the opening + items (+4 picks per SVS run)."""
        per_persona = 0
        for ctx in self.contexts:
            turns = 0 if ctx.kind == "no_conv" else self.messages - 1
            picks = 2 * len({i.list_no for i in self.instrument.items}) if self.instrument.kind == "svs" else 0
            per_persona += turns + (len(self.instrument.items) + picks) * self.samples
        return per_persona * len(self.personas)


def option_seed(seed: int, persona_id: int, context: str, item_id: str, sample: int) -> int:
    digest = hashlib.sha256(f"{seed}|{persona_id}|{context}|{item_id}|{sample}".encode()).hexdigest()
    return int(digest[:12], 16)


def permuted_options(instrument: Instrument, perm_seed: int) -> list[int]:
    order = list(range(len(instrument.options)))
    random.Random(perm_seed).shuffle(order)
    return order


class ValuesSession:
    """Executes one ValuesPlan with an Executor; writes answers and conversations to the store."""

    def __init__(self, plan: ValuesPlan, executor: Executor, store: Store, run_id: str, spec: ModelSpec):
        self.plan, self.ex, self.store, self.run_id, self.spec = plan, executor, store, run_id, spec

    # -- request params -----------------------------------------------------------------------
    def _params(self, **overrides: Any) -> dict[str, Any]:
        params = dict(self.plan.params) | overrides
        if self.spec.backend == "embedded":
            params["cache_prompt"] = self.plan.prefix_reuse
        return params

    def _answer_params(self) -> dict[str, Any]:
        if self.plan.answer_mode == "logprob":
            return self._params(max_tokens=1, temperature=0.0, top_logprobs=self.plan.top_logprobs, logprobs=True)
        return self._params(max_tokens=self.plan.text_max_tokens)

    # -- orchestration ------------------------------------------------------------------------
    async def run(self) -> None:
        await run_units((partial(self._persona_context, p, c) for c in self.plan.contexts for p in self.plan.personas),
                        one_at_a_time=self.plan.prefix_reuse)

    async def _persona_context(self, persona: Persona, ctx: Context) -> None:
        history, failure = await self._conversation(persona, ctx)
        if failure is not None:
            self._skip_items(persona, ctx, failure)
            return
        base = [{"role": "system", "content": prompts.persona_system(persona)}, *history]
        for sample in range(self.plan.samples):
            if self.plan.instrument.kind == "svs":
                await asyncio.gather(*(self._svs_list(persona, ctx, base, n, sample)
                                       for n in sorted({i.list_no for i in self.plan.instrument.items})))
            else:
                await asyncio.gather(*(self._ask(persona, ctx, base, item, sample, "item") for item in self.plan.instrument.items))

    def _skip_items(self, persona: Persona, ctx: Context, failure: str) -> None:
        """A conversation turn failed: its items are stored as not asked (resume will ask them)."""
        inst = self.plan.instrument
        rows = [
            {"run_id": self.run_id, "model": self.spec.name, "persona_id": persona.id, "persona": persona.name,
             "gender": persona.gender, "context": ctx.label, "instrument": inst.name, "item_id": item.id,
             "value": item.value, "list_no": item.list_no, "stage": "item", "sample": sample, "mode": self.plan.answer_mode,
             "valid": 0, "reason": f"not asked: {failure}"}
            for sample in range(self.plan.samples) for item in inst.items
        ]
        self.store.upsert(ANSWERS.name, rows)
        picks = 2 * len({i.list_no for i in inst.items}) if inst.kind == "svs" else 0
        moot = (len(inst.items) + picks) * self.plan.samples
        self.ex.progress.update(done=moot, skipped=moot)

    async def _conversation(self, persona: Persona, ctx: Context) -> tuple[list[dict[str, str]], str | None]:
        """Messages from the persona's point of view (interlocutor = user, persona = assistant),
        or the failure that stopped the conversation."""
        opening = ctx.opening_for(persona.id)
        if opening is None:
            return [], None
        turns: list[tuple[str, str]] = [("interlocutor", opening)]
        rows = [self._turn_row(persona, ctx, 0, "interlocutor", opening, True, None)]
        if ctx.interlocutor == "persona":
            others = self.plan.personas
            partner = others[(persona.id + 1) % len(others)] if len(others) > 1 else persona
            interlocutor_system = prompts.other_persona_system(partner)
        else:
            interlocutor_system = prompts.human_user_system()
        for t in range(1, self.plan.messages):
            speaker = "persona" if t % 2 == 1 else "interlocutor"
            if speaker == "persona":
                system, me, max_tokens = prompts.persona_system(persona), "persona", self.plan.persona_max_tokens
            else:
                system, me, max_tokens = interlocutor_system, "interlocutor", self.plan.interlocutor_max_tokens
            msgs = [{"role": "system", "content": system}] + [
                {"role": "assistant" if who == me else "user", "content": text} for who, text in turns
            ]
            out = await self.ex.call(f"{ctx.label}/p{persona.id}/turn{t}",
                                     ChatRequest.build(msgs, self._params(max_tokens=max_tokens)))
            if not out.ok:
                self.ex.progress.update(done=self.plan.messages - 1 - t, skipped=self.plan.messages - 1 - t)  # the turns that will not be taken
                rows.append(self._turn_row(persona, ctx, t, speaker, "", False, out.cache_key))
                self.store.upsert(CONVERSATIONS.name, rows)
                return [], f"conversation turn {t} failed: {out.error}"
            # an empty turn stays in the conversation as "..." (flagged invalid) rather than breaking alternation
            text = out.reply.text.strip() or "..."
            turns.append((speaker, text))
            rows.append(self._turn_row(persona, ctx, t, speaker, text, bool(out.reply.text.strip()), out.cache_key))
        self.store.upsert(CONVERSATIONS.name, rows)
        return [{"role": "assistant" if who == "persona" else "user", "content": text} for who, text in turns], None

    def _turn_row(self, persona: Persona, ctx: Context, turn: int, speaker: str, content: str, valid: bool, key: str | None) -> dict[str, Any]:
        return {"run_id": self.run_id, "persona_id": persona.id, "context": ctx.label, "turn": turn, "speaker": speaker,
                "content": content, "valid": int(valid), "cache_key": key}

    @staticmethod
    def _with_question(base: list[dict[str, str]], question: str) -> list[dict[str, str]]:
        # the conversation may end on the interlocutor's turn: keep user/assistant alternation
        if base and base[-1]["role"] == "user":
            return [*base[:-1], {"role": "user", "content": f"{base[-1]['content']}\n\n{question}"}]
        return [*base, {"role": "user", "content": question}]

    async def _ask(self, persona: Persona, ctx: Context, base: list[dict[str, str]], item: Item, sample: int,
                   stage: str) -> tuple[dict[str, Any], list[dict[str, str]]]:
        """Ask one item; store its answer row; return it and the history including the answer."""
        inst = self.plan.instrument
        perm_seed = option_seed(self.plan.seed, persona.id, ctx.label, item.id, sample)
        order = permuted_options(inst, perm_seed)
        labels = [inst.options[k].label for k in order]
        question = prompts.item_question(inst, item, persona.gender, labels)
        msgs = self._with_question(base, question)
        out = await self.ex.call(f"{ctx.label}/p{persona.id}/item{item.id}/s{sample}",
                                 ChatRequest.build(msgs, self._answer_params(), sample=sample))
        parsed = self._parse(out, labels)
        row = {
            "run_id": self.run_id, "model": self.spec.name, "persona_id": persona.id, "persona": persona.name,
            "gender": persona.gender, "context": ctx.label, "instrument": inst.name, "item_id": item.id,
            "value": item.value, "list_no": item.list_no, "stage": stage, "sample": sample, "perm_seed": perm_seed,
            "option_order": [inst.options[k].score for k in order], "mode": self.plan.answer_mode,
            "raw": out.reply.text if out.ok else None, "cache_key": out.cache_key, "valid": int(parsed.valid),
            "reason": parsed.reason or None, "logprob": parsed.logprob,
        }
        if parsed.valid:
            option = inst.options[order[parsed.index]]
            row |= {"letter": prompts.LETTERS[parsed.index], "option_label": option.label, "score": option.score}
        self.store.upsert(ANSWERS.name, [row])
        answer_text = f"{row['letter']}. {row['option_label']}" if parsed.valid else (row["raw"] or "")
        return row, [*msgs, {"role": "assistant", "content": answer_text}]

    def _parse(self, out: CallOutcome, labels: list[str]) -> ParsedOption:
        if not out.ok:
            return ParsedOption(None, f"call failed: {out.error}")
        if self.plan.answer_mode == "logprob":
            first = out.reply.top_logprobs[0] if out.reply.top_logprobs else None
            return option_from_logprobs(first, len(labels))
        return parse_option_text(out.reply.text, labels)

    # -- SVS ----------------------------------------------------------------------------------
    async def _svs_list(self, persona: Persona, ctx: Context, base: list[dict[str, str]], list_no: int, sample: int) -> None:
        items = [i for i in self.plan.instrument.items if i.list_no == list_no]
        history = list(base)
        rated: set[str] = set()
        for which in ("most", "least"):
            question = prompts.svs_pick_question(items, which)
            msgs = self._with_question(history, question)
            pick_params = self._params(max_tokens=self.plan.text_max_tokens, **({"temperature": 0.0} if self.plan.answer_mode == "logprob" else {}))
            out = await self.ex.call(f"{ctx.label}/p{persona.id}/svs{list_no}/pick_{which}/s{sample}",
                                     ChatRequest.build(msgs, pick_params, sample=sample))
            picked, reason = parse_svs_pick(out.reply.text if out.ok else None, items, exclude=rated)
            if not out.ok:
                reason = f"call failed: {out.error}"
            self.store.upsert(ANSWERS.name, [{
                "run_id": self.run_id, "model": self.spec.name, "persona_id": persona.id, "persona": persona.name,
                "gender": persona.gender, "context": ctx.label, "instrument": self.plan.instrument.name,
                "item_id": f"pick_{which}_L{list_no}", "value": picked.value if picked else None, "list_no": list_no,
                "stage": f"svs_pick_{which}", "sample": sample, "mode": "text", "raw": out.reply.text if out.ok else None,
                "option_label": picked.id if picked else None, "cache_key": out.cache_key,
                "valid": int(picked is not None), "reason": reason,
            }])
            history = msgs + [{"role": "assistant", "content": out.reply.text if out.ok else ""}]
            if picked is not None:
                _, history = await self._ask(persona, ctx, history, picked, sample, f"svs_{which}")
                rated.add(picked.id)
        await asyncio.gather(*(self._ask(persona, ctx, history, item, sample, "svs_rest") for item in items if item.id not in rated))


def parse_svs_pick(text: str | None, items: list[Item], exclude: set[str] = frozenset()) -> tuple[Item | None, str | None]:
    """The list item a reply names: by its NAME (the part before the parenthesis) or its number.

    Names written as displayed (upper case) are looked for first, so ordinary words in the prose
    ("to be honest", "healthy") are not a second value when the answer is spelled "FREEDOM"; then
    names in any case; then a leading number ("5", "5. ...") or "number 5" / "#5". A name found only
    inside a longer matched name ("POWER" in "SOCIAL POWER") is not a second value. Already rated
    items (``exclude``) are ignored. Two values named -> invalid.
    """
    if not text or not text.strip():
        return None, "empty reply"
    names = {it.id: it.wording("any").split("(")[0].strip() for it in items}
    named: list[Item] = []
    for haystack, case in ((text, str.upper), (text.lower(), str.lower)):
        spans = {it.id: [m.span() for m in re.finditer(rf"(?<![A-Za-z]){re.escape(case(names[it.id]))}(?![A-Za-z])", haystack)]
                 for it in items if names[it.id]}
        spans = {k: v for k, v in spans.items() if v}
        named = [it for it in items if it.id in spans and it.id not in exclude and not _all_nested(spans[it.id], spans, it.id)]
        if named:
            break
    if not named:
        numbers = {int(next(g for g in m.groups() if g)) for m in re.finditer(
            r"\A\s*(\d{1,2})\b|\b(?:number|no\.)\s*(\d{1,2})\b|#\s*(\d{1,2})\b", text, re.IGNORECASE)}
        named = [it for n, it in enumerate(items, 1) if n in numbers and it.id not in exclude]
    if len(named) == 1:
        return named[0], None
    return None, "no value of the list named" if not named else "several values named"


def _all_nested(own: list[tuple[int, int]], spans: dict[str, list[tuple[int, int]]], own_id: str) -> bool:
    """Every occurrence lies inside a longer occurrence of another name."""
    return all(any(other != own_id and a <= s and e <= b and b - a > e - s for other, found in spans.items() for a, b in found)
               for s, e in own)
