"""Model ids as providers echo them: whether a reply's ``model`` names the model its request was sent to.

A chat completion's body carries the id of the model that answered (``"model": "gpt-4o-2024-08-06"``). Providers do
not echo the requested id to the letter, so ``same_model`` accepts what they change and nothing else:

- **case**: ``GPT-4o`` is ``gpt-4o``;
- **a provider or organisation prefix** on one side only, or a longer path ending in the other's: ``openai/gpt-4o``
  is ``gpt-4o``, ``meta-llama/Llama-3.1-8B-Instruct`` is ``Llama-3.1-8B-Instruct`` and
  ``/models/meta-llama/Llama-3.1-8B-Instruct``; two different prefixes (``meta-llama/X``, ``other/X``) are two models;
- **a snapshot of the requested alias**: the echo is the requested id followed by ``-`` and a date or version, and
  nothing else: ``gpt-4o`` answered by ``gpt-4o-2024-08-06``, ``gpt-4`` by ``gpt-4-0613``, ``gemini-1.5-pro`` by
  ``gemini-1.5-pro-002``, ``mistral-7b-instruct`` by ``mistral-7b-instruct-v0.3``;
- **a ``-latest`` alias**, which by definition names whatever snapshot is current: ``claude-3-5-sonnet-latest`` is
  answered by ``claude-3-5-sonnet-20241022`` (or by ``claude-3-5-sonnet``).

Never the same model: another size or variant (``gpt-4o-mini`` for ``gpt-4o``, ``gpt-4-32k`` or ``gpt-4o`` for
``gpt-4``), another family (``gpt-3.5-turbo`` for ``gpt-4``), another snapshot than the one requested
(``gpt-4o-2024-05-13`` for ``gpt-4o-2024-08-06``), and an alias for a pinned snapshot (``gpt-4o`` for
``gpt-4o-2024-08-06``: the echo may add a snapshot to what was asked, never drop or change one). A deployment name
(Azure) echoed as the model behind it is not recognised: the ids share nothing to compare.
"""

from __future__ import annotations

import re
from typing import Any

from analysis.errors import one_line
from analysis.llm.keys import clip

#: What a snapshot adds to an alias after its ``-``: a date (2024-08-06, 20241022), a month and day or a short
#: revision number (0613, 002), or a version (v1, v0.3).
_SNAPSHOT = re.compile(r"\d{4}-\d{2}-\d{2}|\d{8}|\d{3,4}|v\d+(?:\.\d+)*")
_LATEST = "-latest"


def same_model(requested: str, echoed: str) -> bool:
    """Whether ``echoed`` (a reply body's ``model``) names the model ``requested`` (the id the request was sent to):
    equal but for case, a provider/organisation prefix on one side, and a dated or versioned snapshot of a requested
    alias (module docstring). ``gpt-4o-mini`` is not ``gpt-4o``, nor ``gpt-3.5-turbo`` ``gpt-4``."""
    want, got = _segments(requested), _segments(echoed)
    if not want or not got:
        return want == got
    shorter, longer = sorted((want[:-1], got[:-1]), key=len)
    if longer[len(longer) - len(shorter):] != shorter:  # the prefixes differ where both have one
        return False
    return _same_name(want[-1], got[-1])


def _segments(model_id: str) -> list[str]:
    """The id's ``/``-separated parts, lower-cased, without empty ones (a leading ``/`` of a path)."""
    return [part for part in model_id.strip().casefold().split("/") if part]


def _same_name(requested: str, echoed: str) -> bool:
    if echoed == requested:
        return True
    alias = requested.removesuffix(_LATEST)
    if alias != requested and echoed == alias:
        return True
    stem = alias + "-"
    return echoed.startswith(stem) and _SNAPSHOT.fullmatch(echoed[len(stem):]) is not None


def other_model(body: Any, requested: str) -> str | None:
    """Why a chat completion ``body`` cannot be the reply to a request sent to the model ``requested``: its
    ``model`` names another model (``same_model``) or is not text. None when it names that model, or none (no
    ``model`` field, or an empty one). Both names are written on one line (``one_line``), redacted and cut to 80
    characters (``clip``)."""
    echoed = body.get("model") if isinstance(body, dict) else None
    if echoed is None or echoed == "":
        return None
    if not isinstance(echoed, str):
        return f"the reply's model field is {type(echoed).__name__}, not a model id"
    if same_model(requested, echoed):
        return None
    return (f"the reply names the model '{clip(one_line(echoed), 80)}', not '{clip(one_line(requested), 80)}' that "
            "its request was sent to")
