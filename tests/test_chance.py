"""Null distributions (analysis.chance, analysis.methods.values.chance): closed forms, the reference's random-answer Stress,
the design being kept, and the store cache."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from analysis import chance
from analysis.runs.store import Store
from analysis.methods.values import VALUES, structure
from analysis.methods.values import chance as vchance

PVQ_KEYS = Path(__file__).resolve().parents[1].parent / "shared/anchors/stick_to_your_role/data/data_pvq/raw/values.json"


def answers_frame(item_values: dict[str, str | None], personas: int, contexts: list[str], *, options=(1, 2, 3, 4, 5, 6),
                  seed: int = 0, invalid: float = 0.0) -> pd.DataFrame:
    """A values_answers-like frame of random answers on a given design."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in contexts:
        for p in range(personas):
            for item, value in item_values.items():
                rows.append({"model": "m", "context": c, "instrument": "pvq", "stage": "item", "persona_id": p,
                             "item_id": item, "value": value, "sample": 0, "option_order": json.dumps(list(options)),
                             "valid": int(rng.random() >= invalid), "score": float(rng.choice(options))})
    return pd.DataFrame(rows)


def test_summary_worked_by_hand():
    draws = [0.1, 0.2, 0.3, 0.4]
    s = chance.summarize(0.3, draws, better="higher", kind="uniform")
    # beats 0.1 and 0.2, ties 0.3 (half): 2.5 / 4; at least as good: 0.3, 0.4 -> (1 + 2) / 5
    assert s.percentile == pytest.approx(0.625) and s.p == pytest.approx(0.6) and s.verdict == "not enough draws"  # 4 draws: p, no verdict
    low = chance.summarize(0.05, draws, better="lower", kind="uniform")
    assert low.percentile == 1.0 and low.p == pytest.approx(1 / 5)
    assert (s.lo, s.hi) == pytest.approx(tuple(np.percentile(draws, [2.5, 97.5])))
    assert chance.summarize(150.0, np.arange(100.0), better="higher", kind="u").verdict == "beyond chance"


def test_undefined_observed_or_draws_stay_undefined():
    s = chance.summarize(None, [0.1, 0.2], better="higher", kind="uniform")
    assert s.observed is None and s.percentile is None and s.p is None and s.verdict is None and s.mean == pytest.approx(0.15)
    empty = chance.summarize(0.5, [np.nan, np.nan], better="higher", kind="uniform")
    assert empty.n_sims == 0 and empty.mean is None and empty.verdict is None


def test_simulate_is_seeded_and_prefix_stable():
    stat = lambda rng: {"x": rng.random()}  # noqa: E731
    a, b = chance.simulate(stat, 5, seed=3), chance.simulate(stat, 8, seed=3)
    assert a["x"] == b["x"][:5] and a != chance.simulate(stat, 5, seed=4)


def test_rank_order_null_matches_spearman_closed_form():
    # Two values with one item each: every ipsatised score is ±(s1 − s2)/2, so rank-order stability is Spearman's ρ
    # of one vector across n personas in two independent contexts: mean 0, variance 1/(n − 1) (exact under independence).
    n, sims = 10, 2000
    answers = answers_frame({"1": "Power", "2": "Benevolence"}, n, ["a", "b"])
    design = vchance.designs(answers, {("a", "pvq"): "a", ("b", "pvq"): "b"})
    draws = chance.simulate(lambda rng: vchance.stability_of(design, [d.draw(rng, "uniform") for d in design]), sims, 0)
    rho = chance.as_floats(draws["rank_order"])
    rho = rho[np.isfinite(rho)]
    se_mean, var = np.sqrt(1 / (n - 1) / len(rho)), 1 / (n - 1)
    assert abs(rho.mean()) < 4 * se_mean
    assert rho.var(ddof=1) == pytest.approx(var, rel=4 * np.sqrt(2 / len(rho)))  # ~4 standard errors of a variance


