"""The values replies as samples (``analysis.samples``): one per questionnaire answer; the conversation turns before
them are shown with an answer (they are not read)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis.samples import build, concat, finish_reasons, is_one


def _parsed(rows: pd.DataFrame) -> pd.Series:
    """'Like me (5)': the option read and the score it counts as (not its letter: options are permuted, and a letter
    means the same answer only within one permutation)."""
    label = rows["option_label"].astype("string")
    score = pd.to_numeric(rows["score"], errors="coerce").map(lambda s: f"{s:g}", na_action="ignore").astype("string")
    return (label + " (" + score + ")").fillna(label).fillna(score)


def samples(store, run_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Each stored answer: persona, item (id and value), context · instrument · sample, the letter read and its score."""
    rows = store.table("values_answers", run_ids)
    if rows.empty:
        return concat([])
    return build(
        rows, method="values", kind="answer", table="values_answers",
        key=("run_id", "persona_id", "context", "item_id", "sample"), persona_id="persona_id", persona="persona",
        item=lambda r: r["item_id"].astype(str) + " · " + r["value"].fillna("").astype(str),
        context=lambda r: r["context"].astype(str) + " · " + r["instrument"].astype(str)
        + r["sample"].map(lambda s: f" · sample {s}" if pd.notna(s) and int(s) > 0 else ""),
        parsed=_parsed, reply="raw", valid=is_one("valid"), scored=True,
        truncated=_truncated(rows, finish_reasons(store, run_ids)))


def _truncated(rows: pd.DataFrame, finish: pd.Series) -> pd.Series:
    """A text or CoT reply that hit its length limit; a logprob answer is one token by design (never truncated)."""
    hit = rows["cache_key"].map(finish).eq("length")
    return hit.where(rows["mode"] != "logprob", False)
