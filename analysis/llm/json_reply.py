"""The JSON object of a reply: the first one, looked for in ```code fences``` first, then anywhere (prose around it
is ignored; trailing commas are forgiven)."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


#: The most "{" a reply's JSON object is looked for at (each in turn, from the first). A failed decode costs up to the
#: rest of the text (its error counts the lines before it), so trying every "{" of a reply of braces was quadratic;
#: a reply whose object comes after more than this many braces that open none is read as holding none.
MAX_OBJECT_STARTS = 64


def _first_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    for candidate in (text, _TRAILING_COMMA.sub(r"\1", text)):
        i = candidate.find("{")
        for _ in range(MAX_OBJECT_STARTS):
            if i < 0:
                break
            try:
                obj, _ = decoder.raw_decode(candidate, i)
            except (ValueError, RecursionError):  # not JSON, over 4,300 digits, or nested deeper than Python's stack
                obj = None
            if isinstance(obj, dict):
                return obj
            i = candidate.find("{", i + 1)
    return None


def extract_json(reply: str) -> dict[str, Any] | None:
    """The first JSON object in the reply: inside code fences first, else anywhere in the text."""
    for block in _FENCE.findall(reply):
        if (obj := _first_object(block)) is not None:
            return obj
    return _first_object(reply)




#: a field of an object with a complete scalar value: a number or a string, followed by "," or "}" (so not cut inside)
_COMPLETE_FIELD = re.compile(r'"((?:[^"\\\n]|\\.){1,60})"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\\n]|\\.)*")\s*[,}]')


def extract_fields(reply: str) -> dict[str, Any] | None:
    """The first JSON object in the reply (``extract_json``); else, of an object cut off by the length limit, the
    fields that were complete before the cut (``{"thought": "…", "amount": 3, "explan`` -> ``{"thought": "…",
    "amount": 3}``: each key's first scalar value followed by "," or "}"); else None."""
    found = extract_json(reply)
    if found is not None:
        return found
    start = reply.find("{")
    fields: dict[str, Any] = {}
    for m in _COMPLETE_FIELD.finditer(reply, max(start, 0)) if start >= 0 else ():
        try:
            key, value = json.loads(f'"{m.group(1)}"'), json.loads(m.group(2))
        except ValueError:
            continue
        fields.setdefault(key, value)
    return fields or None
