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
    """Model -> the spec of its newest run in ``store`` (an ``analysis.runs.store.Store``), carrying the mark of a
    run imported from an edited report file (``analysis.runs.provenance.EDITED``) when any of its runs has it."""
    import json

    from analysis.runs.provenance import EDITED

    frame = store.frame("SELECT model, model_spec FROM runs ORDER BY created_at")
    specs: dict[str, dict[str, Any]] = {}
    for model, text in zip(frame["model"], frame["model_spec"]):
        spec = json.loads(text) if isinstance(text, str) else {}
        mark = spec.get(EDITED) or (specs.get(model) or {}).get(EDITED)
        specs[model] = {**spec, EDITED: mark} if mark else spec
    return specs
