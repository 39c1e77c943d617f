"""The JSON object of a reply: the first one, looked for in ```code fences``` first, then anywhere (prose around it
is ignored; trailing commas are forgiven)."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _first_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    for candidate in (text, _TRAILING_COMMA.sub(r"\1", text)):
        for i, ch in enumerate(candidate):
            if ch != "{":
                continue
            try:
                obj, _ = decoder.raw_decode(candidate, i)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                return obj
    return None


def extract_json(reply: str) -> dict[str, Any] | None:
    """The first JSON object in the reply: inside code fences first, else anywhere in the text."""
    for block in _FENCE.findall(reply):
        if (obj := _first_object(block)) is not None:
            return obj
    return _first_object(reply)


