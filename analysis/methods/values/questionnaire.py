"""Administering a value questionnaire to simulated personas in conversation contexts.

The reference protocol (flowersteam/value_stability, the Stick to Your Role! leaderboard) is the default:

- **Conversation** (``structure="reference"``, ``simulate_conversation_utils.py:simulate_conversation``): after
  the context's opening (the interlocutor's), ``messages`` generated messages alternate persona, interlocutor,
  persona...; the number is odd so the persona speaks last. Turns are sampled at ``conversation_temperature``
  (0.7) with ``conversation_max_tokens`` (100) for both speakers (``models/leaderboard_configs/*.json``). The
  interlocutor is a human user of a chatbot, or, for shared openings (chess, grammar), another persona of the
  population given by a seeded random derangement per context (``interlocutors/real_world_people/``).
- **Items** (``evaluate.py:eval``): each item is a new user message after the conversation, asked
  independently, options permuted with a seed derived from (run seed, persona, context, item, sample); answers at
  ``answer_temperature`` 0 in every answer mode: ``logprob`` (the letter after "(", see
  ``analysis.llm.options.option_after_paren``), ``text`` ("(X)" in at most 10 tokens) or ``cot`` (reasoning,
  then "Answer: (X)" within 2000 tokens, read after the single marker).
- **SVS** (``svs_utils.py``): per list, from the conversation: pick the most important value and rate it, pick
  the most opposed one among the others and rate it, then rate the rest one after another, every exchange kept
  in the history (``svs_order="sequential"``).

``structure="appended"`` is RoleScope's earlier protocol (``messages`` counts the opening, a question glued onto
the interlocutor's last message), kept for stored runs and as an option. Deliberate differences from the
reference are listed in docs/methods/values.md: invalid answers stay invalid (the reference draws a random letter), SVS picks
are asked by number and name, conversation turns are seeded.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import partial
import hashlib
import random
import re
from typing import Any, Literal

from pydantic import Field, model_validator

from analysis.llm.client import ChatRequest
from analysis.llm.options import (ANSWER_MARKER, LETTERS, ParsedOption, option_after_paren, option_from_logprobs,
                                  parse_after_marker, parse_option_text)
from analysis.llm.specs import ModelSpec
from analysis.llm.structured import UnstatedTextFormat, read_structured
from analysis.runs.executor import CallOutcome, Executor, run_units
from analysis.runs.store import Store, Table, register_table
from analysis.methods.values import prompts, row_rules, schemas
from analysis.methods.values.contexts import Context
from analysis.methods.values.instruments import Instrument, Item
from analysis.methods.values.populations import Persona
ANSWERS = register_table(Table(
    "values_answers",
    (("run_id", "TEXT"), ("model", "TEXT"), ("persona_id", "INTEGER"), ("persona", "TEXT"), ("gender", "TEXT"),
     ("context", "TEXT"), ("instrument", "TEXT"), ("item_id", "TEXT"), ("value", "TEXT"), ("list_no", "INTEGER"),
     ("stage", "TEXT"), ("sample", "INTEGER"), ("perm_seed", "INTEGER"), ("option_order", "TEXT"),
     ("letter", "TEXT"), ("option_label", "TEXT"), ("score", "REAL"), ("valid", "INTEGER"), ("reason", "TEXT"),
     ("mode", "TEXT"), ("logprob", "REAL"), ("raw", "TEXT"), ("cache_key", "TEXT")),
    ("run_id", "persona_id", "context", "item_id", "sample"),
    row_rules.answer_rules,
))
CONVERSATIONS = register_table(Table(
    "values_conversations",
    (("run_id", "TEXT"), ("persona_id", "INTEGER"), ("context", "TEXT"), ("turn", "INTEGER"), ("speaker", "TEXT"),
     ("content", "TEXT"), ("valid", "INTEGER"), ("cache_key", "TEXT")),
    ("run_id", "persona_id", "context", "turn"),
    row_rules.conversation_rules,
))


ValuesAnswerMode = Literal["logprob", "text", "cot"]
Structure = Literal["reference", "appended"]
#: Plan fields of the reference protocol and the values a plan stored before they existed had (RoleScope's earlier
#: protocol): such a plan validates as what it ran.
_EARLIER_PROTOCOL = {"structure": "appended", "persona_prompt": "in-character", "svs_order": "parallel",
                     "conversation_temperature": None, "answer_temperature": None}


class ValuesPlan(UnstatedTextFormat):
    """Everything a values run needs, resolved (so ``resume`` repeats it exactly)."""

    method: str = "values"
    population: str
    personas: list[Persona]
    instrument: Instrument
    contexts: list[Context]
    messages: int = Field(3, ge=1, description="reference: messages generated after the opening (odd, persona last); "
                                               "appended: conversation length including the opening.")
    structure: Structure = "reference"
    persona_prompt: prompts.PersonaPrompt = "reference"
    system_role: bool = Field(True, description="False: the persona prompt is a user message answered 'OK'.")
    svs_order: Literal["sequential", "parallel"] = "sequential"
    answer_mode: ValuesAnswerMode = "logprob"
    answer_format: Literal["text", "json"] = Field(
        "text", description="json: each answer (and SVS pick) as a JSON object constrained by a JSON schema "
                            "(analysis.llm.structured; text or cot answers only); text: the reference's '(X)'. Left out "
                            "of the stored plan when text (plans stored before the choice existed stay the same "
                            "configuration).")
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
    params: dict[str, Any] = Field(default_factory=dict, description="Generation params (model defaults + overrides); "
                                   "the temperatures below take precedence.")
    conversation_temperature: float | None = Field(0.7, description="Conversation turns; None = params' temperature.")
    conversation_max_tokens: int = 100
    answer_temperature: float | None = Field(0.0, description="Answers and SVS picks; None = params' (earlier protocol).")
    text_max_tokens: int = 10
    cot_max_tokens: int = 2000
    pick_max_tokens: int = 24
    campaign: str | None = Field(None, description="The campaign the run belongs to (its runs differ in instrument).")
    # the earlier protocol's per-speaker lengths (None = conversation_max_tokens)
    persona_max_tokens: int | None = None
    interlocutor_max_tokens: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _stored_before_reference(cls, data: Any) -> Any:
        """A plan stored before the reference protocol became the default has no ``structure``: it ran the earlier one."""
        if isinstance(data, dict) and "personas" in data and "structure" not in data:
            return _EARLIER_PROTOCOL | {"pick_max_tokens": data.get("text_max_tokens", 48)} | data
        return data

    @model_validator(mode="after")
    def _check(self) -> ValuesPlan:
        if self.structure == "reference" and self.messages % 2 == 0:
            raise ValueError(f"messages={self.messages}: the reference conversation has an odd number of generated "
                             "messages, so that the persona speaks last")
        if self.answer_format == "json" and (self.answer_mode == "logprob" or self.structure == "appended"):
            raise ValueError("answer_format json: a JSON answer is a text or cot reply under the reference structure "
                             "(a logprob answer is read from one token's logprobs)")
        return self

    def turns(self, ctx: Context) -> int:
        """Conversation messages generated in ``ctx`` (the opening is given)."""
        if ctx.kind == "no_conv":
            return 0
        return self.messages if self.structure == "reference" else self.messages - 1

    def n_calls(self) -> int:
        """Calls the plan makes: conversation turns after the opening + items (+4 picks per SVS run)."""
        per_persona = 0
        for ctx in self.contexts:
            picks = 2 * len({i.list_no for i in self.instrument.items}) if self.instrument.kind == "svs" else 0
            per_persona += self.turns(ctx) + (len(self.instrument.items) + picks) * self.samples
        return per_persona * len(self.personas)

    def max_tokens(self, speaker: str) -> int:
        own = self.persona_max_tokens if speaker == "persona" else self.interlocutor_max_tokens
        return own if own is not None else self.conversation_max_tokens


def option_seed(seed: int, persona_id: int, context: str, item_id: str, sample: int) -> int:
    digest = hashlib.sha256(f"{seed}|{persona_id}|{context}|{item_id}|{sample}".encode()).hexdigest()
    return int(digest[:12], 16)


def permuted_options(instrument: Instrument, perm_seed: int) -> list[int]:
    order = list(range(len(instrument.options)))
    random.Random(perm_seed).shuffle(order)
    return order


def derangement(n: int, seed: int, context: str) -> list[int]:
    """A seeded random permutation of ``range(n)`` without fixed points: persona i talks with persona ``d[i]``.

    Reference ``interlocutors/real_world_people/generate_interlocutor_chunks.py``: shuffle until no one is paired
    with themself (expected e ~ 2.7 shuffles). ``n`` < 2 has no derangement."""
    if n < 2:
        raise ValueError("a derangement needs at least 2 personas")
    digest = hashlib.sha256(f"{seed}|{context}|interlocutors".encode()).hexdigest()
    rng = random.Random(int(digest[:12], 16))
    order = list(range(n))
    while True:
        rng.shuffle(order)
        if all(order[i] != i for i in range(n)):
            return list(order)


class ValuesSession:
    """Executes one ValuesPlan with an Executor; writes answers and conversations to the store."""

    def __init__(self, plan: ValuesPlan, executor: Executor, store: Store, run_id: str, spec: ModelSpec):
        self.plan, self.ex, self.store, self.run_id, self.spec = plan, executor, store, run_id, spec
        self._index = {p.id: n for n, p in enumerate(plan.personas)}

    # -- request params -----------------------------------------------------------------------
    def _params(self, **overrides: Any) -> dict[str, Any]:
        params = dict(self.plan.params) | {k: v for k, v in overrides.items() if v is not None}
        if self.spec.backend == "embedded":
            params["cache_prompt"] = self.plan.prefix_reuse
        return params

    def _conversation_params(self, speaker: str) -> dict[str, Any]:
        temperature = self.plan.conversation_temperature
        # sampled turns are seeded (the run seed unless the model's params give one), so a run can be repeated
        seed = self.plan.params.get("seed", self.plan.seed) if (temperature or 0) > 0 else None
        return self._params(max_tokens=self.plan.max_tokens(speaker), temperature=temperature, seed=seed)

    def _answer_params(self) -> dict[str, Any]:
        mode, temperature = self.plan.answer_mode, self.plan.answer_temperature
        if mode == "logprob":
            max_tokens = 2 if self.plan.structure == "reference" else 1  # "(" then the letter
            return self._params(max_tokens=max_tokens, temperature=0.0, top_logprobs=self.plan.top_logprobs, logprobs=True)
        if mode == "cot":
            return self._params(max_tokens=self.plan.cot_max_tokens, temperature=temperature)
        if self.plan.answer_format == "json":
            return self._params(max_tokens=max(self.plan.text_max_tokens, schemas.JSON_TEXT_MAX_TOKENS),
                                temperature=temperature)
        return self._params(max_tokens=self.plan.text_max_tokens, temperature=temperature)

    def _pick_params(self) -> dict[str, Any]:
        if self.plan.answer_mode == "cot":
            return self._answer_params()
        temperature = 0.0 if self.plan.answer_mode == "logprob" else self.plan.answer_temperature
        return self._params(max_tokens=self.plan.pick_max_tokens, temperature=temperature)

    # -- orchestration ------------------------------------------------------------------------
    async def run(self) -> None:
        await run_units((partial(self._persona_context, p, c) for c in self.plan.contexts for p in self.plan.personas),
                        one_at_a_time=self.plan.prefix_reuse)

    async def _persona_context(self, persona: Persona, ctx: Context) -> None:
        history, failure = await self._conversation(persona, ctx)
        if failure is not None:
            self._skip_items(persona, ctx, failure)
            return
        base = prompts.with_setting(self._persona_prompt(persona), history, self.plan.system_role)
        for sample in range(self.plan.samples):
            if self.plan.instrument.kind == "svs":
                await asyncio.gather(*(self._svs_list(persona, ctx, base, n, sample)
                                       for n in sorted({i.list_no for i in self.plan.instrument.items})))
            else:
                await asyncio.gather(*(self._ask(persona, ctx, base, item, sample, "item") for item in self.plan.instrument.items))

    def _persona_prompt(self, persona: Persona) -> str:
        return prompts.persona_system(persona, self.plan.persona_prompt)

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

    def _interlocutor_system(self, persona: Persona, ctx: Context) -> str:
        reference = self.plan.structure == "reference"
        if ctx.interlocutor != "persona":
            return prompts.human_user_system() if reference else prompts.appended_human_user_system()
        others = self.plan.personas
        if ctx.partners is not None:
            partner = ctx.partners[self._index[persona.id]]
        else:  # the earlier protocol: the next persona of the population
            partner = others[(persona.id + 1) % len(others)] if len(others) > 1 else persona
        return prompts.other_persona_system(partner) if reference else prompts.appended_other_persona_system(partner)

    async def _conversation(self, persona: Persona, ctx: Context) -> tuple[list[dict[str, str]], str | None]:
        """Messages from the persona's point of view (interlocutor = user, persona = assistant),
        or the failure that stopped the conversation."""
        opening = ctx.opening_for(persona.id)
        if opening is None:
            return [], None
        turns: list[tuple[str, str]] = [("interlocutor", opening)]
        rows = [self._turn_row(persona, ctx, 0, "interlocutor", opening, True, None)]
        n_turns = self.plan.turns(ctx)
        settings = {"persona": self._persona_prompt(persona), "interlocutor": self._interlocutor_system(persona, ctx)}
        for t in range(1, n_turns + 1):
            speaker = "persona" if t % 2 == 1 else "interlocutor"
            view = prompts.conversation_view(turns, speaker)
            if self.plan.structure == "reference":
                msgs = prompts.with_setting(settings[speaker], view, self.plan.system_role)
            else:
                msgs = [{"role": "system", "content": settings[speaker]}, *view]
            out = await self.ex.call(f"{ctx.label}/p{persona.id}/turn{t}",
                                     ChatRequest.build(msgs, self._conversation_params(speaker)))
            if not out.ok:
                self.ex.progress.update(done=n_turns - t, skipped=n_turns - t)  # the turns that will not be taken
                rows.append(self._turn_row(persona, ctx, t, speaker, "", False, out.cache_key))
                self.store.upsert(CONVERSATIONS.name, rows)
                return [], f"conversation turn {t} failed: {out.error}"
            # an empty turn stays in the conversation as "..." (flagged invalid) rather than breaking alternation
            text = out.reply.text.strip() or "..."
            turns.append((speaker, text))
            rows.append(self._turn_row(persona, ctx, t, speaker, text, bool(out.reply.text.strip()), out.cache_key))
        self.store.upsert(CONVERSATIONS.name, rows)
        return prompts.conversation_view(turns, "persona"), None

    def _turn_row(self, persona: Persona, ctx: Context, turn: int, speaker: str, content: str, valid: bool, key: str | None) -> dict[str, Any]:
        return {"run_id": self.run_id, "persona_id": persona.id, "context": ctx.label, "turn": turn, "speaker": speaker,
                "content": content, "valid": int(valid), "cache_key": key}

    def _with_question(self, base: list[dict[str, str]], question: str) -> list[dict[str, str]]:
        if self.plan.structure == "appended" and base and base[-1]["role"] == "user":
            # the earlier protocol: the conversation may end on the interlocutor's turn, the question is glued on
            return [*base[:-1], {"role": "user", "content": f"{base[-1]['content']}\n\n{question}"}]
        return [*base, {"role": "user", "content": question}]

    def _question(self, item: Item, gender: str, labels: list[str], lead: str | None) -> str:
        inst = self.plan.instrument
        if self.plan.structure == "appended":
            return prompts.appended_item_question(inst, item, gender, labels)
        return prompts.item_question(inst, item, gender, labels, self.plan.answer_mode, lead, self.plan.answer_format)

    async def _ask(self, persona: Persona, ctx: Context, base: list[dict[str, str]], item: Item, sample: int,
                   stage: str, lead: str | None = None) -> tuple[dict[str, Any], list[dict[str, str]]]:
        """Ask one item; store its answer row; return it and the history including the answer."""
        inst = self.plan.instrument
        perm_seed = option_seed(self.plan.seed, persona.id, ctx.label, item.id, sample)
        order = permuted_options(inst, perm_seed)
        labels = [inst.options[k].label for k in order]
        msgs = self._with_question(base, self._question(item, persona.gender, labels, lead))
        structured = self._schema(schemas.item, len(labels))
        out = await self.ex.call(f"{ctx.label}/p{persona.id}/item{item.id}/s{sample}",
                                 ChatRequest.build(msgs, self._answer_params() | structured, sample=sample))
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
            row |= {"letter": LETTERS[parsed.index], "option_label": option.label, "score": option.score}
        self.store.upsert(ANSWERS.name, [row])
        return row, [*msgs, {"role": "assistant", "content": self._answer_in_history(row)}]

    def _answer_in_history(self, row: dict[str, Any]) -> str:
        """The answer as the conversation keeps it (reference ``svs_utils.py:create_response_msg``): "(X)"; after a
        chain of thought, the reasoning (at most 4000 characters) then "Answer: (X)". An invalid answer keeps its
        reply as it was."""
        if self.plan.structure == "appended":
            return f"{row['letter']}. {row['option_label']}" if row["valid"] else (row["raw"] or "")
        if not row["valid"] or self.plan.answer_format == "json":  # a JSON answer stays the object it was
            return row["raw"] or ""
        if self.plan.answer_mode == "cot":
            reasoning = _reasoning(row["raw"] or "")
            return f"{reasoning[:4000]}Answer: ({row['letter']})"
        return f"({row['letter']})"

    def _parse(self, out: CallOutcome, labels: list[str]) -> ParsedOption:
        if not out.ok:
            return ParsedOption(None, f"call failed: {out.error}")
        mode = self.plan.answer_mode
        if mode == "logprob":
            if self.plan.structure == "appended":
                first = out.reply.top_logprobs[0] if out.reply.top_logprobs else None
                return option_from_logprobs(first, len(labels))
            return option_after_paren(out.reply.top_logprobs, len(labels))
        text_reader = parse_after_marker if mode == "cot" else parse_option_text
        if self.plan.answer_format == "json":
            return read_structured(out.reply.text, lambda value: schemas.option_of(value, labels),
                                   lambda reply: text_reader(reply, labels))
        return text_reader(out.reply.text, labels)

    def _schema(self, make: Any, *args: Any) -> dict[str, str]:
        """``{"response_format": ...}`` with ``answer_format`` json, else nothing (the reference's free text)."""
        return {"response_format": make(*args, self.plan.answer_mode)} if self.plan.answer_format == "json" else {}

    # -- SVS ----------------------------------------------------------------------------------
    async def _svs_list(self, persona: Persona, ctx: Context, base: list[dict[str, str]], list_no: int, sample: int) -> None:
        items = [i for i in self.plan.instrument.items if i.list_no == list_no]
        reference = self.plan.structure == "reference"
        history = list(base)
        rated: set[str] = set()
        for which in ("most", "least"):
            shown = [it for it in items if it.id not in rated] if reference else items
            instructions = (self.plan.instrument.instructions or prompts.SVS_INSTRUCTIONS) if reference and which == "most" else None
            question = prompts.svs_pick_question(shown, which, instructions, list_no, self.plan.answer_mode,
                                                 self.plan.answer_format)
            msgs = self._with_question(history, question)
            params = self._pick_params() if reference else self._params(
                max_tokens=self.plan.pick_max_tokens, **({"temperature": 0.0} if self.plan.answer_mode == "logprob" else {}))
            params |= self._schema(schemas.pick, [value_name(it) for it in shown])
            out = await self.ex.call(f"{ctx.label}/p{persona.id}/svs{list_no}/pick_{which}/s{sample}",
                                     ChatRequest.build(msgs, params, sample=sample))
            picked, reason = self._read_pick(out.reply.text if out.ok else None, shown, rated)
            if not out.ok:
                reason = f"call failed: {out.error}"
            self.store.upsert(ANSWERS.name, [{
                "run_id": self.run_id, "model": self.spec.name, "persona_id": persona.id, "persona": persona.name,
                "gender": persona.gender, "context": ctx.label, "instrument": self.plan.instrument.name,
                "item_id": f"pick_{which}_L{list_no}", "value": picked.value if picked else None, "list_no": list_no,
                "stage": f"svs_pick_{which}", "sample": sample, "mode": "cot" if self.plan.answer_mode == "cot" else "text",
                "raw": out.reply.text if out.ok else None, "option_label": picked.id if picked else None,
                "cache_key": out.cache_key, "valid": int(picked is not None), "reason": reason,
            }])
            history = msgs + [{"role": "assistant", "content": out.reply.text if out.ok else ""}]
            if picked is not None:
                lead = f"You chose {value_name(picked)}, now rate its importance." if reference else None
                _, history = await self._ask(persona, ctx, history, picked, sample, f"svs_{which}", lead)
                rated.add(picked.id)
        rest = [item for item in items if item.id not in rated]
        if not reference or self.plan.svs_order == "parallel":
            await asyncio.gather(*(self._ask(persona, ctx, history, item, sample, "svs_rest") for item in rest))
            return
        for n, item in enumerate(rest):  # one after another, every rating kept in the history
            _, history = await self._ask(persona, ctx, history, item, sample, "svs_rest",
                                         prompts.REST_OF_LIST if n == 0 else None)


    def _read_pick(self, reply: str | None, shown: list[Item], rated: set[str]) -> tuple[Item | None, str | None]:
        """The value a pick's reply names: a JSON reply's answer field (``answer_format`` json; the text reader only when
        its JSON cannot be read, said in the reason), else after the single "Answer:" of a chain of thought, else the
        reply."""
        def text_pick(text: str | None) -> _Pick:
            if text is not None and self.plan.answer_mode == "cot":
                text = _after_single_marker(text)
            return _Pick(*parse_svs_pick(text, shown, exclude=rated))

        if reply is not None and self.plan.answer_format == "json":
            got = read_structured(reply, lambda value: _Pick(*parse_svs_pick(str(value), shown, exclude=rated)), text_pick)
        else:
            got = text_pick(reply)
        return got.item, got.reason


@dataclass(frozen=True)
class _Pick:
    item: Item | None
    reason: str | None


def value_name(item: Item) -> str:
    """An SVS value's name as its list shows it (the part before the parenthesis: "FREEDOM")."""
    return item.wording("any").split("(")[0].strip()


def _after_single_marker(text: str) -> str | None:
    """What follows the single "Answer:" marker of a chain-of-thought reply; None without exactly one."""
    parts = ANSWER_MARKER.split(text)
    return parts[1] if len(parts) == 2 else None


def _reasoning(text: str) -> str:
    """The reasoning before the "Answer:" marker of a chain-of-thought reply."""
    return ANSWER_MARKER.split(text)[0]


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
    names = {it.id: value_name(it) for it in items}
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


def n_calls(plan: dict[str, Any]) -> int:
    """``Method.n_calls``: the calls a stored plan makes."""
    return ValuesPlan.model_validate(plan).n_calls()


def waves(plan: dict[str, Any]) -> int:
    """``Method.waves``: the longest chain of dependent calls (persona-contexts run side by side). Per context: its
    conversation's generated turns, one after another, then the questionnaire once per sample, one sample after
    another: PVQ items all at once (1); SVS lists side by side, each its "most" pick and rating, "least" pick and
    rating (4), then the rest at once (1) or, in the reference order, one after another (list size − 2)."""
    p = ValuesPlan.model_validate(plan)
    inst = p.instrument
    if inst.kind == "svs":
        sizes = [sum(1 for i in inst.items if i.list_no == n) for n in {i.list_no for i in inst.items}]
        sequential = p.structure == "reference" and p.svs_order != "parallel"
        items = max(4 + (max(0, size - 2) if sequential else 1) for size in sizes)
    else:
        items = 1
    return max(p.turns(ctx) + items * p.samples for ctx in p.contexts)


def build_session(plan: dict[str, Any], executor: Executor, store: Store, run_id: str, spec: ModelSpec) -> ValuesSession:
    """``Method.session``: the session of a stored plan."""
    return ValuesSession(ValuesPlan.model_validate(plan), executor, store, run_id, spec)