@pytest.mark.skipif(not PVQ_KEYS.is_file(), reason=f"reference data not found at {PVQ_KEYS}")
def test_random_answer_stress_on_the_pvq40_design_is_the_reference_dummys():
    # The reference leaderboard's dummy model (random answers) on PVQ-40 with 50 personas has Stress ≈ 0.29.
    keys = {k: v for k, v in json.loads(PVQ_KEYS.read_text()).items() if k != "_comment"}
    item_values = {str(i): value for value, items in keys.items() for i in items}
    answers = answers_frame(item_values, 50, ["no_conv"])
    design = vchance.designs(answers, {("no_conv", "pvq"): "no_conv"})
    draws = vchance.null_draws(design, "uniform", 30, 0, seed=0)
    stress = chance.as_floats(draws["no_conv/stress"])
    assert stress.mean() == pytest.approx(0.29, abs=0.01)
    # and the circle is "perfect" under chance: the order distance of a structureless layout stays near 0
    assert np.median(chance.as_floats(draws["no_conv/order_distance"])) <= 0.5


def test_nulls_keep_the_design():
    item_values = {str(i): VALUES[i % 10] for i in range(20)}
    answers = answers_frame(item_values, 12, ["a"], invalid=0.2, seed=1)
    (d,) = vchance.designs(answers, {("a", "pvq"): "a"})
    rng = np.random.default_rng(0)
    perm, unif = d.draw(rng, "permutation"), d.draw(rng, "uniform")
    observed = d.matrix(d.scores)
    for scores in (perm, unif):  # the same cells are valid
        assert np.array_equal(np.isnan(d.matrix(scores)), np.isnan(observed))
    # permutation: every item keeps its multiset of answers; uniform: only option scores
    for k in range(len(d.items)):
        assert sorted(perm[d.item == k]) == sorted(d.scores[d.item == k])
    assert set(unif) <= set(d.options) and not np.array_equal(perm, d.scores)


def test_value_scores_match_the_scoring_module():
    from analysis.methods.values.scores import value_scores

    item_values = {str(i): VALUES[i % 10] for i in range(30)} | {"99": None}  # one unkeyed item counts in the mean
    answers = answers_frame(item_values, 8, ["a"], invalid=0.3, seed=2)
    (d,) = vchance.designs(answers, {("a", "pvq"): "a"})
    ours = d.value_scores(d.scores)
    ref = value_scores(answers).pivot(index="persona_id", columns="value", values="ipsatised")[list(VALUES)]
    assert np.allclose(ours, ref.to_numpy(), equal_nan=True, atol=1e-12)


