"""The resolved plan of a trust run (stored as JSON with the run, so ``resume`` repeats it exactly), and how it is
built from the run options (``build_trust_plan``: ``run trust``, a cross-method campaign's part, the demo)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.llm.structured import UnstatedTextFormat
from analysis.methods.trust import (
    CONDITIONINGS, DEFAULT_ARCHETYPES, DEFAULT_ENDOWMENT, DEFAULT_ROUNDS, MAX_ENDOWMENT, MAX_ROUNDS, STRATEGIES, STRATEGY_ALIASES, Conditioning, Level,
    Strategy,
)
from analysis.methods.trust.attributes import Attribute
from analysis.methods.trust.genagents import PAPER_PERSONA_FORM, load_genagents
from analysis.methods.trust.personas import (
    DEFAULT_ATTRIBUTE_SET, Persona, attribute_table, check_attribute_set, default_attributes, generate_bank, select,
)

DEFAULT_MAX_TOKENS: dict[str, int] = {"belief": 600, "action": 300, "forecast": 600, "round": 300}


class TrustPlan(UnstatedTextFormat):
    """Everything a trust run needs, personas included."""

    method: str = "trust"
    level: Level = "population"
    endowment: int = Field(DEFAULT_ENDOWMENT, ge=1, le=MAX_ENDOWMENT)
    personas: list[Persona]
    bank: dict[str, Any] = Field(default_factory=dict, description="Persona provenance: source, size/path, seed, split.")
    attribute_set: str = Field("rolescope15", description="'paper' (Table 5, the default of new plans) or 'rolescope15'; "
                                                          "plans stored before the choice existed used rolescope15.")
    persona_form: str | None = Field(
        None, description="How a GenAgents bank under the paper's set was sampled and described (genagents."
                          "PAPER_PERSONA_FORM); None otherwise, and for plans stored before, which kept only agents whose "
                          "political views, religion and work status were test levels and described test traits only.")
    attributes: list[str] = Field(default_factory=list, description="Attributes whose beliefs are elicited (population).")
    strategies: list[Strategy] = Field(default_factory=list)
    conditioning: Conditioning = "none"
    condition_on: Strategy = Field("Ctx+Tr", description="Whose beliefs condition the role prompt (the paper: Ctx+Tr).")
    rounds: int = Field(DEFAULT_ROUNDS, ge=1, le=MAX_ROUNDS)
    archetypes: list[int] = Field(default_factory=lambda: list(DEFAULT_ARCHETYPES))
    play_knows_archetype: bool = Field(False, description="Also describe the archetype in every round prompt.")
    forecast: Literal["per_round", "upfront"] = Field(
        "upfront", description="per_round: one forecast call before each round from a crafted state summary (the paper, "
                               "the default of new plans); upfront: one call forecasting every round before play (plans "
                               "stored before the choice existed).")
    answer: Literal["reasoned", "numeric"] = Field(
        "reasoned", description="population play: reasoned = a few sentences ending 'Amount: $X'; numeric = a bare "
                                "whole number, its first integer taken (App. E)")
    answer_format: Literal["text", "json"] = Field(
        "text", description="json: every answer as a JSON object constrained by a JSON schema (analysis.llm.structured); "
                            "text: the paper's free text. Left out of the stored plan when text, so plans stored before "
                            "the choice existed stay the same configuration.")
    seed: int = 0
    params: dict[str, Any] = Field(default_factory=dict, description="Generation params (defaults + model + overrides).")
    max_tokens: dict[str, int] = Field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS))
    prefix_reuse: bool = False

    @property
    def table(self) -> dict[str, Attribute]:
        """key -> Attribute (levels, label) of the plan's attribute set and split."""
        split = self.bank.get("split", "test")
        return attribute_table(self.attribute_set, split if split in ("train", "validation", "test") else "test")

    @property
    def elicited(self) -> list[str]:
        """The strategies whose beliefs the run elicits: the chosen ones, plus the conditioning source if needed."""
        out = list(self.strategies)
        if self.conditioning != "none" and self.condition_on not in out:
            out.append(self.condition_on)
        return out

    def request_params(self, kind: str, backend: str) -> dict[str, Any]:
        """Generation params for one kind of call; the embedded server caches the prompt only with prefix reuse."""
        params = dict(self.params) | {"max_tokens": self.max_tokens[kind]}
        if backend == "embedded":
            params["cache_prompt"] = self.prefix_reuse
        return params

    def n_calls(self) -> int:
        if self.level == "population":
            return len(self.elicited) * len(self.attributes) + len(self.personas)
        per_game = 2 * self.rounds if self.forecast == "per_round" else 1 + self.rounds
        return len(self.personas) * len(self.archetypes) * per_game


