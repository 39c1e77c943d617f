"""Published figures bundled with RoleScope: numbers the papers and the leaderboard print for real models.

Each file in ``data/<method>/`` a method names (``Method.published``) is a fact with its citation (``source``: paper or page, table, row,
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
COLUMNS = ["method", "model", "metric", "value", "better", "source"]


@lru_cache(maxsize=None)
def load(method: str) -> dict[str, Any]:
    """The bundled document of ``method`` (``Method.published``: its file under ``data/``); KeyError for a method
    without published figures."""
    from analysis import methods

    figures = methods.get(method).published
    if figures is None:
        raise KeyError(method)
    return json.loads((DATA / figures.file).read_text(encoding="utf-8"))


def published_rows(method: str | None = None) -> pd.DataFrame:
    """Every bundled figure (or one method's) as a long table (``COLUMNS``), from each method's ``Published.rows``."""
    from analysis import methods

    rows = [{"method": m.name, **r} for m in methods.all_methods() if m.published is not None and method in (None, m.name)
            for r in m.published.rows(load(m.name))]
    return pd.DataFrame(rows, columns=COLUMNS)