def test_draws_are_cached_in_the_store(tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return {"x": [0.1, float("nan")]}

    with Store(tmp_path / "s.db") as store:
        first = chance.cached_draws(store, "values", {"d": 1}, 2, 0, compute)
        again = chance.cached_draws(store, "values", {"d": 1}, 2, 0, compute)
        other = chance.cached_draws(store, "values", {"d": 2}, 2, 0, compute)
        assert len(calls) == 2 and np.isnan(first["x"][1]) and again == {"x": [0.1, None]} and np.isnan(other["x"][1])
        store.clear(chance.NULL_TABLE.name)  # what `demo build` does before caching new draws
        chance.cached_draws(store, "values", {"d": 1}, 2, 0, compute)
        assert len(calls) == 3
        with pytest.raises(ValueError, match="not a registered table without runs"):
            store.clear("values_answers")
    with Store(tmp_path / "s.db", read_only=True) as store:  # read-only: computed, nothing written
        chance.cached_draws(store, "values", {"d": 3}, 2, 0, compute)
    assert len(calls) == 4


def _pair_spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman of two complete vectors with the reference's constant rules (both constant 1, one constant 0)."""
    const_a, const_b = bool(np.all(a == a[0])), bool(np.all(b == b[0]))
    if const_a or const_b:
        return 1.0 if const_a and const_b else 0.0
    return float(spearmanr(a, b).statistic)


def test_item_correlations_pairwise_path_equals_pairwise_spearman():
    # the vectorised pairwise-complete path against a pair-by-pair loop with the reference's constant rules
    rng = np.random.default_rng(1)
    for _ in range(100):
        n, k = rng.integers(3, 20), rng.integers(2, 10)
        x = rng.integers(1, 4, size=(n, k)).astype(float)
        x[rng.random((n, k)) < rng.random() * 0.6] = np.nan
        if rng.random() < 0.3:
            x[:, 0] = np.where(np.isnan(x[:, 0]), np.nan, 2.0)
        loop = np.eye(k)
        for i in range(k):
            for j in range(i + 1, k):
                both = ~np.isnan(x[:, i]) & ~np.isnan(x[:, j])
                r = np.nan if both.sum() < 3 else _pair_spearman(x[both, i], x[both, j])
                loop[i, j] = loop[j, i] = r
        assert np.allclose(structure.item_correlations(pd.DataFrame(x)).to_numpy(), loop, atol=1e-12, equal_nan=True)


def test_movement_is_zero_at_the_start_and_random_start_stress_is_defined():
    layout = pd.DataFrame({"item_id": [str(i) for i in range(10)], "value": list(VALUES)})
    start = np.array([structure.THEORY_POINTS[v] for v in VALUES])
    moved = vchance.movement(layout.assign(x=3 * start[:, 0] + 1, y=3 * start[:, 1] - 2))  # scaled and shifted only
    assert moved["moved"].max() < 1e-12
    item_values = {str(i): VALUES[i % 10] for i in range(20)}
    answers = answers_frame(item_values, 15, ["a"])
    (d,) = vchance.designs(answers, {("a", "pvq"): "a"})
    s = vchance.random_start_stress(d.frame(d.scores), d.keyed_values())
    assert 0 < s < 1


def test_a_design_without_any_valid_answer_has_no_band_and_no_error():
    item_values = {str(i): VALUES[i % 10] for i in range(20)}
    answers = answers_frame(item_values, 5, ["x", "y"], invalid=1.0)
    keys = {("x", "pvq"): "x", ("y", "pvq"): "y"}
    out = vchance.model_chance(answers, {"contexts": {}}, keys, n_sims=3, slow_sims=1)
    assert out["rank_order"]["uniform"]["n_sims"] == 0 and out["rank_order"]["uniform"]["verdict"] is None
    assert out["contexts"]["x"]["stress"]["uniform"]["mean"] is None


def test_a_verdict_needs_enough_draws() -> None:
    """With 10 draws the smallest p is 1/11 = 0.091: no verdict ('not enough draws'), never 'chance-like'; with 100
    draws all below the observed value it is 'beyond chance' (p = 1/101)."""
    from analysis.chance import summarize

    few = summarize(1.0, [0.0] * 10, better="higher", kind="uniform")
    assert few.p == 1 / 11 and few.verdict == "not enough draws"
    many = summarize(1.0, [0.0] * 100, better="higher", kind="uniform")
    assert many.p == 1 / 101 and many.verdict == "beyond chance"


def test_no_band_from_few_defined_draws_when_draws_failed():
    """Issue 43 (7): 16 of 100 null CFA fits converge on the demo; a band from them would describe those 16, not the
    null. Below 100 defined draws, when some failed, there is no band, p or verdict, and the failure rate is said."""
    rng = np.random.default_rng(0)
    draws = np.concatenate([rng.normal(0.9, 0.02, 16), np.full(84, np.nan)])
    s = chance.summarize(0.95, draws, better="higher", kind="uniform")
    assert (s.lo, s.hi, s.p, s.verdict) == (None, None, None, None)
    assert s.n_sims == 16 and s.failed == 84
    assert s.reason.startswith("84 of 100 null draws undefined (84%)")
    assert s.to_dict()["reason"] == s.reason
    # enough defined draws: a band, whatever failed beside them
    more = np.concatenate([rng.normal(0.9, 0.02, 120), np.full(30, np.nan)])
    s = chance.summarize(0.95, more, better="higher", kind="uniform")
    assert s.lo is not None and s.n_sims == 120 and s.failed == 30 and s.reason is None and s.verdict is not None
    # few draws, none failed (a user's --chance 20): the band stays, the verdict waits for more draws
    s = chance.summarize(0.95, rng.normal(0.9, 0.02, 20), better="higher", kind="uniform")
    assert s.lo is not None and s.verdict == "not enough draws" and s.reason is None
