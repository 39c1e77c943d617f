"""The figures the leaderboard publishes for real models, bundled in ``data/values/leaderboard_published.json`` with their
source (``analysis.published``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.methods.base import Published


def rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The leaderboard's Cardinal, Ordinal and rank-order columns per model (all higher is better)."""
    return [{"model": m, "metric": k, "value": v, "better": "higher", "source": doc["source"]}
            for m, row in doc["models"].items() for k, v in row.items()]


PUBLISHED = Published("values/leaderboard_published.json", rows)
