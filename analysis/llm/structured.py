"""Structured answers (``--answer-format json``): a JSON schema the endpoint constrains its reply to.

The request carries OpenAI's ``response_format`` ``{"type": "json_schema", "json_schema": {"name", "schema",
"strict": false}}``, which OpenAI, vLLM (guided decoding) and llama.cpp's server (the embedded model: a grammar built
from the schema) all accept. It is stored in the request as canonical JSON text, so a request stays hashable and its
cache key stable; the client sends it as an object. The schema constrains the form only: the readers still validate
every value (range, levels), and a reply that is not the schema's object is invalid with the reason, as in text mode.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, model_serializer

from analysis.llm.json_reply import extract_json

AnswerFormat = Literal["text", "json"]
ANSWER_FORMATS: tuple[str, ...] = ("text", "json")


def response_format(name: str, schema: dict[str, Any], *, in_order: bool = False) -> str:
    """The ``response_format`` request param for ``schema`` (canonical JSON text; ``analysis.llm.client`` sends it as an
    object). Canonical text sorts an object's properties by name, and a grammar built from the schema (llama.cpp) asks
    for them in that order; ``in_order`` keeps them as ``schema`` lists them (a reasoning field before the answer), the
    text as stable, since the code builds the schema the same way every time."""
    return json.dumps({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}},
                      sort_keys=not in_order, separators=(",", ":"))


def obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A JSON-schema object with these properties, all required unless said otherwise, nothing else allowed."""
    return {"type": "object", "properties": properties, "required": list(properties) if required is None else required,
            "additionalProperties": False}


def whole(low: int, high: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": low, "maximum": high}


def enum(values: Sequence[str]) -> dict[str, Any]:
    """A string that is one of ``values`` (an option set, as shown)."""
    return {"type": "string", "enum": list(values)}


TEXT = {"type": "string"}
#: A reason or explanation beside a structured answer: bounded, so that a model that loops inside the string (a small
#: model does, for hundreds of tokens) is closed by the grammar and the answer's other fields still come.
SHORT_TEXT = {"type": "string", "maxLength": 400}


class UnstatedTextFormat(BaseModel):
    """A plan with an ``answer_format`` field: the default ``text`` is left out of the stored plan, so plans stored
    before the choice existed keep their signature (``analysis.runs.comparable``) and pool with new text runs."""

    @model_serializer(mode="wrap")
    def _text_format_unstated(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("answer_format") == "text":
            del data["answer_format"]
        return data


#: The field of a structured reply that holds its answer (beside an optional reasoning field before it).
ANSWER = "answer"
#: How the stored reason of a structured reply read by the method's text reader begins.
TEXT_FALLBACK = "text fallback"


def answer_field(reply: str | None, field: str = ANSWER) -> tuple[Any, str]:
    """The value of ``field`` in a structured reply's JSON object (``analysis.llm.json_reply``; keys in any case) and
    "", or None and why the JSON could not be read."""
    obj = extract_json(reply or "")
    if obj is None:
        return None, "no JSON object in the reply"
    keys = {str(k).strip().lower(): v for k, v in obj.items()}
    if keys.get(field) is None:
        return None, f'no "{field}" field in its JSON object'
    return keys[field], ""


class _Read(Protocol):
    reason: str


R = TypeVar("R", bound=_Read)


def read_structured(reply: str | None, from_value: Callable[[Any], R], from_text: Callable[[str], R],
                    field: str = ANSWER) -> R:
    """A structured reply read: its JSON answer field by ``from_value`` (a value outside the option set or scale is
    invalid with the reason, as in text mode); only when the JSON cannot be read, the method's text reader
    ``from_text`` on the whole reply, its reason saying so ("text fallback: no JSON object in the reply", then the
    text reader's own reason when it read nothing). ``R``: a frozen dataclass with a ``reason``."""
    value, why = answer_field(reply, field)
    if not why:
        return from_value(value)
    read = from_text(reply or "")
    return dataclasses.replace(read, reason=f"{TEXT_FALLBACK}: {why}" + (f"; {read.reason}" if read.reason else ""))
