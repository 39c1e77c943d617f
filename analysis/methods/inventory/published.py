"""The figures the paper publishes for real models (Serapio-García et al. 2025, Nature Machine Intelligence, Table 1),
bundled in ``published.json`` with their source (``analysis.published``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Table 1's convergent and discriminant validity per model."""
    return [{"model": model, "metric": f"mtmm/{metric}", "value": value, "better": "higher", "source": doc["source"]}
            for model, row in doc["models"].items() for metric, value in row.items()]
