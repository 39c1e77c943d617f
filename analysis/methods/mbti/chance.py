"""Chance levels and reliability of the ChatGPT-MBTI metrics, on the model's own design.

Design: the answers of one model as stored (subjects × order modes × testings × statements, with which answers
are valid). Nulls (``analysis.chance``): ``uniform`` replaces every valid answer by one of the seven options
uniformly at random; ``permutation`` shuffles each statement's valid answers (within an order mode) across
subjects and testings, so the answer distribution of every statement is kept but no answer belongs to its subject.
Each simulated set is scored with the paper's formulas (``scoring``, ``metrics`` via ``cli.model_metrics``).

Reliability: Cronbach's α per dimension (units = testings, items = the dimension's statements, answers signed
by the statement's direction: ``direction × weight``), and test–retest = the mean Pearson r between two
testings of the same subject over the signed answers of all statements (mean over the pairs of testings and
the subjects; ``analysis.reliability``).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from analysis import chance, reliability
from analysis.methods.mbti import DIMENSIONS, OPTIONS
from analysis.methods.mbti.metrics import model_metrics
from analysis.methods.mbti.scoring import MAX_WEIGHT, TESTING_KEYS, WEIGHTS
from analysis.runs.store import Store

N_SIMS = 200


def _keys(frame: pd.DataFrame) -> pd.Series:
    """One string key per row of the testing columns (an empty Series for an empty frame, never a DataFrame)."""
    rows = frame[list(TESTING_KEYS)].astype(str).itertuples(index=False)
    return pd.Series(["\x1f".join(r) for r in rows], index=frame.index, dtype=object)


def _valid(answers: pd.DataFrame) -> pd.DataFrame:
    ok = (pd.to_numeric(answers["valid"], errors="coerce") == 1) & answers["dimension"].notna() & answers["option_index"].notna()
    return answers[ok]


def testing_scores(answers: pd.DataFrame, options: np.ndarray | None = None) -> pd.DataFrame:
    """``scoring.scores_by_testing`` vectorised (X per testing and dimension from the valid answers), with the
    valid answers' option indices replaced by ``options`` when given. Testings without any valid answer on a
    dimension get NaN there; n_answers / n_invalid are those of the stored answers."""
    codes, uniques = pd.factorize(_keys(answers), sort=True)
    valid = _valid(answers)
    vcodes = codes[answers.index.get_indexer(valid.index)]
    dim = valid["dimension"].map({d: k for k, d in enumerate(DIMENSIONS)}).to_numpy(dtype=np.int64)
    opt = valid["option_index"].astype(int).to_numpy() if options is None else options
    opt = np.asarray(opt, dtype=np.int64)
    signed = valid["direction"].astype(float).to_numpy() * np.asarray(WEIGHTS, dtype=float)[opt]
    cell = (vcodes * len(DIMENSIONS) + dim).astype(np.int64)
    size = len(uniques) * len(DIMENSIONS)
    total = np.bincount(cell, weights=signed, minlength=size)
    count = np.bincount(cell, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = (50.0 + 50.0 * total / (MAX_WEIGHT * count)).reshape(len(uniques), len(DIMENSIONS))
    first = answers.groupby(codes, sort=True)[list(TESTING_KEYS)].first()
    out = first.reset_index(drop=True)
    for k, d in enumerate(DIMENSIONS):
        out[d] = x[:, k]
    out["n_answers"] = np.bincount(codes, minlength=len(uniques))
    out["n_invalid"] = np.bincount(codes, weights=(pd.to_numeric(answers["valid"], errors="coerce") != 1).to_numpy(),
                                   minlength=len(uniques)).astype(int)
    return out


def _flatten(doc: Mapping[str, Any]) -> dict[str, float]:
    """The metrics of a ``cli.model_metrics`` document as flat names (None → NaN)."""
    out: dict[str, float] = {}
    cons = [s["consistency"] for s in doc["subjects"].values()]
    for subject, s in doc["subjects"].items():
        out[f"consistency/{subject}"] = s["consistency"]
        out |= {f"score/{subject}/{d}": v for d, v in (s.get("scores") or {}).items()}
    out["consistency"] = float(np.mean(cons)) if cons and None not in cons else None
    for subject, r in doc["robustness"].items():
        out[f"robustness/{subject}"] = r
    for pair, f in doc["fairness"].items():
        out[f"fairness/{pair}"] = f
    return {k: float("nan") if v is None else float(v) for k, v in out.items()}


def null_draws(answers: pd.DataFrame, kind: str, n_sims: int, seed: int) -> dict[str, list[float]]:

    valid = _valid(answers)
    strata = pd.factorize(valid["statement_id"].astype(str) + "\x1f" + valid["order_mode"].astype(str))[0]
    observed = valid["option_index"].astype(int).to_numpy()
    base = np.argsort(strata, kind="stable")

    def statistic(rng: np.random.Generator) -> dict[str, float]:
        if kind == "uniform":
            options = rng.integers(0, len(OPTIONS), size=len(observed))
        else:
            options = np.empty_like(observed)
            options[base] = observed[np.lexsort((rng.random(len(observed)), strata))]
        return _flatten(model_metrics(testing_scores(answers, options)))

    return chance.simulate(statistic, n_sims, seed)


def design_fingerprint(answers: pd.DataFrame) -> list[Any]:
    valid = _valid(answers)
    cols = [*TESTING_KEYS, "statement_id", "dimension", "direction"]
    return [answers[list(TESTING_KEYS)].astype(str).drop_duplicates().values.tolist(),
            valid[cols].astype(str).sort_values(cols).values.tolist(),
            sorted(valid["option_index"].astype(int).tolist())]


def model_chance(answers: pd.DataFrame, doc: Mapping[str, Any], *, n_sims: int = N_SIMS, seed: int = 0,
                 store: Store | None = None) -> dict[str, Any]:
    """``{"metrics": {name: {kind: summary}}, "n_sims", "seed"}`` for one model (``doc``: its metrics entry).
    Names: ``consistency`` (mean over subjects), ``consistency/<subject>``, ``robustness/<subject>``,
    ``fairness/<male>|<female>`` ("higher is better"), and ``dimension_score``: the band of one subject's mean
    dimension score X, pooled over subjects and dimensions (no observed value)."""
    answers = answers.reset_index(drop=True)
    observed = _flatten(doc)
    out: dict[str, Any] = {"metrics": {}, "n_sims": n_sims, "seed": seed}
    fingerprint = design_fingerprint(answers)
    for kind in chance.NULL_KINDS:
        draws = chance.cached_draws(store, "mbti", [kind, fingerprint], n_sims, seed,
                                    lambda: null_draws(answers, kind, n_sims, seed))
        pooled = [v for name, values in draws.items() if name.startswith("score/") for v in values]
        if pooled:  # a dimension score under the null: exchangeable over subjects and dimensions, one band
            out["metrics"].setdefault("dimension_score", {})[kind] = chance.summarize(
                None, chance.as_floats(pooled), better="higher", kind=kind).to_dict()
        for name, values in draws.items():
            if name.startswith("score/"):
                continue
            obs = observed.get(name)
            summary = chance.summarize(None if obs is None or np.isnan(obs) else obs, chance.as_floats(values),
                                       better="higher", kind=kind)
            out["metrics"].setdefault(name, {})[kind] = summary.to_dict()
    return out


def signed_matrix(answers: pd.DataFrame) -> pd.DataFrame:
    """testing × statement signed answers (``direction × weight``; NaN when invalid), one model and subject set."""
    valid = _valid(answers)
    keys = _keys(valid)
    signed = valid["direction"].astype(float) * valid["option_index"].astype(int).map(dict(enumerate(WEIGHTS)))
    return pd.DataFrame({"testing": keys, "statement": valid["statement_id"].astype(str), "x": signed}).pivot_table(
        index="testing", columns="statement", values="x", aggfunc="mean")


#: Why α over testings is not computed when every subject was tested once.
ONE_TESTING_EACH = ("each subject was tested once: α over testings needs two or more testings of the same subject "
                    "(one testing each of different subjects pools different populations)")


def model_reliability(answers: pd.DataFrame) -> dict[str, Any]:
    """α per dimension over the model's testings, and the test–retest r (see the module docstring)."""
    valid = _valid(answers)
    dims = valid.groupby("statement_id")["dimension"].first()
    matrix = signed_matrix(answers)
    firsts = answers.drop_duplicates(list(TESTING_KEYS))
    subject_of = pd.Series(firsts["subject"].to_numpy(), index=_keys(firsts).to_numpy())
    # testings of one subject are repeated measures; one testing each of different subjects (men, doctors …) are
    # different populations, whose α would measure how the subjects differ, not how consistent the testings are
    repeated = bool(len(matrix)) and int(subject_of.reindex(matrix.index).value_counts().max()) >= 2
    alpha: dict[str, Any] = {}
    for d in DIMENSIONS:
        cols = [c for c in matrix.columns if dims.get(c) == d]
        frame = matrix[cols]
        a = reliability.cronbach_alpha(frame) if repeated else float("nan")
        alpha[d] = {"alpha": a if np.isfinite(a) else None, "n_items": len(cols), "n_testings": int(len(frame)),
                    "reason": reliability.why_alpha_undefined(frame) if repeated else ONE_TESTING_EACH}
    per_subject = []
    for _, keys in matrix.index.to_series().groupby(subject_of.reindex(matrix.index).to_numpy()):
        rs = [reliability.test_retest(matrix.loc[a], matrix.loc[b]) for a, b in combinations(keys, 2)]
        rs = [r for r in rs if np.isfinite(r)]
        if rs:
            per_subject.append(float(np.mean(rs)))
    retest = float(np.mean(per_subject)) if per_subject else None
    return {"alpha": alpha, "test_retest": retest,
            "test_retest_reason": None if retest is not None else "needs ≥ 2 testings of a subject with ≥ 3 shared answers"}
