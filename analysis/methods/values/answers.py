"""The values answers a report reads (``latest_answers``), in a module light enough for the pages' samples panels
(``Method.answers``): pandas and the store only, not the metrics' scipy and semopy."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis.methods.values.families import FAMILY
from analysis.runs import comparable
from analysis.runs.store import Store


def latest_answers(store: Store, model: str | None = None, config: comparable.Chosen = None,
                   selection: comparable.Selection | None = None, *, without: Sequence[str] = ()) -> pd.DataFrame:
    """values_answers of each model's chosen configuration (``analysis.runs.comparable``: the latest unless ``config``
    names another), keeping within it the newest run of each context × instrument (a re-run replaces, it does not
    pool). Runs of another configuration (other population, instrument, answer mode, params ...) never mix in.
    ``without``: columns left out (``NOT_READ`` for the report)."""
    selection = selection or comparable.select(store, FAMILY, model=model, config=config)
    answers = store.table("values_answers", run_ids=selection.run_ids(), without=without)
    if answers.empty:
        return answers
    return comparable.latest_rows(answers, ["model", "context", "instrument"], selection.order).reset_index(drop=True)


def answers(store: Store, model: str | None = None, *, config: comparable.Chosen = None) -> pd.DataFrame:
    """``Method.answers``: the rows the report reads (``latest_answers``)."""
    return latest_answers(store, model, config=config)
