"""The order models are listed in, everywhere (sidebar, pages, legends, Samples, the report file): real models before
the embedded one. A model whose newest run was made by the embedded SmolLM2 (``backend == "embedded"``) is a pipeline
check near chance; imported published answers and any endpoint's runs are real models, and a reader opens on them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

EMBEDDED = "embedded"


def is_embedded(spec: Mapping[str, Any] | None) -> bool:
    """Whether a model spec (as a run stores it) is the embedded model's."""
    return (spec or {}).get("backend") == EMBEDDED


def real_first(models: Iterable[str], specs: Mapping[str, Mapping[str, Any] | None]) -> list[str]:
    """``models`` (duplicates dropped) with every real model first, each group by name; ``specs``: model -> its spec
    (a model without one counts as real)."""
    return sorted(dict.fromkeys(models), key=lambda m: (is_embedded(specs.get(m)), str(m)))


def store_specs(store: Any) -> dict[str, dict[str, Any]]:
    """Model -> the spec of its newest run in ``store`` (an ``analysis.runs.store.Store``)."""
    import json

    frame = store.frame("SELECT model, model_spec FROM runs ORDER BY created_at")
    return {m: json.loads(s) if isinstance(s, str) else {} for m, s in zip(frame["model"], frame["model_spec"])}
