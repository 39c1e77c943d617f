"""The MBTI replies as samples (``analysis.samples``): one per statement asked of a subject in a testing."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis.methods.mbti import OPTIONS
from analysis.samples import build, concat, is_one, reply_or_note


def _option(rows: pd.DataFrame) -> pd.Series:
    """The option read, by its words (not its letter: options are permuted per testing); from its canonical index
    where only that was stored."""
    index = pd.to_numeric(rows["option_index"], errors="coerce")
    named = index.map(lambda i: OPTIONS[int(i)] if pd.notna(i) and 0 <= int(i) < len(OPTIONS) else None)
    return rows["option"].where(rows["option"].notna(), named)


def samples(store, run_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Each answer: subject, statement, order · testing, the option read."""
    rows = store.table("mbti_answers", run_ids)
    if rows.empty:
        return concat([])
    return build(
        rows, method="mbti", kind="answer", table="mbti_answers",
        key=("run_id", "subject", "order_mode", "testing", "statement_id"), persona_id="subject",
        item=lambda r: r["statement_id"].astype(str) + " · " + r["statement"].fillna("").astype(str),
        context=lambda r: r["order_mode"].astype(str) + " · testing " + r["testing"].astype(str),
        parsed=_option,
        reply=reply_or_note, valid=is_one("valid"), scored=True,
        truncated="truncated")
