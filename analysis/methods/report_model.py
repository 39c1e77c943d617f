"""The typed part every method's report shares (pydantic): per model, its headline numbers and its counts of replies
left out. ``Method.cached_report`` checks each report it computes against it before keeping it, so no page, Compare,
the Leaderboard or ``metrics --json`` ever reads a headline that is not a number with its reason.

A number (``Number``) is a value, or undefined with the reason why: never both, never neither (undefined is never 0).
Its ``coverage`` says over how many of its units it is averaged; ``chance_reason`` why it can have no chance verdict.
Each method types the rest of its report in its ``report_types.py`` (subclasses of ``ModelReport`` and ``Report``,
declared as ``Method.report_model``): the fields its pages, Compare and the Leaderboard read are declared there, and
a page module imports from a method's analysis folder nothing but that module. Fields no reader relies on may stay
extra (kept as they are).
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator


class Frame(BaseModel):
    """A table in a report (``analysis.methods.base.frame_doc``): its column names and its rows, each a list of as
    many cells (null for a missing number); ``doc_frame`` reads it back."""

    model_config = ConfigDict(extra="forbid")

    columns: list[str]
    data: list[list[Any]]

    @model_validator(mode="after")
    def _rows_as_wide_as_columns(self) -> Frame:
        for i, row in enumerate(self.data):
            if len(row) != len(self.columns):
                raise ValueError(f"row {i} has {len(row)} cells for {len(self.columns)} columns")
        return self


class Bound(BaseModel):
    """How far the replies not read could move a number (``analysis.methods.base.unread_bound``): the number with every
    unread reply at the low and at the high end of the scale, and which ends those are."""

    model_config = ConfigDict(extra="forbid")

    lo: float
    hi: float
    note: str


class Coverage(BaseModel):
    """How many of its units a number averages: ``n`` of ``of`` ``unit`` ("7 of 8 subjects"), that share, and under
    90 % read its ``bound``."""

    model_config = ConfigDict(extra="forbid")

    n: int
    of: int
    unit: str
    text: str
    read_share: float | None = None
    bound: Bound | None = None


class Number(BaseModel):
    """A report entry (``analysis.methods.base.number``); a method may add what the number is of (trust: the strategy
    its Spearman is taken on, a note)."""

    model_config = ConfigDict(extra="allow")

    value: float | None
    reason: str | None
    coverage: Coverage | None = None
    chance_reason: str | None = None

    @model_validator(mode="after")
    def _value_or_reason(self) -> Number:
        if self.value is None and not self.reason:
            raise ValueError("an undefined number needs its reason")
        if self.value is not None and (self.reason is not None or not math.isfinite(self.value)):
            raise ValueError(f"a number {self.value} is finite and has no reason (reason: {self.reason!r})")
        return self


class Count(BaseModel):
    """A ``counts`` entry (``analysis.methods.base.counts``): of ``n`` replies of a kind, ``count`` left out; their
    share with its 95 % Wilson interval (all None when ``n`` = 0)."""

    model_config = ConfigDict(extra="allow")

    kind: str
    count: int
    n: int
    rate: float | None
    lo: float | None
    hi: float | None

    @model_validator(mode="after")
    def _share(self) -> Count:
        if (self.rate is None) != (self.n == 0) or (self.n > 0 and not 0 <= self.count <= self.n):
            raise ValueError(f"{self.kind}: {self.count} of {self.n} with rate {self.rate}")
        return self


class ModelReport(BaseModel):
    """One model's document in a report: its headlines (by ``Headline.key``) and counts; the method's own fields."""

    model_config = ConfigDict(extra="allow")

    headlines: dict[str, Number]
    counts: list[Count]


class Report(BaseModel):
    """A method's report: ``{"models": {model: ModelReport}, ...}`` (the method's other sections as they are)."""

    model_config = ConfigDict(extra="allow")

    models: dict[str, ModelReport]


def checked(doc: dict[str, Any], headline_keys: tuple[str, ...], model: type[Report] = Report) -> dict[str, Any]:
    """``doc`` itself once it is a ``model`` (the method's ``Report``) whose every model holds exactly the method's
    headlines (``headline_keys``); ``ValueError`` naming what is wrong otherwise."""
    report = model.model_validate(doc)
    for model, entry in report.models.items():
        if set(entry.headlines) != set(headline_keys):
            raise ValueError(f"model {model}: headlines {sorted(entry.headlines)}, the method declares "
                             f"{sorted(headline_keys)}")
    return doc
