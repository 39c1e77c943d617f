"""PersonaGym in context: PersonaScore against random grades, the grade distribution, and the judges.

- Chance (``uniform``): every valid grade is replaced by a uniformly random grade 1–5 on the same design (same
  answers, evaluators and invalid grades) and the PersonaScore and task scores are recomputed with the paper's
  rules (``metrics``). Its mean is 3; its spread is what the design's size allows. The permutation null
  (grades shuffled across personas) leaves every task mean unchanged, so it is not reported for PersonaGym.
- Grade distribution: the share of each grade 1–5 among valid grades, against the uniform 20 % each
  (Pearson's χ² goodness of fit, ``scipy.stats.chisquare``): a judge that gives 5 to everything is visible.
- Judges (≥ 2 evaluators): agreement as ICC(2,1) (Shrout & Fleiss 1979, two-way random effects, absolute
  agreement, single rater: (MS_R − MS_E) / (MS_R + (k−1)·MS_E + k·(MS_C − MS_E)/n) for n answers × k evaluators;
  ``analysis.reliability``, pingouin, checked against R ``psych``) over the answers every evaluator graded validly; the PersonaScore by evaluator is in the metrics
  document; ``ranking_without`` re-ranks the models with one evaluator dropped at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import chisquare

from analysis import chance, reliability
from analysis.methods.personagym import TASKS
from analysis.methods.personagym.metrics import (
    KEYS, model_persona_score, model_task_scores, persona_task_scores, question_scores,
)
from analysis.runs.store import Store

N_SIMS = 200
GRADES = (1, 2, 3, 4, 5)


def _scores(grades: pd.DataFrame) -> dict[str, float]:
    by_persona = persona_task_scores(question_scores(grades))
    tasks = model_task_scores(by_persona)
    return {"persona_score": model_persona_score(by_persona), **{f"task/{t}": tasks[t] for t in TASKS}}


def null_draws(grades: pd.DataFrame, n_sims: int, seed: int) -> dict[str, list[float]]:
    ok = (grades["status"] == "ok").to_numpy()

    def statistic(rng: np.random.Generator) -> dict[str, float]:
        score = pd.to_numeric(grades["score"], errors="coerce").to_numpy(dtype=float).copy()
        score[ok] = rng.integers(1, 6, size=int(ok.sum()))
        return _scores(grades.assign(score=score))

    return chance.simulate(statistic, n_sims, seed)


def grade_distribution(grades: pd.DataFrame) -> dict[str, Any]:
    """Shares of grades 1–5 among valid grades and the χ² test against uniform (None when no valid grade)."""
    valid = pd.to_numeric(grades.loc[grades["status"] == "ok", "score"], errors="coerce").dropna().round().astype(int)
    counts = np.array([(valid == g).sum() for g in GRADES])
    if counts.sum() == 0:
        return {"shares": None, "n": 0, "chi2": None, "p": None, "reason": "no valid grade"}
    test = chisquare(counts)
    return {"shares": {str(g): float(c / counts.sum()) for g, c in zip(GRADES, counts)}, "n": int(counts.sum()),
            "chi2": float(test.statistic), "p": float(test.pvalue), "reason": None}


def model_chance(grades: pd.DataFrame, doc: Mapping[str, Any], *, n_sims: int = N_SIMS, seed: int = 0,
                 store: Store | None = None) -> dict[str, Any]:
    """``{"metrics": {"persona_score" | "task/<task>": {"uniform": summary}}, "grades": grade_distribution,
    "n_sims", "seed"}`` for one model's grades (``doc``: its metrics entry)."""
    grades = grades.reset_index(drop=True)
    design = [grades[[*KEYS, "evaluator", "status"]].astype(str).values.tolist()]
    draws = chance.cached_draws(store, "personagym", design, n_sims, seed, lambda: null_draws(grades, n_sims, seed))
    observed = {"persona_score": doc.get("persona_score"), **{f"task/{t}": (doc.get("tasks") or {}).get(t) for t in TASKS}}
    metrics = {name: {"uniform": chance.summarize(observed.get(name), chance.as_floats(values), better="higher",
                                                  kind="uniform").to_dict()}
               for name, values in draws.items()}
    return {"metrics": metrics, "grades": grade_distribution(grades), "n_sims": n_sims, "seed": seed}


def judge_agreement(grades: pd.DataFrame) -> dict[str, Any]:
    """ICC(2,1) of the evaluators over the answers each graded validly; None with a reason when undefined."""
    evaluators = list(dict.fromkeys(grades["evaluator"]))
    if len(evaluators) < 2:
        return {"icc2": None, "n_answers": 0, "evaluators": evaluators, "reason": "needs ≥ 2 evaluators"}
    ok = grades[grades["status"] == "ok"].assign(score=lambda f: pd.to_numeric(f["score"], errors="coerce"))
    wide = ok.pivot_table(index=KEYS, columns="evaluator", values="score", aggfunc="mean").dropna()
    value = reliability.icc2(wide)
    reason = None if np.isfinite(value) else (f"needs ≥ {reliability.MIN_UNITS} answers graded by every evaluator, "
                                              f"has {len(wide)}" if len(wide) < reliability.MIN_UNITS else "no variance")
    return {"icc2": value if np.isfinite(value) else None, "n_answers": int(len(wide)), "evaluators": evaluators,
            "reason": reason}


def ranking_without(grades: pd.DataFrame) -> dict[str, Any]:
    """Models ranked by PersonaScore with all evaluators and with each one dropped (grades of several models):
    ``{"all": [...], "without": {evaluator: {"ranking": [...], "persona_scores": {...}, "changed": bool}}}``.
    Models whose PersonaScore is undefined are left out of a ranking (never ranked last by default)."""
    def rank(frame: pd.DataFrame) -> tuple[list[str], dict[str, float | None]]:
        scores = {m: _scores(g)["persona_score"] for m, g in frame.groupby("model", sort=True)}
        defined = {m: s for m, s in scores.items() if s is not None and np.isfinite(s)}
        return sorted(defined, key=lambda m: -defined[m]), {m: defined.get(m) for m in scores}

    evaluators = list(dict.fromkeys(grades["evaluator"]))
    full, _ = rank(grades)
    out: dict[str, Any] = {"all": full, "without": {}}
    if len(evaluators) < 2:
        return out
    for ev in evaluators:
        ranking, scores = rank(grades[grades["evaluator"] != ev])
        out["without"][ev] = {"ranking": ranking, "persona_scores": scores, "changed": ranking != full}
    return out