# A generated bank of 250 has a test split of 50 personas: the paper's N = 50 (Sec. 4).
DEFAULT_BANK_SIZE = 250
# A GenAgents file under the paper's attribute set: a seeded sample of 50 of its agents (N = 50, Sec. 4).
DEFAULT_GENAGENTS_N = 50
# The paper's decoding (App. E): temperature 0.05, top_p 1.0, top_k 0 (no top-k cut); the model spec and
# --temperature override them. top_k is sent only to backends known to accept it (TOP_K_BACKENDS: the embedded
# llama.cpp server); OpenAI's API rejects the field, and other servers differ on what 0 means.
DEFAULT_PARAMS: dict[str, Any] = {"temperature": 0.05, "top_p": 1.0}
PAPER_TOP_K = 0
TOP_K_BACKENDS = frozenset({"embedded"})


def decoding_params(spec: ModelSpec, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The generation params a trust plan records and sends: the paper's, top_k where accepted, then spec, overrides."""
    top_k = {"top_k": PAPER_TOP_K} if spec.backend in TOP_K_BACKENDS else {}
    return DEFAULT_PARAMS | top_k | spec.params | (overrides or {})


def parse_strategy(name: str, option: str = "--strategies") -> str:
    """A strategy's paper name from any accepted spelling (NoCtx+Tr, ctx-tr, ctx-usd, ...); ``option`` names the
    option in the error."""
    key = name.strip()
    if key in STRATEGIES:
        return key
    if key.lower() in STRATEGY_ALIASES:
        return STRATEGY_ALIASES[key.lower()]
    raise InputError(f"{option}: unknown strategy '{name}'; use {', '.join(STRATEGIES)} (or noctx-tr, ctx-tr, ctx-usd)")


def resolve_personas(personas: int | str | Path, *, seed: int, split: str, limit: int | None,
                     attribute_set: str = DEFAULT_ATTRIBUTE_SET,
                     persona_ids: list[str] | None = None) -> tuple[list[Persona], dict[str, Any]]:
    """``personas`` = N (a generated bank of N) or a GenAgents .jsonl / folder path; then one split, and of it the
    personas ``persona_ids`` names (in the bank's order), else at most ``limit``. The bank's record says how many
    were taken (``n``) and which (``persona_ids``).

    A GenAgents file under the paper's set: every agent, in a seeded order, all in split test; ``limit`` defaults to 50
    there (a seeded sample of the whole bank)."""
    if isinstance(personas, str) and personas.strip().isdigit():
        personas = int(personas.strip())
    if isinstance(personas, int):
        bank = generate_bank(personas, seed, attribute_set)
        info: dict[str, Any] = {"source": "generated", "size": personas, "seed": seed}
    else:
        bank = load_genagents(personas, seed, attribute_set)
        info = {"source": "genagents", "path": str(personas), "size": len(bank), "seed": seed}
        if attribute_set == "paper" and limit is None and split == "test" and not persona_ids:
            limit = DEFAULT_GENAGENTS_N
    if persona_ids:
        wanted = set(map(str, persona_ids))
        chosen = [p for p in select(bank, split, None) if p.id in wanted]
        missing = sorted(wanted - {p.id for p in chosen})
        if missing:
            raise InputError(f"--persona-ids: {', '.join(missing[:5])} not in the {split} split of this bank")
        return chosen, info | {"split": split, "limit": None, "n": len(chosen), "persona_ids": [p.id for p in chosen]}
    chosen = select(bank, split, limit)
    return chosen, info | {"split": split, "limit": limit, "n": len(chosen)}


def build_trust_plan(
    spec: ModelSpec,
    *,
    level: str = "population",
    strategies: Sequence[str] | None = None,
    conditioning: str = "none",
    condition_on: str = "Ctx+Tr",
    rounds: int = DEFAULT_ROUNDS,
    archetypes: Sequence[int] = DEFAULT_ARCHETYPES,
    endowment: int = DEFAULT_ENDOWMENT,
    personas: int | str | Path = DEFAULT_BANK_SIZE,
    split: str = "test",
    limit_personas: int | None = None,
    persona_ids: list[str] | None = None,
    attributes: Sequence[str] | None = None,
    attribute_set: str = DEFAULT_ATTRIBUTE_SET,
    seed: int = 0,
    play_knows_archetype: bool = False,
    forecast: str = "per_round",
    answer: str = "reasoned",
    answer_format: str = "text",
    max_tokens: dict[str, int] | None = None,
    params: dict[str, Any] | None = None,
    prefix_reuse: bool = False,
) -> TrustPlan:
    """Resolve every option now (personas included), so the stored plan is self-contained."""
    if level not in ("population", "individual"):
        raise InputError(f"--level '{level}': use population or individual")
    if conditioning not in CONDITIONINGS:
        raise InputError(f"--conditioning '{conditioning}': use {', '.join(CONDITIONINGS)}")
    if level == "individual" and conditioning != "none":
        raise InputError("--conditioning applies to --level population only")
    if endowment < 1:
        raise InputError("--endowment must be >= 1")
    if answer not in ("reasoned", "numeric"):
        raise InputError(f"--answer '{answer}': use reasoned or numeric")
    if answer_format not in ("text", "json"):
        raise InputError(f"--answer-format '{answer_format}': use text or json")
    if answer_format == "json" and answer == "numeric":
        raise InputError("--answer numeric asks for a bare number; with --answer-format json the amount is a JSON field")
    if forecast not in ("per_round", "upfront"):
        raise InputError(f"--forecast '{forecast}': use per_round or upfront")
    if rounds < 1:
        raise InputError("--rounds must be >= 1")
    ks = [int(k) for k in archetypes]
    if not ks or any(k < 0 for k in ks) or len(set(ks)) != len(ks):
        raise InputError(f"--archetypes {ks}: give distinct whole dollars >= 0, e.g. 1,3,5")
    chosen = [parse_strategy(s) for s in (strategies if strategies is not None else STRATEGIES)]
    if level == "population" and not chosen:
        raise InputError("--strategies: give at least one of " + ", ".join(STRATEGIES))
    if len(set(chosen)) != len(chosen):
        raise InputError(f"--strategies lists a strategy twice: {chosen}")
    check_attribute_set(attribute_set)
    table = attribute_table(attribute_set, split)
    attrs = list(attributes) if attributes is not None else default_attributes(attribute_set, split)
    unknown = [a for a in attrs if a not in table]
    if unknown or not attrs or len(set(attrs)) != len(attrs):
        raise InputError(f"--attributes {attrs}: give distinct names from {', '.join(table)} "
                         f"(attribute set {attribute_set}, split {split})")
    tokens = dict(DEFAULT_MAX_TOKENS) | (max_tokens or {})
    if any(v < 1 for v in tokens.values()):
        raise InputError("--max-tokens must be >= 1")
    people, bank = resolve_personas(personas, seed=seed, split=split, limit=limit_personas, attribute_set=attribute_set,
                                    persona_ids=persona_ids)
    return TrustPlan(
        level=level, endowment=endowment, personas=people, bank=bank, attribute_set=attribute_set,
        persona_form=PAPER_PERSONA_FORM if bank["source"] == "genagents" and attribute_set == "paper" else None,
        attributes=attrs if level == "population" else [], strategies=chosen if level == "population" else [],
        conditioning=conditioning, condition_on=parse_strategy(condition_on, "--condition-on"), rounds=rounds, archetypes=ks,
        play_knows_archetype=play_knows_archetype, forecast=forecast, answer=answer, answer_format=answer_format, seed=seed,
        params=decoding_params(spec, params),
        max_tokens=tokens, prefix_reuse=prefix_reuse,
    )
