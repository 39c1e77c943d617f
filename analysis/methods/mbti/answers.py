"""The mbti answers a report reads (``selected_answers``), in a module light enough for the pages' samples panels
(``Method.answers``): pandas and the store only, not the report's scipy."""

from __future__ import annotations

import pandas as pd

from analysis.methods.mbti.families import FAMILY
from analysis.methods.mbti.session import ANSWERS
from analysis.runs import comparable
from analysis.runs.store import Store


def selected_answers(store: Store, model: str | None = None, config: comparable.Chosen = None,
                     selection: comparable.Selection | None = None) -> pd.DataFrame:
    """``mbti_answers`` of each model's chosen configuration (``analysis.runs.comparable``: same statements, answer
    mode, decoding, history, seed ...), keeping within it the latest run of each subject × order × testing."""
    selection = selection or comparable.select(store, FAMILY, model=model, config=config)
    answers = store.table(ANSWERS.name, run_ids=selection.run_ids())
    return comparable.latest_rows(answers, ["model", "subject", "order_mode", "testing"], selection.order)


def answers(store: Store, model: str | None = None, *, config: comparable.Chosen = None) -> pd.DataFrame:
    """``Method.answers``: the rows the report reads (``selected_answers``)."""
    return selected_answers(store, model, config=config).reset_index(drop=True)
