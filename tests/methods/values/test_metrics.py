"""The values metrics document and the leaderboard, read from a store (synthetic answers)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.runs.store import Store
from analysis.methods.values import VALUES
from analysis.methods.values.instruments import load_instrument
from analysis.methods.values.metrics import latest_answers, values_leaderboard, values_metrics
from analysis.methods.values.questionnaire import ANSWERS

REPO = Path(__file__).resolve().parents[3]
CONTEXTS = ("no_conv", "topics_a", "chess")


def _fill(store: Store, model: str, noise: float, seed: int, n_personas: int = 30, run_suffix: str = "") -> None:
    """Personas with a fixed value profile answer every context; ``noise`` blurs it per context."""
    inst = load_instrument("pvq")
    rng = np.random.default_rng(seed)
    profile = rng.normal(size=(n_personas, len(VALUES)))
    for ctx in CONTEXTS:
        run_id = f"{model}-{ctx}{run_suffix}"
        store.create_run(run_id, "values", model, {"name": model}, {})
        rows = []
        for p in range(n_personas):
            for item in inst.items:
                latent = profile[p, VALUES.index(item.value)] + noise * rng.normal()
                score = int(np.clip(np.round(3.5 + 1.2 * latent), 1, 6))
                rows.append({"run_id": run_id, "model": model, "persona_id": p, "context": ctx, "instrument": inst.name,
                             "item_id": item.id, "value": item.value, "stage": "item", "sample": 0, "score": score, "valid": 1})
        store.upsert(ANSWERS.name, rows)


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("metrics") / "m.db"
    with Store(path) as store:
        _fill(store, "stable", noise=0.3, seed=1)
        _fill(store, "noisy", noise=10.0, seed=2)
    return path


def test_stable_model_beats_noisy_model(store_path):
    """A model whose personas keep their profile has high rank-order stability; a noisy one near 0."""
    with Store(store_path, read_only=True) as store:
        doc = values_metrics(store, n_boot=200)
    stable, noisy = doc["models"]["stable"], doc["models"]["noisy"]
    assert stable["rank_order"] > 0.6 > 0.3 > noisy["rank_order"]
    assert stable["ci"]["rank_order"]["lo"] <= stable["rank_order"] <= stable["ci"]["rank_order"]["hi"]
    assert set(stable["pairwise_rank_order"]) == {"no_conv|topics_a", "chess|no_conv", "chess|topics_a"}
    ctx = stable["contexts"]["no_conv"]
    assert set(ctx["cfa"]) == {"Conservation", "Openness to change", "Self-transcendence", "Self-enhancement"}
    assert 0 <= ctx["cfi"] <= 1 and 0 <= ctx["srmr"] <= 1 and 0 <= ctx["stress"] < 1
    # CFI of the context = mean of its four models, all of which fitted here (a failed one would make it undefined)
    assert all(g["converged"] for g in ctx["cfa"].values()) and ctx["cfa_reason"] is None
    assert ctx["cfi"] == pytest.approx(np.mean([g["cfi"] for g in ctx["cfa"].values()]), abs=1e-12)


def test_leaderboard_orders_models(store_path):
    """Cardinal and ordinal put the stable model first; ordinal win rate of 2 models is 0/1 per column."""
    with Store(store_path, read_only=True) as store:
        board = values_leaderboard(values_metrics(store, n_boot=50))
    rows = {r["model"]: r for r in board["rows"]}
    assert board["rows"][0]["model"] == "stable"
    assert rows["stable"]["cardinal"] > rows["noisy"]["cardinal"]
    assert 0.5 < rows["stable"]["ordinal"] <= 1.0
    assert rows["stable"]["n_columns"] == 3 + 4 * 3


def test_latest_run_replaces_earlier_one(tmp_path):
    """A re-run of the same model x context replaces the earlier run's answers instead of pooling them."""
    with Store(tmp_path / "s.db") as store:
        _fill(store, "m", noise=0.3, seed=1, n_personas=5)
        _fill(store, "m", noise=0.3, seed=9, n_personas=5, run_suffix="-again")
        answers = latest_answers(store)
    assert set(answers["run_id"]) == {f"m-{c}-again" for c in CONTEXTS}


