"""The resolved plan of a trust run (stored as JSON with the run, so ``resume`` repeats it exactly)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from analysis.llm.structured import UnstatedTextFormat
from analysis.methods.trust import DEFAULT_ARCHETYPES, DEFAULT_ENDOWMENT, DEFAULT_ROUNDS, Conditioning, Level, Strategy
from analysis.methods.trust.attributes import Attribute
from analysis.methods.trust.personas import Persona, attribute_table

DEFAULT_MAX_TOKENS: dict[str, int] = {"belief": 600, "action": 300, "forecast": 600, "round": 300}


class TrustPlan(UnstatedTextFormat):
    """Everything a trust run needs, personas included."""

    method: str = "trust"
    level: Level = "population"
    endowment: int = Field(DEFAULT_ENDOWMENT, ge=1)
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
    rounds: int = Field(DEFAULT_ROUNDS, ge=1)
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
