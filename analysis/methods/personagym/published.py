"""The figures the paper publishes for real models, bundled in ``data/personagym/paper_table1.json`` with their
source (``analysis.published``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.methods.base import Published


def rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Table 1's five task scores and PersonaScore per model."""
    out = []
    for model, row in doc["models"].items():
        for task, score in zip(doc["tasks"], row["scores"]):
            out.append({"model": model, "metric": f"task/{task}", "value": score, "better": "higher",
                        "source": doc["source"]})
        out.append({"model": model, "metric": "persona_score", "value": row["PersonaScore"], "better": "higher",
                    "source": doc["source"]})
    return out


PUBLISHED = Published("personagym/paper_table1.json", rows)