def test_cli_metrics_and_leaderboard_print_one_json_document(store_path):
    """``--json`` prints exactly one JSON document on stdout; unknown model is exit 2 with one line."""
    run = lambda *a: subprocess.run([sys.executable, "-m", "analysis", *a], cwd=REPO, capture_output=True, text=True, timeout=300)
    out = run("metrics", "values", "--store", str(store_path), "--model", "stable", "--json", "--n-boot", "50",
              "--chance", "25")  # p ≥ 1/(n + 1): fewer than 20 draws can never show p < 0.05
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert list(doc["models"]) == ["stable"]
    # every number in context: the stable model's stability is beyond both nulls; each context has its bands
    chance = doc["models"]["stable"]["chance"]
    # 25 draws: p = 1/26 < 0.05, but a verdict needs 100 draws (analysis.chance.MIN_VERDICT_SIMS)
    assert chance["rank_order"]["uniform"]["p"] < 0.05 and chance["n_sims"] == 25
    assert chance["rank_order"]["uniform"]["verdict"] == "not enough draws"
    assert set(chance["contexts"]) == set(doc["models"]["stable"]["contexts"])
    for ctx in chance["contexts"].values():  # the circumplex's bands; the fit bands are a part drawn on demand
        assert set(ctx) == {"stress", "order_distance"} and ctx["stress"]["uniform"]["n_sims"] == 25
    from analysis.methods.values.fit_chance import cached_fit_chance
    from analysis.runs.store import Store

    with Store(store_path) as store:
        fits = {key: cached_fit_chance(store, "stable", key, 25, n_boot=50) for key in chance["contexts"]}
    for fit in fits.values():
        assert {"separability", "cfi", "rmsea", "srmr"} <= set(fit) and fit["separability"]["permutation"]["n_sims"] == 25
        # a simulated data set whose CFA failed has no mean fit: left out of the band (n_sims counts the defined draws)
        assert fit["cfi"]["permutation"]["n_sims"] <= 25
    # random answers seldom fit all four models (30 personas): those draws are undefined, not a CFI of 0 in the band
    assert min(fit["cfi"]["uniform"]["n_sims"] for fit in fits.values()) < 25
    negative = run("metrics", "values", "--store", str(store_path), "--chance", "-1")
    assert negative.returncode == 2 and "--chance" in negative.stderr
    board = run("leaderboard", "--store", str(store_path), "--json")
    assert board.returncode == 0 and [r["model"] for r in json.loads(board.stdout)["rows"]] == ["stable", "noisy"]
    bad = run("metrics", "values", "--store", str(store_path), "--model", "nope", "--json")
    assert bad.returncode == 2 and bad.stdout == "" and len(bad.stderr.strip().splitlines()) == 1


def test_sample_retest_is_the_correlation_between_samples():
    """Repeated answers (--samples 2): test–retest r over (persona, item) cells valid in both samples."""
    from analysis.methods.values.reliability import sample_retest

    rng = np.random.default_rng(0)
    rows = [{"persona_id": p, "item_id": str(i), "sample": s, "stage": "item", "valid": int(not (p == 0 and s == 1)),
             "score": float(rng.integers(1, 7))} for p in range(8) for i in range(5) for s in range(2)]
    frame = pd.DataFrame(rows)
    ok = frame[frame["valid"] == 1].pivot_table(index=["persona_id", "item_id"], columns="sample", values="score").dropna()
    assert sample_retest(frame)["test_retest"] == pytest.approx(np.corrcoef(ok[0], ok[1])[0, 1], abs=1e-12)
    single = sample_retest(frame[frame["sample"] == 0])
    assert single["test_retest"] is None and "--samples" in single["reason"]


def test_value_alpha_and_omega_need_the_minimum_personas():
    """α and ω of a value are not reported on fewer than ``reliability.MIN_PERSONAS`` (24: Bonett 2002's n to tell an
    α of .70 from 0 with two items, 80 % power) personas answering all its items: None with the reason; at 24 they
    are. The minimum is the formula's, rounded up."""
    from scipy.stats import norm

    from analysis.methods.values import reliability

    k = 2
    bonett = 2 * k / (k - 1) * (norm.ppf(0.975) + norm.ppf(0.8)) ** 2 / np.log(1 / (1 - 0.7)) ** 2 + 2
    assert reliability.MIN_PERSONAS == int(np.ceil(bonett)) == 24
    rng = np.random.default_rng(3)
    inst = load_instrument("pvq")
    latent = rng.normal(size=(24, len(VALUES)))
    matrix = pd.DataFrame({item.id: latent[:, VALUES.index(item.value)] + 0.5 * rng.normal(size=24) for item in inst.items})
    item_values = {item.id: item.value for item in inst.items}
    few = reliability.value_reliability(matrix.iloc[:15], item_values)
    assert few["alpha_mean"] is None and few["omega_mean"] is None
    assert {v["reason"] for v in few["values"].values()} == {"needs ≥ 24 personas answering every item of the value, has 15"}
    enough = reliability.value_reliability(matrix, item_values)
    assert enough["alpha_mean"] is not None and all(v["reason"] is None for v in enough["values"].values())


