"""MBTI nulls and reliability: the vectorised scoring equals the paper's, nulls keep the design, α and test–retest
by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis import reliability
from analysis.methods.mbti import DIMENSIONS
from analysis.methods.mbti import chance as mchance
from analysis.methods.mbti.metrics import model_metrics
from analysis.methods.mbti.scoring import scores_by_testing


def answers(seed: int = 0, invalid: float = 0.1, testings: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for subject in ("Men", "Women", "People"):
        for mode in ("permuted", "fixed"):
            for t in range(testings):
                for k in range(20):
                    ok = rng.random() >= invalid
                    rows.append({"model": "m", "run_id": "r", "subject": subject, "order_mode": mode, "testing": t,
                                 "statement_id": str(k), "dimension": DIMENSIONS[k % 5], "direction": 1 if k % 2 else -1,
                                 "option_index": int(rng.integers(0, 7)) if ok else None, "valid": int(ok)})
    return pd.DataFrame(rows)


def test_vectorised_scores_equal_the_paper_scoring():
    a = answers()
    ours, ref = mchance.testing_scores(a), scores_by_testing(a)
    assert np.allclose(ours[list(DIMENSIONS)].to_numpy(float), ref[list(DIMENSIONS)].to_numpy(float), equal_nan=True)
    assert (ours[["subject", "order_mode", "n_answers", "n_invalid"]].astype(str).values
            == ref[["subject", "order_mode", "n_answers", "n_invalid"]].astype(str).values).all()


def test_permutation_keeps_each_statements_answers_and_uniform_sits_near_half():
    a = answers(seed=1)
    doc = model_metrics(scores_by_testing(a))
    out = mchance.model_chance(a, doc, n_sims=30)
    assert out["metrics"]["consistency"]["uniform"]["n_sims"] == 30
    # a dimension score under random answers is centred on 50 (the option weights are symmetric): E[X] = 50
    band = out["metrics"]["dimension_score"]["uniform"]
    assert band["observed"] is None and band["lo"] < 50 < band["hi"] and abs(band["mean"] - 50) < 2
    # a model that answers uniformly at random is chance-like on every metric
    for name, kinds in out["metrics"].items():
        assert kinds["uniform"]["verdict"] != "beyond chance" or name.startswith("fairness"), name
    # the observed answers of each statement are a permutation of the null's (same multiset per statement)
    valid = a[a["valid"] == 1]
    strata = pd.factorize(valid["statement_id"] + "|" + valid["order_mode"])[0]
    observed = valid["option_index"].astype(int).to_numpy()
    base = np.argsort(strata, kind="stable")
    perm = np.empty_like(observed)
    perm[base] = observed[np.lexsort((np.random.default_rng(0).random(len(observed)), strata))]
    for s in np.unique(strata):
        assert sorted(perm[strata == s]) == sorted(observed[strata == s])


def test_reliability_by_hand():
    a = answers(seed=2, invalid=0.0)
    out = mchance.model_reliability(a)
    m = mchance.signed_matrix(a)
    e_items = [c for c in m.columns if int(c) % 5 == 0]
    assert out["alpha"]["E"]["alpha"] == pytest.approx(reliability.cronbach_alpha(m[e_items]), abs=1e-12)
    assert out["alpha"]["E"]["n_items"] == 4 and out["alpha"]["E"]["n_testings"] == 3 * 2 * 4
    # test–retest: mean over subjects of the mean r between pairs of that subject's testings
    key = a[["model", "subject", "order_mode", "run_id", "testing"]].astype(str).agg("\x1f".join, axis=1)
    subject = dict(zip(key, a["subject"]))
    per = []
    for s in ("Men", "Women", "People"):
        rows = [k for k in m.index if subject[k] == s]
        rs = [np.corrcoef(m.loc[x], m.loc[y])[0, 1] for i, x in enumerate(rows) for y in rows[i + 1:]]
        per.append(np.mean(rs))
    assert out["test_retest"] == pytest.approx(np.mean(per), abs=1e-12)
    one = answers(testings=1)
    single = mchance.model_reliability(one[one["order_mode"] == "permuted"])  # one testing per subject: no pair
    assert single["test_retest"] is None and "needs ≥ 2 testings" in single["test_retest_reason"]


def test_every_answer_invalid_gives_undefined_reliability_not_an_error():
    a = answers(seed=3).assign(valid=0, option_index=None)
    out = mchance.model_reliability(a)
    assert all(v["alpha"] is None for v in out["alpha"].values()) and out["test_retest"] is None
    assert mchance.testing_scores(a)[list(DIMENSIONS)].isna().all().all()
