"""Conversation contexts the questionnaire is administered in.

- ``no_conv``: the questions are asked directly.
- topic chunks: one opening message per persona (persona i takes line i of a ``.jsonl`` file of
  ``{"content": ...}``, the reference ``chunk_*.jsonl`` format); the interlocutor plays a human
  user of a chatbot. Bundled chunks live in ``data/values/contexts/*.jsonl``.
- shared openings (``chess``: "1. e4", ``grammar``): every persona gets the same first message
  and the interlocutor plays another persona of the population (``data/values/contexts.json``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from analysis.errors import InputError
from analysis.importers.files import parse_json, read_text
from analysis.methods.values.populations import Persona
from analysis.sources import DATA_DIR, existing_path, hub_file, is_hub_path, split_hub_path

CONTEXT_DIR = DATA_DIR / "values/contexts"
SHARED_OPENINGS = DATA_DIR / "values/contexts.json"


class Context(BaseModel):
    label: str
    kind: Literal["no_conv", "topic", "shared_opening"]
    openings: list[str] = []
    interlocutor: Literal["user", "persona"] = "user"
    partners: list[Persona] | None = Field(
        default=None, description="The interlocutor persona of each persona of the plan, in plan order (shared openings); "
        "None in plans stored before: the next persona of the population.")

    @field_validator("openings")
    @classmethod
    def _openings(cls, value: list[str]) -> list[str]:
        if any(not o.strip() for o in value):
            raise ValueError("an opening message is empty")
        return value

    def opening_for(self, persona_index: int) -> str | None:
        """The opening of persona ``persona_index`` (its id: its line in the population file, as in the reference)."""
        if self.kind == "no_conv":
            return None
        if self.kind == "shared_opening":
            return self.openings[0]
        return self.openings[persona_index]


def available_contexts() -> list[str]:
    shared = list(json.loads(SHARED_OPENINGS.read_text(encoding="utf-8"))) if SHARED_OPENINGS.exists() else []
    return ["no_conv", *sorted(p.stem for p in CONTEXT_DIR.glob("*.jsonl")), *shared]


def load_context(source: str, n_personas: int) -> Context:
    """A bundled label, a ``.jsonl`` chunk path, or an ``hf://`` chunk; checks there are enough lines."""
    if source in ("no_conv", "no_conv_svs"):
        return Context(label=source, kind="no_conv")
    if SHARED_OPENINGS.exists():
        shared = json.loads(SHARED_OPENINGS.read_text(encoding="utf-8"))
        if source in shared:
            entry = shared[source]
            return Context(label=source, kind="shared_opening", openings=[entry["opening"]],
                           interlocutor=entry.get("interlocutor", "persona"))
    if (CONTEXT_DIR / f"{source}.jsonl").exists():
        path = CONTEXT_DIR / f"{source}.jsonl"
    elif is_hub_path(source):
        path = hub_file(*split_hub_path(source))
    elif source.endswith(".jsonl"):
        path = existing_path(source, "context")
    else:
        raise InputError(f"context '{source}': unknown; use one of {available_contexts()} or a chunk .jsonl path")
    return Context(label=path.stem, kind="topic", openings=read_chunk(path, n_personas), interlocutor="user")


def _json_kind(value: object) -> str:
    return ("null" if value is None else "a boolean" if isinstance(value, bool) else "a number"
            if isinstance(value, int | float) else "a list" if isinstance(value, list) else "an object")


def read_chunk(path: Path, n_personas: int) -> list[str]:
    """First ``n_personas`` ``content`` fields of a chunk file (extra lines are unused)."""
    openings: list[str] = []
    for lineno, line in enumerate(read_text(path).splitlines(), 1):
        if len(openings) == n_personas:
            break
        if not line.strip():
            continue
        try:
            content = parse_json(line, path)["content"]
        except (InputError, KeyError, TypeError):
            raise InputError(f"context {path}: line {lineno} is not a JSON object with 'content'") from None
        if not isinstance(content, str) or not content.strip():
            what = "empty" if isinstance(content, str) else f"{_json_kind(content)}, not text"
            raise InputError(f"context {path}: line {lineno}: 'content' is {what}; expected the opening message")
        openings.append(content)
    if len(openings) < n_personas:
        raise InputError(f"context {path}: {len(openings)} openings for {n_personas} personas (persona i takes line i)")
    return openings
