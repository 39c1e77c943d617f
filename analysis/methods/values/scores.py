"""Questionnaire answers -> item matrices, value scores and ipsatised value scores.

Input is the store's ``values_answers`` table (one row per asked item; see
``analysis.methods.values.questionnaire.ANSWERS``). Only rows with ``valid == 1`` and an item stage
(``item`` for the PVQ; ``svs_most``, ``svs_least``, ``svs_rest`` for the SVS) carry scores;
``svs_pick_*`` rows record which item was picked, not a rating, and are ignored. When an
item was asked several times (``sample`` > 0, or the same context in several runs) its score
is the mean over those answers.

Formulas (Schwartz 2003 scoring; Kovač et al. 2024, "Stick to Your Role!", and the
reference code's ``per_part_normalized_scores``):

- value score  = mean of the persona's item scores over the items keyed to that value;
- ipsatised    = value score − the persona's mean over *all* items of the instrument
  (keyed and unkeyed, e.g. the 11 unkeyed SVS items), in that context.

Items without any valid answer are left out of both means (they are NaN in ``item_matrix``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.methods.values import VALUES

ITEM_STAGES = ("item", "svs_most", "svs_least", "svs_rest")
GROUP_KEYS = ["model", "context", "instrument", "persona_id"]
SCORE_COLUMNS = [*GROUP_KEYS, "value", "score", "ipsatised"]


def _item_rows(answers: pd.DataFrame) -> pd.DataFrame:
    """Rows of item stages, with ``vscore`` = the score when the answer is valid, else NaN."""
    rows = answers[answers["stage"].isin(ITEM_STAGES)]
    valid = pd.to_numeric(rows["valid"], errors="coerce").fillna(0).astype(int) == 1
    score = pd.to_numeric(rows["score"], errors="coerce").astype(float)
    return rows.assign(vscore=score.where(valid))


def _item_order_key(item_id: str) -> tuple[int, float, str]:
    """Instrument order for ids like '1'..'40' (numeric), other ids after them by name."""
    text = str(item_id)
    return (0, float(text), "") if re.fullmatch(r"\d+", text) else (1, 0.0, text)


def item_matrix(
    answers: pd.DataFrame,
    *,
    model: str | None = None,
    context: str,
    instrument: str,
    item_order: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Persona × item raw scores (mean over samples of valid answers; NaN when none is valid).

    Index ``persona_id`` (sorted): every persona with an item row in this model/context/
    instrument, even if all its answers are invalid. Columns ``item_id`` in instrument order:
    ``item_order`` when given, else numeric ids ascending. ``model`` may be omitted when the
    answers hold a single model.
    """
    rows = _item_rows(answers)
    rows = rows[(rows["context"] == context) & (rows["instrument"] == instrument)]
    if model is not None:
        rows = rows[rows["model"] == model]
    elif rows["model"].nunique(dropna=False) > 1:
        raise ValueError(f"answers hold several models {sorted(map(str, rows['model'].unique()))}: pass model=")
    matrix = rows.pivot_table(index="persona_id", columns="item_id", values="vscore", aggfunc="mean", dropna=False)
    items = [str(i) for i in rows["item_id"].unique()]
    order = list(item_order) if item_order is not None else sorted(items, key=_item_order_key)
    personas = np.sort(rows["persona_id"].unique())
    matrix = matrix.reindex(index=personas, columns=order)
    matrix.index.name, matrix.columns.name = "persona_id", "item_id"
    return matrix.astype(float)


def value_scores(answers: pd.DataFrame) -> pd.DataFrame:
    """Long table: model, context, instrument, persona_id, value, score, ipsatised.

    ``score`` = mean of the persona's item scores for the value's keyed items;
    ``ipsatised`` = score − mean of the persona's item scores over all items of the
    instrument in that context (valid answers only; see the module docstring).
    One row per (model, context, instrument, persona, value) that has at least one asked
    item; ``score`` is NaN when none of its answers is valid. Values come in ``VALUES`` order.
    """
    rows = _item_rows(answers)
    if rows.empty:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    items = rows.groupby([*GROUP_KEYS, "item_id"], dropna=False, sort=False).agg(
        value=("value", "first"), score=("vscore", "mean"))
    persona_mean = items.groupby(level=GROUP_KEYS, dropna=False, sort=False)["score"].mean().rename("persona_mean")
    keyed = items[items["value"].notna()].reset_index()
    out = keyed.groupby([*GROUP_KEYS, "value"], dropna=False, sort=False)["score"].mean().reset_index()
    out = out.join(persona_mean, on=GROUP_KEYS)
    out["ipsatised"] = out["score"] - out["persona_mean"]
    rank = {v: i for i, v in enumerate(VALUES)}
    out = out.assign(_v=out["value"].map(rank).fillna(len(VALUES)))
    out = out.sort_values([*GROUP_KEYS, "_v", "value"], kind="stable")
    return out[SCORE_COLUMNS].reset_index(drop=True)


def value_means(scores: pd.DataFrame, column: str = "ipsatised") -> pd.DataFrame:
    """Mean score per context x value over personas (columns context, value, mean, sd, n)."""
    if scores.empty:
        return pd.DataFrame(columns=["context", "value", "mean", "sd", "n"])
    out = scores.groupby(["context", "value"], sort=False)[column].agg(mean="mean", sd="std", n="count").reset_index()
    order = {v: i for i, v in enumerate(VALUES)}
    return out.sort_values(["context", "value"], key=lambda s: s.map(order) if s.name == "value" else s, kind="stable")