def test_the_report_carries_the_fitted_figures_in_a_json_round_trip(store_path):
    """The Structure page draws from the report: its layout, centroids, movement and loadings, after a JSON round trip,
    are the frames a fresh fit of the same answers gives (same columns, order and values)."""
    from analysis.methods.base import doc_frame
    from analysis.methods.values import cfa
    from analysis.methods.values.chance import movement
    from analysis.methods.values.metrics import context_structure

    with Store(store_path, read_only=True) as store:
        doc = json.loads(json.dumps(values_metrics(store, "stable", n_boot=0), allow_nan=False))
        answers = latest_answers(store, "stable")
    figures = doc["models"]["stable"]["contexts"]["no_conv"]["figures"]
    fresh = context_structure(answers[answers["model"] == "stable"], "no_conv", "pvq-rs")
    pd.testing.assert_frame_equal(doc_frame(figures["layout"]), fresh.circumplex.layout.reset_index(drop=True))
    pd.testing.assert_frame_equal(doc_frame(figures["centroids"]), fresh.circumplex.centroids.reset_index(drop=True))
    pd.testing.assert_frame_equal(doc_frame(figures["movement"]), movement(fresh.circumplex.layout).reset_index(drop=True))
    pd.testing.assert_frame_equal(doc_frame(figures["loadings"]), cfa.cfa_loadings(fresh.cfa_results).reset_index(drop=True))
    assert figures["observed_order"] == list(fresh.circumplex.observed_order) and len(figures["layout"]["data"]) > 10


def test_the_report_carries_what_the_pages_drew_from_answers(store_path):
    """The random-start Stress, each persona's value profile, the value means and the persona list are fields of the
    report (pages used to compute them from answers): equal to the functions computed directly, by hand for the means."""
    from analysis.methods.base import doc_frame
    from analysis.methods.values.chance import random_start_stress
    from analysis.methods.values.scores import item_matrix, value_scores

    with Store(store_path, read_only=True) as store:
        doc = json.loads(json.dumps(values_metrics(store, "stable", n_boot=0), allow_nan=False))["models"]["stable"]
        answers = latest_answers(store, "stable")
    ctx = doc["contexts"]["no_conv"]
    assert (ctx["context"], ctx["instrument"]) == ("no_conv", "pvq-rs")
    sub = answers[answers["context"] == "no_conv"]
    keyed = {k: v for k, v in zip(sub["item_id"].astype(str), sub["value"]) if isinstance(v, str) and v}
    expected = random_start_stress(item_matrix(sub, context="no_conv", instrument="pvq-rs"), keyed)
    assert ctx["figures"]["random_start_stress"] == pytest.approx(expected, abs=1e-12) and expected > ctx["stress"]
    figures = doc["profile_figures"]
    profiles = doc_frame(figures["profiles"])
    scores = value_scores(answers)
    assert len(profiles) == len(scores) and set(profiles["context"]) == set(doc["contexts"])
    one = profiles[(profiles["persona_id"] == 0) & (profiles["context"] == "no_conv")].set_index("value")["ipsatised"]
    by_hand = scores[(scores["persona_id"] == 0) & (scores["context"] == "no_conv")].set_index("value")["ipsatised"]
    pd.testing.assert_series_equal(one, by_hand, check_names=False, atol=1e-12)
    means = doc_frame(figures["means"]).set_index(["context", "value"])
    for value in ("Achievement", "Benevolence"):
        col = profiles[(profiles["context"] == "no_conv") & (profiles["value"] == value)]["ipsatised"]
        assert means.loc[("no_conv", value), "mean"] == pytest.approx(sum(col) / len(col), abs=1e-12)
        assert means.loc[("no_conv", value), "n"] == len(col)
    people = doc_frame(figures["personas"])
    assert list(people["persona_id"]) == sorted(answers["persona_id"].unique())


def test_what_a_plan_can_show_is_what_its_metrics_compute():
    """can_show runs the metrics on placeholder answers of the plan's design: 1 persona gives no circumplex (the
    structure's own reason), 5 personas in one context a circumplex but no stability, 25 personas in two contexts all
    but a CFA (it needs 30, ``cfa.MIN_PERSONAS``), 30 all."""
    from analysis.llm.specs import parse_model_spec
    from analysis.methods.values.can_show import can_show
    from analysis.methods.values.plan import build_values_plan

    spec = parse_model_spec("embedded")

    def shows(**kw):
        return {name: (ok, why) for name, ok, why in can_show(build_values_plan(spec, **kw).model_dump()).lines}

    one = shows(limit_personas=1, limit_items=10, contexts=["no_conv"])
    assert one["circumplex and Stress"] == (False, "value structure needs at least 5 personas, got 1")
    five = shows(limit_personas=5, contexts=["no_conv"])
    assert five["circumplex and Stress"][0] and five["rank-order and ipsative stability"] == (False, "needs ≥ 2 contexts")
    many = shows(limit_personas=25, contexts=["no_conv", "topics_a"])
    assert many["CFA fit"] == (False, "needs ≥ 30 personas answering every item of the model, has 25")
    assert all(ok for name, (ok, _) in many.items() if name != "CFA fit")
    assert all(ok for ok, _ in shows(limit_personas=30, contexts=["no_conv", "topics_a"]).values())
