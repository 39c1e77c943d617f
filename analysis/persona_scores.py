"""Persona-level scores: what one method says about each persona, in the one shape every report uses for it.

A method's report may hold, per model, ``persona_scores``::

    {"constructs": {construct id: label}, "secondary": [construct ids], "frame": frame_doc}

whose frame has the columns ``persona_id`` (the method's own id, as text), ``key`` (``persona_key`` of the persona's
description), ``description`` and one column per construct id, one row per persona the method scored (NaN where this
persona has no valid answer to that construct). Analyses across methods join rows by ``key``: the identity comes
from the persona's own text, never from a row's position or a method's internal numbering.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

ID_COLUMNS = ("persona_id", "key", "description")


def persona_key(description: str) -> str:
    """12 hex digits of the SHA-256 of the description with its whitespace collapsed: the same persona text given to
    two methods has one key, however each method numbers it or wraps its lines."""
    return hashlib.sha256(" ".join(str(description).split()).encode()).hexdigest()[:12]


def plan_descriptions(plans: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """persona id (as text) -> description, from the ``personas`` lists of run plans (a later plan wins)."""
    out: dict[str, str] = {}
    for plan in plans:
        for persona in plan.get("personas") or []:
            if isinstance(persona, Mapping) and persona.get("description") is not None:
                out[str(persona.get("id"))] = str(persona["description"])
    return out


def persona_scores_doc(frame: pd.DataFrame, constructs: Mapping[str, str], secondary: Iterable[str] = ()) -> dict[str, Any]:
    """The report entry of a frame with ``persona_id``, ``description`` and the construct columns (``key`` is added
    here). Personas without a description are left out: they cannot be identified across methods. ``secondary``:
    constructs that refine others (an inventory's facets), shown across methods only where a pair names them."""
    from analysis.methods.base import frame_doc

    frame = frame[frame["description"].notna()].copy()
    frame["persona_id"] = frame["persona_id"].astype(str)
    frame["key"] = [persona_key(d) for d in frame["description"]]
    cols = [*ID_COLUMNS, *constructs]
    frame = frame.reindex(columns=cols)
    for c in constructs:
        frame[c] = pd.to_numeric(frame[c], errors="coerce").astype(float)
    return {"constructs": dict(constructs), "secondary": list(secondary), "frame": frame_doc(frame.reset_index(drop=True))}


def read_persona_scores(doc: Mapping[str, Any] | None) -> tuple[pd.DataFrame, dict[str, str]]:
    """(frame indexed by ``key`` with ``persona_id``, ``description`` and the construct columns, constructs) of a
    report entry; an empty frame when the report has none."""
    from analysis.methods.base import doc_frame

    if not doc:
        return pd.DataFrame(columns=list(ID_COLUMNS)).set_index("key"), {}
    frame = doc_frame(doc["frame"])
    constructs = dict(doc.get("constructs") or {})
    for c in constructs:
        frame[c] = pd.to_numeric(frame[c], errors="coerce").astype(float)
    return frame.drop_duplicates("key", keep="last").set_index("key"), constructs


class CampaignPersona(BaseModel):
    """A persona every method of a cross-method campaign is given: its id (unique in the set), name, description (what
    each method's prompt places, a noun phrase: "Amara Okafor (born 1979), a Nigerian obstetrician …"), sex
    (F or M: the PVQ's gendered wording and the inventory norms need it) and age in years."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    sex: Literal["F", "M"]
    age: int = Field(ge=18, le=110)

    @property
    def key(self) -> str:
        return persona_key(self.description)
