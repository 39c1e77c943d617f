"""The bundled demo stores only amounts its replies decide (the labelled corpus is ``corpora/trust-amount.jsonl``,
measured by ``tests/test_reader_corpora.py``)."""

from __future__ import annotations

import sqlite3

import pytest

from analysis.demo_store import bundled_demo_store
from analysis.methods.trust.parse import extract_amount


def test_demo_store_stores_only_decided_amounts() -> None:
    """Every valid transfer or round of the bundled demo states the amount stored (re-derived from its raw replies)."""
    path = bundled_demo_store()
    if not path.exists():
        pytest.skip("no bundled demo store")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT t.raw, t.sent, t.valid, t.endowment, c.finish_reason FROM trust_transfers t JOIN calls c USING (cache_key)"
            " UNION ALL SELECT r.raw, r.sent, r.valid, r.endowment, c.finish_reason FROM trust_rounds r"
            " JOIN calls c USING (cache_key)").fetchall()
    finally:
        conn.close()
    assert rows
    for raw, sent, valid, endowment, finish in rows:
        got = extract_amount(raw, endowment, finish)
        assert (got.amount if got.valid else None) == (sent if valid else None), raw[:200]
