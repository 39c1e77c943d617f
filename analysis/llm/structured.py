"""Structured answers (``--answer-format json``): a JSON schema the endpoint constrains its reply to.

The request carries OpenAI's ``response_format`` ``{"type": "json_schema", "json_schema": {"name", "schema",
"strict": false}}``, which OpenAI, vLLM (guided decoding) and llama.cpp's server (the embedded model: a grammar built
from the schema) all accept. It is stored in the request as canonical JSON text, so a request stays hashable and its
cache key stable; the client sends it as an object. The schema constrains the form only: the readers still validate
every value (range, levels), and a reply that is not the schema's object is invalid with the reason, as in text mode.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, model_serializer

AnswerFormat = Literal["text", "json"]
ANSWER_FORMATS: tuple[str, ...] = ("text", "json")


def response_format(name: str, schema: dict[str, Any]) -> str:
    """The ``response_format`` request param for ``schema`` (canonical JSON text; ``analysis.llm.client`` sends it as an
    object)."""
    return json.dumps({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}},
                      sort_keys=True, separators=(",", ":"))


def obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A JSON-schema object with these properties, all required unless said otherwise, nothing else allowed."""
    return {"type": "object", "properties": properties, "required": list(properties) if required is None else required,
            "additionalProperties": False}


def whole(low: int, high: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": low, "maximum": high}


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
