"""Values comparisons and per-value CIs (analysis.methods.values.compare), against the stability estimates and
values worked by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.methods.values import VALUES, stability
from analysis.methods.values import compare as views


def scores(noise: float, seed: int, n: int = 25, contexts: tuple[str, ...] = ("a", "b", "c"), model: str = "m") -> pd.DataFrame:
    """Long value-score table: personas with a fixed profile, blurred per context by ``noise``."""
    rng = np.random.default_rng(seed)
    profile = np.random.default_rng(0).normal(size=(n, len(VALUES)))
    rows = []
    for ctx in contexts:
        x = profile + noise * rng.normal(size=profile.shape)
        for p in range(n):
            for v, value in enumerate(VALUES):
                rows.append({"model": model, "context": ctx, "instrument": "pvq", "persona_id": p, "value": value,
                             "score": x[p, v], "ipsatised": x[p, v] - x[p].mean()})
    return pd.DataFrame(rows)


def test_per_value_ci_matches_stability_estimates():
    """Estimates equal stability.rank_order_by_value, each CI brackets its estimate, and a seed reproduces it."""
    s = scores(0.5, 1)
    table = stability.rank_order_by_value_ci(s, n_boot=300, seed=3)
    expected = stability.rank_order_by_value(s)
    assert list(table["value"]) == list(VALUES)
    np.testing.assert_allclose(table["rank_order"], expected.loc[list(VALUES)].to_numpy(), atol=1e-12)
    assert (table["lo"] <= table["rank_order"]).all() and (table["rank_order"] <= table["hi"]).all()
    pd.testing.assert_frame_equal(table, stability.rank_order_by_value_ci(s, n_boot=300, seed=3))
    assert stability.rank_order_by_value_ci(scores(0.5, 1, contexts=("a",)), n_boot=10).empty  # one context: nothing to compare


def test_compare_values_paired_ci_separates_stable_from_noisy():
    """Rank-order stability of a stable model minus a noisy one: a positive difference whose paired CI excludes 0."""
    a, b = scores(0.3, 1, model="a"), scores(3.0, 2, model="b")
    diffs = {d.metric: d for d in views.compare_values({}, {}, a, b, names=("a", "b"), n_boot=300)}
    ro = diffs["Rank-order stability"]
    assert ro.a == pytest.approx(stability.rank_order_stability(a), abs=1e-12)
    assert ro.diff == pytest.approx(ro.a - ro.b, abs=1e-12)
    assert 0 < ro.lo <= ro.diff <= ro.hi
    same = {d.metric: d for d in views.compare_values({}, {}, a, a.assign(model="a2"), n_boot=100)}
    assert same["Ipsative stability"].diff == 0 and same["Ipsative stability"].lo == same["Ipsative stability"].hi == 0


def test_compare_never_subtracts_a_failed_fit():
    """B's CFA failed in context b (its CFI null in the report, with the reason): B has no mean CFI and A − B is
    undefined with the reason, never A's mean minus B's CFI of the contexts that fitted (0.85 − 0.8 here) nor minus a
    failed fit counted 0. Both fitted everywhere: the plain difference of the means."""
    a, b = scores(0.3, 1, model="a"), scores(0.3, 2, model="b")
    reason = "Conservation did not fit: sample covariance not positive definite (collinear items or n ≤ p)"
    doc_a = {"contexts": {"a": {"cfi": 0.9, "cfa_reason": None}, "b": {"cfi": 0.8, "cfa_reason": None}}}
    doc_b = {"contexts": {"a": {"cfi": 0.8, "cfa_reason": None}, "b": {"cfi": None, "cfa_reason": reason}}}
    row = next(d for d in views.compare_values(doc_a, doc_b, a, b, n_boot=0) if d.metric.startswith("CFI"))
    assert row.metric == "CFI, mean over 2 contexts"
    assert row.a == pytest.approx(0.85, abs=1e-12) and np.isnan(row.b) and np.isnan(row.diff)
    assert row.note.startswith("B: ") and f"b: {reason}" in row.note and "undefined, not 0" in row.note
    both = {"contexts": {"a": {"cfi": 0.7, "cfa_reason": None}, "b": {"cfi": 0.6, "cfa_reason": None}}}
    row = next(d for d in views.compare_values(doc_a, both, a, b, n_boot=0) if d.metric.startswith("CFI"))
    assert (row.a, row.b) == pytest.approx((0.85, 0.65), abs=1e-12) and row.diff == pytest.approx(0.2, abs=1e-12)
    board = {"A": {"cardinal": 0.7, "cfa_failed": 0}, "B": {"cardinal": 0.6, "cfa_failed": 1}}
    cardinal = views.compare_values(doc_a, doc_b, a, b, board, n_boot=0)[0]
    assert cardinal.metric == "Cardinal score" and cardinal.diff == pytest.approx(0.1, abs=1e-12)
    assert "scored CFI 0" in cardinal.note  # the leaderboard's score, marked as such


def test_item_and_persona_gaps_sorted_by_size():
    """Item gaps compare mean scores over shared personas; persona gaps are mean |A − B| of ipsatised scores."""
    def answers(model: str, shift: dict[str, float]) -> pd.DataFrame:
        return pd.DataFrame([{"model": model, "context": "c", "instrument": "pvq", "item_id": i, "persona_id": p,
                              "value": "Power", "stage": "item", "valid": 1, "score": 3 + shift.get(i, 0)}
                             for i in ("1", "2", "3") for p in (0, 1)])
    gaps = views.item_gaps(answers("a", {"2": 2.0, "3": -0.5}), answers("b", {}))
    assert list(gaps["item_id"]) == ["2", "3", "1"] and list(gaps["diff"]) == [2.0, -0.5, 0.0]
    sa = scores(0.0, 1, n=4, contexts=("c",))
    sb = sa.assign(ipsatised=sa["ipsatised"] + np.where(sa["persona_id"] == 2, 1.0, 0.0))
    people = views.persona_gaps(sa, sb)
    assert people["persona_id"].iloc[0] == 2 and people["mean_abs_gap"].iloc[0] == pytest.approx(1.0)
    assert people["profile_spearman"].iloc[0] == pytest.approx(1.0)  # a constant shift keeps the value order


def test_cardinal_of_different_designs_is_not_subtracted():
    """A Cardinal over 22 leaderboard columns and one over 1 column are each model's own mean: A − B is undefined with
    the reason; on the same number of columns it is the plain difference."""
    a, b = scores(0.3, 1, model="a"), scores(0.3, 2, model="b")
    board = {"A": {"cardinal": 0.7, "n_columns": 22}, "B": {"cardinal": 0.2, "n_columns": 1}}
    cardinal = views.compare_values({}, {}, a, b, board, n_boot=0)[0]
    assert (cardinal.a, cardinal.b) == (0.7, 0.2) and np.isnan(cardinal.diff)
    assert "A is scored over 22 leaderboard columns, B over 1" in cardinal.note
    board["B"]["n_columns"] = 22
    cardinal = views.compare_values({}, {}, a, b, board, n_boot=0)[0]
    assert cardinal.diff == pytest.approx(0.5, abs=1e-12) and "over 22 columns each" in cardinal.note


def test_two_populations_pair_by_identity_not_position():
    """Model B answered other people under the same ids: no persona is shared, so no stability difference is drawn
    (pairing by position would compare unrelated people); with the same names they pair."""
    a, b = scores(0.3, 1, model="a"), scores(0.3, 2, model="b")
    a["persona"] = [f"P{i}" for i in a["persona_id"]]
    b["persona"] = [f"Q{i}" for i in b["persona_id"]]
    rows = views.compare_values({}, {}, a, b, n_boot=50)
    assert not [d for d in rows if "stability" in d.metric]
    b["persona"] = [f"P{i}" for i in b["persona_id"]]
    rows = views.compare_values({}, {}, a, b, n_boot=50)
    assert [d.metric for d in rows if "stability" in d.metric] == ["Rank-order stability", "Ipsative stability"]
