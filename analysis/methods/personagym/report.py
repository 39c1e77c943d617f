"""The paper's Table 1 and Fig. 4 as frames to show, from the ``metrics personagym --json`` document.

- ``table1_frame``: one row per model, a column per task and PersonaScore, each cell "mean (SD)" as the paper prints
  it (SD over personas; "—" when undefined, e.g. one persona), plus the number of personas scored on all five tasks;
  after each group of two or more models, the paper's last row: the spread among models (max − min of the means).
- ``figure4_frame``: refusals per model (the paper's Fig. 4) with the answers they are out of.
- ``evaluator_frame``: one model's task scores and PersonaScore per evaluator (the ensemble's parts).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from analysis.methods.personagym import TASKS

COLUMNS = (*TASKS, "PersonaScore")


def cell(value: Mapping[str, Any] | None) -> str:
    """'3.50 (1.29)'; the mean alone when the SD is undefined; '—' when the mean is."""
    value = value or {}
    mean, sd = value.get("mean"), value.get("sd")
    if mean is None:
        return "—"
    return f"{mean:.2f}" + (f" ({sd:.2f})" if sd is not None else " (—)")


def _spread_row(spread: Mapping[str, float | None], source: str) -> dict[str, Any]:
    return {"model": "spread (max − min)", "source": source,
            **{c: "—" if spread.get(c) is None else f"{spread[c]:.2f}" for c in COLUMNS}, "personas": None}


def self_graded(doc: Mapping[str, Any], model: str) -> bool:
    """Whether the agent ``model`` was also its own evaluator or question generator in this report."""
    return bool(((doc.get("models") or {}).get(model, {}).get("self_graded") or {}).get("value"))


def source_label(doc: Mapping[str, Any], model: str) -> str:
    """Where a row of ours comes from, marked when self-graded (its grades are not comparable with the paper's)."""
    return "this store · self-graded" if self_graded(doc, model) else "this store"


def series_name(doc: Mapping[str, Any], model: str) -> str:
    """A model's name on a chart: marked "(self-graded)" when it graded itself, wherever its bars appear."""
    return f"{model} (self-graded)" if self_graded(doc, model) else model


def table1_frame(doc: Mapping[str, Any], models: Iterable[str], paper: Iterable[str] = ()) -> pd.DataFrame:
    """Table 1 rows for ``models`` of this store, then the paper's rows named in ``paper``; each group of two or more
    models ends with its spread row."""
    table = doc.get("table1") or {}
    ours = []
    for m in models:
        row = (table.get("models") or {}).get(m) or {}
        ours.append({"model": m, "source": source_label(doc, m), **{c: cell(row.get(c)) for c in COLUMNS},
                     "personas": (row.get("PersonaScore") or {}).get("n_personas")})
    published = table.get("paper") or {}
    theirs = [{"model": m, "source": "paper, Table 1", **{c: cell(((published.get("models") or {}).get(m) or {}).get(c))
                                                         for c in COLUMNS}, "personas": 200} for m in paper]
    rows = ours + ([_spread_row(table.get("spread") or {}, "this store")] if len(ours) > 1 else [])
    rows += theirs + ([_spread_row(published.get("spread") or {}, "paper, Table 1")] if len(theirs) > 1 else [])
    return pd.DataFrame(rows, columns=["model", "source", *COLUMNS, "personas"])


def figure4_frame(doc: Mapping[str, Any], models: Iterable[str]) -> pd.DataFrame:
    """Columns model, refusals, n_answers, share (None without answers)."""
    fig = doc.get("figure4") or {}
    rows = [{"model": m, "refusals": fig[m]["refusals"], "n_answers": fig[m]["n_answers"],
             "share": fig[m]["refusals"] / fig[m]["n_answers"] if fig[m]["n_answers"] else None}
            for m in models if m in fig]
    return pd.DataFrame(rows, columns=["model", "refusals", "n_answers", "share"])


def evaluator_frame(model_doc: Mapping[str, Any]) -> pd.DataFrame:
    """One row per evaluator: its task scores and PersonaScore (None where undefined)."""
    rows = [{"evaluator": ev, **(d.get("tasks") or {}), "PersonaScore": d.get("persona_score")}
            for ev, d in (model_doc.get("by_evaluator") or {}).items()]
    return pd.DataFrame(rows, columns=["evaluator", *COLUMNS])
