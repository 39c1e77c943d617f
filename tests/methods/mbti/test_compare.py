"""MBTI comparisons (analysis.methods.mbti.compare): the paired consistency equals the metric; statement gaps."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.methods.mbti import DIMENSIONS
from analysis.methods.mbti import compare as views
from analysis.methods.mbti.metrics import consistency


def _testings(seed: int, spread: float, n: int = 6, subjects: tuple[str, ...] = ("People", "Men")) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for s in subjects:
        for t in range(n):
            rows.append({"model": "m", "subject": s, "order_mode": "permuted", "run_id": "r", "testing": t,
                         **{d: 50 + spread * rng.normal() for d in DIMENSIONS}})
    return pd.DataFrame(rows)


def test_compare_mbti_consistency_equals_the_metric_and_is_paired():
    """The consistency estimate equals mean over subjects of analysis.methods.mbti.metrics.consistency; equal inputs give 0 ± 0."""
    ta, tb = _testings(1, 2.0), _testings(2, 20.0)
    [d] = [x for x in views.compare_mbti({}, {}, ta, tb, n_boot=300) if x.metric.startswith("Consistency")]
    expected = np.mean([consistency(ta[ta["subject"] == s][list(DIMENSIONS)]) for s in ("People", "Men")])
    assert d.a == pytest.approx(expected, abs=1e-12)
    assert d.a > d.b and 0 < d.lo <= d.diff <= d.hi
    [z] = [x for x in views.compare_mbti({}, {}, ta, ta, n_boot=50) if x.metric.startswith("Consistency")]
    assert z.diff == 0 and z.lo == 0 and z.hi == 0


def test_statement_gaps_use_signed_agreement():
    """Signed agreement = direction × option weight (Correct +3 … Wrong −3); the largest |A − B| comes first."""
    def answers(options: list[int]) -> pd.DataFrame:
        return pd.DataFrame([{"subject": "People", "statement_id": str(k), "dimension": "E", "direction": d,
                              "statement": f"s{k}", "valid": 1, "option_index": o}
                             for k, (o, d) in enumerate(zip(options, (1, -1, 1)))])
    gaps = views.statement_gaps(answers([0, 0, 3]), answers([0, 6, 3]))
    assert list(gaps["statement_id"]) == ["1", "0", "2"]
    assert gaps.iloc[0]["a"] == -3 and gaps.iloc[0]["b"] == 3 and gaps.iloc[0]["diff"] == -6


def test_two_testings_give_no_ci_and_robustness_uses_shared_subjects():
    """A paired bootstrap over 2 shared testing indices has no CI (undefined, with the reason); robustness is averaged
    over the subjects both sides have (Men only: 0.9 vs 0.7), never over each side's own set."""
    ta, tb = _testings(1, 2.0, n=2), _testings(2, 20.0, n=2)
    [d] = [x for x in views.compare_mbti({}, {}, ta, tb, n_boot=300) if x.metric.startswith("Consistency")]
    assert np.isnan(d.lo) and np.isnan(d.hi) and d.note == "CI undefined: 2 shared testing indices, a paired CI needs ≥ 5"
    doc_a = {"robustness": {"Men": 0.9, "People": 0.1}}
    doc_b = {"robustness": {"Men": 0.7, "Women": 0.2}}
    [r] = [x for x in views.compare_mbti(doc_a, doc_b, ta, tb, n_boot=0) if x.metric.startswith("Robustness")]
    assert r.metric == "Robustness, mean over 1 shared subjects" and (r.a, r.b) == pytest.approx((0.9, 0.7))


def test_letters_decided_is_paired_over_shared_subjects():
    """The decided-letters headline of two models that tested the same six subjects: A − B with a CI resampling the
    subjects together (a subject not decidable on a side is left out there, as the headline leaves it out)."""
    def doc(decided: dict[str, int]) -> dict:
        subjects = {s: {"uncertainty": {"n_decided": n, "decidable": True}} for s, n in decided.items()}
        return {"subjects": subjects, "headlines": {"mbti_decided": {"value": float(np.mean(list(decided.values())))}}}

    names = ["Accountants", "Barbers", "Doctors", "Men", "Women", "People"]
    a, b = doc(dict(zip(names, [4, 3, 4, 2, 3, 4]))), doc(dict(zip(names, [1, 1, 2, 0, 1, 1])))
    [d] = [x for x in views.compare_mbti(a, b, _testings(1, 2.0, n=1), _testings(2, 2.0, n=1), n_boot=500)
           if x.key == "mbti_decided"]
    assert d.note == "paired over 6 shared subjects"
    assert d.diff == pytest.approx(20 / 6 - 1.0) and 0 < d.lo <= d.diff <= d.hi <= 3
    b["subjects"] = {f"other {s}": v for s, v in b["subjects"].items()}  # different subjects: not paired
    [u] = [x for x in views.compare_mbti(a, b, _testings(1, 2.0, n=1), _testings(2, 2.0, n=1), n_boot=500)
           if x.metric.startswith("Letters decided")]
    assert u.note.startswith("not paired (0 shared subjects)") and u.lo < u.diff < u.hi
