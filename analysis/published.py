"""Published figures bundled with RoleScope: numbers the papers and the leaderboard print for real models.

Each file in ``data/<method>/`` named here is a fact with its citation (``source``: paper or page, table, row,
date read). They are shown beside the user's models — labelled "published", never mixed into the user's own
metrics, never pooled into a mean or a ranking with them. ``published_rows`` gives one long table for the pages:
method, model, metric, value, better ("higher"/"lower"), source.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

DATA = Path(__file__).resolve().parents[1] / "data"
FILES = {
    "values": DATA / "values/leaderboard_published.json",
    "trust": DATA / "trust/paper_tables.json",
    "personagym": DATA / "personagym/paper_table1.json",
}
COLUMNS = ["method", "model", "metric", "value", "better", "source"]


@lru_cache(maxsize=None)
def load(method: str) -> dict[str, Any]:
    """The bundled document of ``method`` (KeyError for a method without published figures)."""
    return json.loads(FILES[method].read_text(encoding="utf-8"))


def _values() -> list[dict[str, Any]]:
    doc = load("values")
    return [{"method": "values", "model": m, "metric": k, "value": v, "better": "higher", "source": doc["source"]}
            for m, row in doc["models"].items() for k, v in row.items()]


def _trust() -> list[dict[str, Any]]:
    doc = load("trust")
    rows = []
    source = doc["source"]
    for strategy, attrs in doc["table3"]["strategies"].items():
        for model, pair in attrs["Median"].items():
            for metric, better in (("spearman", "higher"), ("abs_diff", "lower")):
                rows.append({"method": "trust", "model": model, "metric": f"median_{metric}/{strategy}", "value": pair[metric],
                             "better": better, "source": f"{source}, Table 3, row 'Median' of {strategy}"})
    for condition, models in doc["table4"]["conditions"].items():
        for model, value in models.items():
            rows.append({"method": "trust", "model": model, "metric": f"conditioning/{condition}", "value": value,
                         "better": "higher", "source": f"{source}, Table 4, row '{condition}'"})
    return rows


def _personagym() -> list[dict[str, Any]]:
    doc = load("personagym")
    rows = []
    for model, row in doc["models"].items():
        for task, score in zip(doc["tasks"], row["scores"]):
            rows.append({"method": "personagym", "model": model, "metric": f"task/{task}", "value": score,
                         "better": "higher", "source": doc["source"]})
        rows.append({"method": "personagym", "model": model, "metric": "persona_score", "value": row["PersonaScore"],
                     "better": "higher", "source": doc["source"]})
    return rows


def published_rows(method: str | None = None) -> pd.DataFrame:
    """Every bundled figure (or one method's) as a long table (``COLUMNS``)."""
    builders = {"values": _values, "trust": _trust, "personagym": _personagym}
    rows = [r for name, build in builders.items() if method in (None, name) for r in build()]
    return pd.DataFrame(rows, columns=COLUMNS)
