"""The inventory report's types (pydantic): what its page, Compare and the Leaderboard read of it, checked on every
report before it is kept (``Method.report_model``), and the vocabulary its fields are keyed by (the Big Five).

A page module imports from ``analysis.methods.inventory`` nothing but this module. A number that cannot be computed
is ``None`` and its ``<name>_reason`` says why (``analysis.methods.inventory.report._entry``), never 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from analysis.methods.inventory import BIG_FIVE
from analysis.methods.report_model import Frame, ModelReport, Report

__all__ = ["BIG_FIVE", "Scale", "Position", "InventoryResult", "Mtmm", "InventoryFigures", "InventoryModelReport",
           "InventoryReport"]

#: Numbers of a scale that may be undefined: each has its ``<name>_reason`` beside it then.
REASONED = ("alpha", "omega", "lambda6", "test_retest", "shaping_rho", "drift", "shaping_d")


class Scale(BaseModel):
    """One domain or facet of one inventory: its score over personas, reliability, test–retest and shaping."""

    model_config = ConfigDict(extra="allow")  # the ``<name>_reason`` of each undefined number

    name: str
    n_items: int | None = None  # a domain's (a facet lists its score only)
    n_personas: int | None = None
    score: float | None = None
    sd: float | None = None
    percentile: float | None = None
    #: The score's percentile among people's domain scores (an imported human norm, ``testings.human_doc``).
    human_percentile: float | None = None
    alpha: float | None = None
    omega: float | None = None
    lambda6: float | None = None
    test_retest: float | None = None
    shaping_rho: float | None = None
    drift: float | None = None
    shaping_d: float | None = None
    keying: list[dict[str, Any]] | None = None

    @model_validator(mode="after")
    def _undefined_has_its_reason(self) -> Scale:
        extra = self.model_extra or {}
        for name in REASONED:
            if name in self.model_fields_set and getattr(self, name) is None and not extra.get(f"{name}_reason"):
                raise ValueError(f"{self.name}: {name} is undefined without its {name}_reason")
        return self


class Position(BaseModel):
    """Where on the scale the answers fall: the share of each option, the first option's share against chance, and
    the gap between the option orders."""

    model_config = ConfigDict(extra="forbid")

    shares: dict[str, float | None]
    first: float | None
    chance_share: float
    order_gap: float | None
    order_gap_reason: str | None


class InventoryResult(BaseModel):
    """One inventory a model was given."""

    model_config = ConfigDict(extra="allow")

    title: str
    n_items: int
    n_personas: int
    n_sheets: int
    orders: list[str]
    norms: str | None
    norms_reason: str | None
    answer_mode: str | None
    domains: dict[str, Scale]
    facets: dict[str, Scale]
    position: Position
    provenance: dict[str, Any]
    #: Repeated testings of one respondent (``analysis.methods.inventory.testings``), None when none was repeated.
    testings: dict[str, Any] | None = None
    #: The human row beside the model (an imported human norm), None without one.
    human: dict[str, Any] | None = None


class Mtmm(BaseModel):
    """The multitrait-multimethod matrix of the model's two inventories (convergent and discriminant validity), or
    why there is none (``reason``)."""

    model_config = ConfigDict(extra="allow")

    inventories: list[str]
    convergent: float | None
    discriminant: float | None
    n_personas: int
    n_shaped: int
    convergent_domains: dict[str, float | None]
    matrix: Frame | None
    reason: str | None = None


class InventoryFigures(BaseModel):
    """What the page draws of the main inventory: each persona's domain ``profiles`` and the ``shaping`` curve."""

    model_config = ConfigDict(extra="forbid")

    profiles: Frame | None
    shaping: Frame | None


class InventoryModelReport(ModelReport):
    """One model's inventory document."""

    inventory: str
    domains: dict[str, Scale]
    inventories: dict[str, InventoryResult]
    mtmm: Mtmm | None = None
    figures: InventoryFigures
    configuration: str
    configurations: list[dict[str, Any]]
    chance: dict[str, Any] | None = None


class InventoryReport(Report):
    """The inventory report: every model's document and the paper's per-domain convergent r set beside them."""

    models: dict[str, InventoryModelReport]
    published_convergent: list[dict[str, Any]]


def chance_bands(report: Mapping[str, Any]) -> dict[str, Any]:
    """``Method.chance``: each model's null bands of its own inventory, and every inventory's under ``_all`` (its
    report's ``chance`` section)."""
    return {m: (d.get("chance") or {}).get(d["inventory"], {}) | {"_all": d.get("chance") or {}}
            for m, d in report["models"].items()}
