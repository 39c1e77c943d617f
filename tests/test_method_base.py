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


def test_invalid_shares_more_than_20_points_apart_are_flagged():
    """Issue 43, item 10: 58.8 % against 0 % invalid is flagged with both shares; 10 % against 25 % is not; a model
    with no replies of a kind (rate undefined) is left out, never read as 0 %."""
    from analysis.methods.base import invalid_share_gaps

    models = {"smollm2-t07": {"counts": [counts("invalid answers", 47, 80)]},
              "other": {"counts": [counts("invalid answers", 0, 80)]}, "none": {"counts": [counts("invalid answers", 0, 0)]}}
    [gap] = invalid_share_gaps(models)
    assert gap["kind"] == "invalid answers" and gap["shares"] == {"smollm2-t07": 47 / 80, "other": 0.0}
    assert gap["gap"] == pytest.approx(0.5875) and "smollm2-t07 58.8 %, other 0.0 %" in gap["text"]
    assert invalid_share_gaps({"a": {"counts": [counts("invalid answers", 8, 80)]},
                               "b": {"counts": [counts("invalid answers", 20, 80)]}}) == []


def test_the_cli_leaderboard_warns_of_an_invalid_share_gap(tmp_path, monkeypatch, capsys):
    """``leaderboard`` carries the gap in its document (--json) and warns of it on stderr."""
    import json

    import analysis.report_cache
    from analysis.__main__ import main
    from analysis.runs.store import Store

    report = {"leaderboard": {"rows": [{"model": "a", "cardinal": 0.7}, {"model": "b", "cardinal": 0.5}],
                              "columns": ["x"], "diversity": None, "sensitivity": {}},
              "models": {"a": {"counts": [counts("invalid answers", 47, 80)]},
                         "b": {"counts": [counts("invalid answers", 0, 80)]}}}
    monkeypatch.setattr(analysis.report_cache, "cached_report", lambda *a, **k: report)
    with Store(tmp_path / "s.db"):
        pass
    assert main(["leaderboard", "--store", str(tmp_path / "s.db"), "--chance", "0", "--json"]) == 0
    [gap] = json.loads(capsys.readouterr().out)["invalid_gaps"]
    assert gap["shares"] == {"a": 47 / 80, "b": 0.0}
    assert main(["leaderboard", "--store", str(tmp_path / "s.db"), "--chance", "0"]) == 0
    assert "warning: not ranked on equal footing — invalid answers: a 58.8 %, b 0.0 %" in capsys.readouterr().err


def test_coverage_and_the_reason_for_no_verdict():
    """A mean over a subset carries its coverage; a headline without a chance verdict says why."""
    from analysis.methods.base import coverage_text, no_verdict_reason

    entry = number(0.773, "x", n=7, of=8, unit="subjects")
    assert entry["coverage"]["text"] == "7 of 8 subjects" and coverage_text(entry) == "mean over 7 of 8 subjects"
    assert coverage_text(number(0.8, "x", n=8, of=8, unit="subjects")) is None
    assert coverage_text(number(None, "x", n=0, of=8, unit="subjects")) is None  # undefined: the reason is shown
    beyond = {"uniform": {"verdict": "beyond chance", "p": 0.01}, "permutation": {"verdict": "beyond chance", "p": 0.01}}
    assert no_verdict_reason(entry, beyond) is None
    assert no_verdict_reason(entry, None) == "no chance band computed for it"
    assert no_verdict_reason(number(None, "x"), None) == "the number itself is undefined"
    assert no_verdict_reason(entry | {"chance_reason": "why"}, {"uniform": {"verdict": None}}) == "why"


def test_the_typed_report_takes_numbers_with_reasons_and_refuses_the_rest() -> None:
    """``analysis.methods.report_model``: a value, or undefined with its reason; counts whose share matches them; every
    model with exactly the method's headlines. Each broken document is refused with what is wrong."""
    import pytest

    from analysis.methods.base import counts, number
    from analysis.methods.report_model import checked

    def doc(entry: dict, count: dict | None = None, keys: tuple[str, ...] = ("h",)) -> dict:
        return {"models": {"m": {"headlines": {k: entry for k in keys},
                                 "counts": [count or counts("invalid answers", 2, 10)], "own": [1, 2]}}, "extra": {}}

    good = doc(number(0.5, "unused", n=7, of=8, unit="subjects"))
    assert checked(good, ("h",)) is good
    assert checked(doc(number(None, "needs 2 contexts"), counts("refusals", 0, 0)), ("h",))
    for broken, what in [(doc({"value": None, "reason": None}), "needs its reason"),
                         (doc({"value": 0.3, "reason": "why"}), "has no reason"),
                         (doc({"value": float("nan"), "reason": None}), "is finite"),
                         (doc(number(0.5, "x"), {"kind": "k", "count": 11, "n": 10, "rate": 1.1, "lo": 0, "hi": 1}), "11 of 10"),
                         (doc(number(0.5, "x"), {"kind": "k", "count": 0, "n": 0, "rate": 0.0, "lo": 0, "hi": 1}), "0 of 0"),
                         (doc(number(0.5, "x"), keys=("h", "other")), "the method declares")]:
        with pytest.raises(ValueError, match=what):
            checked(broken, ("h",))


def test_unread_bound_is_the_mean_with_every_unread_reply_at_each_end() -> None:
    """Hand-worked (issue 56): 3 of 5 read ($10, $10, $8): at $0 the mean is 28 / 5 = 5.6, at $10 (28 + 20) / 5 = 9.6;
    at 9 of 10 read (the 90 % floor) there is no bound, nor with nothing unread."""
    from analysis.methods.base import READ_SHARE_FLOOR, unread_bound

    assert unread_bound([10, 10, 8], 5, 0, 10) == (5.6, 9.6)
    assert READ_SHARE_FLOOR == 0.9
    assert unread_bound([1] * 9, 10, 0, 10) is None
    assert unread_bound([1, 2], 2, 0, 10) is None
    assert unread_bound([], 0, 0, 10) is None
    assert unread_bound([2], 2, 1, 5, statistic=np.median) == (1.5, 3.5)


def test_a_number_over_replies_read_carries_its_share_and_bound() -> None:
    from analysis.methods.base import coverage_text, number

    entry = number(9.0 + 1 / 3, "x", n=3, of=5, unit="personas", read=True, bound=(9.6, 5.6), bound_note="at $0 … at $10")
    assert entry["coverage"]["read_share"] == 0.6
    assert entry["coverage"]["bound"] == {"lo": 5.6, "hi": 9.6, "note": "at $0 … at $10"}
    assert coverage_text(entry) == "mean over 3 of 5 personas (60% read; at $0 … at $10: 5.6 … 9.6)"
    plain = number(1.0, "x", n=3, of=5, unit="subjects")
    assert "read_share" not in plain["coverage"] and coverage_text(plain) == "mean over 3 of 5 subjects"
    assert "bound" not in number(None, "no amount", n=0, of=5, read=True, bound=(0, 1))["coverage"]
