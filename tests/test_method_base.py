"""The helpers of the method contract (analysis.methods.base), checked by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.methods.base import counts, doc_frame, frame_doc, number


def test_counts_carry_the_wilson_interval_by_hand():
    """Of 20 replies 4 unusable: share 0.2 with the Wilson (1927) score interval worked by hand; none asked: undefined."""
    entry = counts("invalid answers", 4, 20)
    z, p, n = 1.959963984540054, 0.2, 20
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert (entry["rate"], entry["lo"], entry["hi"]) == pytest.approx((0.2, centre - half, centre + half), abs=1e-12)
    assert counts("invalid answers", 0, 0) == {"kind": "invalid answers", "count": 0, "n": 0, "rate": None, "lo": None,
                                               "hi": None}  # undefined, never 0 %


def test_number_is_a_finite_float_or_none_with_its_reason():
    assert number(3, "x") == {"value": 3.0, "reason": None}
    assert number(float("nan"), "no pairs") == {"value": None, "reason": "no pairs"}
    assert number(None, "no answers") == {"value": None, "reason": "no answers"} and number(True, "a flag")["value"] is None


def test_a_frame_survives_the_report_round_trip():
    """Columns, their order, numbers (NaN as null) and text come back as they went."""
    frame = pd.DataFrame({"item_id": ["1", "2"], "x": [0.25, np.nan], "n": np.array([3, 4], dtype=np.int64)})
    doc = frame_doc(frame)
    assert doc == {"columns": ["item_id", "x", "n"], "data": [["1", 0.25, 3], ["2", None, 4]]}
    back = doc_frame(doc)
    assert list(back.columns) == ["item_id", "x", "n"] and back["x"].isna().tolist() == [False, True]
    assert back["n"].tolist() == [3, 4] and doc_frame(None) is None
