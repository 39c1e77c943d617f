"""How sure a subject's type is: a bootstrap over the statements, and the type gap between a pair of subjects.

The report scores dimension d of a testing t as X_{d,t} = 50 + 50 · Σ_i s_i·w_i / (3 · n_t) over the statements i of d
answered validly in t (``scoring.percentage``; s_i the statement's direction, w_i the option's weight), and a subject
as the mean of X_{d,t} over its testings (NaN testings skipped; ``scoring.mean_scores``).

**Statement bootstrap** (Efron & Tibshirani 1993, ch. 13, percentile interval): the statements of d that have at least
one valid answer are drawn with replacement (as many as there are), B times (``analysis.stats.bootstrap_counts``, seed
``seed + k`` for the k-th dimension of ``DIMENSIONS``); a statement drawn m times counts m times in every testing's
sums, and each resample is scored with the same two formulas. The estimate (every statement once) is the report's
score. 95 % CI = the 2.5 and 97.5 percentiles.

**Decided letters.** A dimension's letter is decided when its CI lies wholly on one side of the cut, 50:
lo > 50 (first pole: E, N, T, J, A) or hi < 50 (second: I, S, F, P, T). A CI that includes 50 leaves the letter
undecided, shown as both poles ("E/I"; in the type string "[E/I]NTJ-A") with the reason, never as one letter; so are dimensions with fewer than ``MIN_STATEMENTS`` (5)
answered statements (a percentile interval of 2–4 units says nothing) and runs not bootstrapped. "X": no valid answer.
This matters most for a single testing (the published ChatGPT-MBTI answers): a type of four letters is reported
whatever the answers, and the bootstrap says which of them the answers support.

**Type gap of a pair** (Men − Women, Boys − Girls: the fairness view a single testing allows): per dimension
Δ_d = X_d(first) − X_d(second), each score as the report gives it; the same statements are asked of both, so the
statements either subject answered validly are resampled together (a paired bootstrap over statements,
``analysis.stats.paired_bootstrap_counts``; a statement one subject did not answer validly adds nothing to its score
when drawn), and whether the report's letters differ.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.base import number
from analysis.methods.mbti import DIMENSIONS, POLES
from analysis.methods.mbti.scoring import WEIGHTS, percentage
from analysis.stats import bootstrap_counts, json_number, paired_bootstrap_counts

#: Fewer answered statements than this on a dimension and its CI (and so its letter) is undefined.
MIN_STATEMENTS = 5
#: Resamples behind every type letter's CI and the type gaps (the report's ``n_boot`` only switches them off at 0): a
#: letter decided or not must not change with the bootstrap size a page or a command asks for its other CIs.
TYPE_BOOT = 2000
#: The four dimensions of the type code proper ("ENTJ"); the fifth (A/T) is its suffix.
TYPE_DIMENSIONS: tuple[str, ...] = DIMENSIONS[:4]
CUT = 50.0


def statement_sums(answers: pd.DataFrame, dimension: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """One subject's answers on ``dimension`` (mbti_answers rows of its chosen testings): the statements with a valid
    answer, and per statement × testing (run_id, testing) the sum of signed weights Σ s·w and the count of valid
    answers (``(S, T)`` arrays; 0 where a statement has no valid answer in a testing)."""
    def key(rows: pd.DataFrame) -> list[str]:
        return (rows["run_id"].astype(str) + "#" + rows["testing"].astype(str)).tolist()

    testings = list(dict.fromkeys(key(answers))) if len(answers) else []
    ok = answers[(answers["valid"] == 1) & (answers["dimension"] == dimension) & answers["option_index"].notna()]
    if ok.empty:
        return [], np.zeros((0, len(testings))), np.zeros((0, len(testings)))
    signed = ok["direction"].astype(int).to_numpy() * np.asarray(WEIGHTS)[ok["option_index"].astype(int).to_numpy()]
    statement_codes, statements = pd.factorize(ok["statement_id"].astype(str), sort=False)
    testing_codes = pd.Index(testings).get_indexer(key(ok))
    sums = np.zeros((len(statements), len(testings)))
    counts = np.zeros_like(sums)
    np.add.at(sums, (statement_codes, testing_codes), signed)
    np.add.at(counts, (statement_codes, testing_codes), 1.0)
    return list(statements), sums, counts


def resampled_scores(w: np.ndarray, sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The subject's score for each row of multiplicities ``w`` (B, S): per testing ``percentage(w @ sums, w @
    counts)``, then the mean over the testings that have a valid answer (NaN when none)."""
    per_testing = np.asarray(percentage(w @ sums, w @ counts), dtype=float).reshape(w.shape[0], -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample with no valid answer in any testing: NaN
        return np.nanmean(per_testing, axis=1) if per_testing.shape[1] else np.full(w.shape[0], np.nan)


def letter(dimension: str, score: float, lo: float, hi: float, n_statements: int) -> dict[str, Any]:
    """``{"letter", "decided", "reason"}``: the pole the CI [lo, hi] lies on, or both poles "E/I" (undecided) / "X"
    (no valid answer) with the reason (see the module docstring)."""
    first, second = POLES[dimension]
    if not math.isfinite(score):
        return {"letter": "X", "decided": False, "reason": "no valid answer on this dimension"}
    both = f"{first}/{second}"
    if n_statements < MIN_STATEMENTS:
        return {"letter": both, "decided": False,
                "reason": f"{n_statements} statement{'' if n_statements == 1 else 's'} answered: too few for a CI "
                          f"(needs ≥ {MIN_STATEMENTS})"}
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return {"letter": both, "decided": False, "reason": "not bootstrapped (n_boot = 0)"}
    if lo > CUT and score >= CUT:
        return {"letter": first, "decided": True, "reason": None}
    if hi < CUT and score < CUT:
        return {"letter": second, "decided": True, "reason": None}
    return {"letter": both, "decided": False,
            "reason": f"95 % CI [{lo:.1f}, {hi:.1f}] includes 50, the cut between {first} and {second}"}


def type_code(letters: dict[str, dict[str, Any]]) -> str:
    """The type with each undecided letter as both poles in brackets: "[E/I]NT[J/P]-[A/T]"; "ENTJ-A" when all are
    decided."""
    def shown(d: str) -> str:
        value = letters[d]["letter"]
        return f"[{value}]" if "/" in value else value

    return "".join(shown(d) for d in TYPE_DIMENSIONS) + "-" + shown(DIMENSIONS[4])


def subject_uncertainty(answers: pd.DataFrame, *, n_boot: int, seed: int = 0) -> dict[str, Any]:
    """One subject's ``uncertainty``: per dimension the score and its 95 % CI over statements (``scores_ci``
    [lo, hi]), the answered statements, the decided letter (``letters``), the type with both poles in brackets for
    each undecided letter (``type``, ``type_code``), how many of the four type letters are decided (``n_decided``) and whether each of the four rests on
    enough statements to be decided at all (``decidable``: ≥ ``MIN_STATEMENTS`` each)."""
    cis, letters, n_statements = {}, {}, {}
    for k, dim in enumerate(DIMENSIONS):
        statements, sums, counts = statement_sums(answers, dim)
        n = len(statements)
        ci = bootstrap_counts(lambda w: resampled_scores(w, sums, counts), n, n_boot=max(n_boot, 1), seed=seed + k)
        lo, hi = (ci.lo, ci.hi) if n_boot > 0 and n >= MIN_STATEMENTS else (math.nan, math.nan)
        cis[dim], n_statements[dim] = [json_number(lo), json_number(hi)], n
        letters[dim] = letter(dim, ci.estimate, lo, hi, n)
    code = type_code(letters)
    return {"scores_ci": cis, "n_statements": n_statements, "letters": letters, "type": code,
            "n_decided": sum(letters[d]["decided"] for d in TYPE_DIMENSIONS),
            "decidable": all(n_statements[d] >= MIN_STATEMENTS for d in TYPE_DIMENSIONS), "n_boot": int(n_boot)}


def aligned(union: list[str], statements: list[str], sums: np.ndarray,
            counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sums`` and ``counts`` with one row per statement of ``union`` (zeros for a statement this subject did not
    answer validly: it adds nothing to its score when drawn)."""
    rows = {s: i for i, s in enumerate(statements)}
    out_sums, out_counts = np.zeros((len(union), sums.shape[1])), np.zeros((len(union), counts.shape[1]))
    for j, s in enumerate(union):
        if s in rows:
            out_sums[j], out_counts[j] = sums[rows[s]], counts[rows[s]]
    return out_sums, out_counts


def pair_gap(first: pd.DataFrame, second: pd.DataFrame, types: tuple[str | None, str | None], *, n_boot: int,
             seed: int = 0) -> dict[str, Any]:
    """The type gap of two subjects (their answers of the chosen testings; ``types``: the report's type codes): per
    dimension ``diff`` (``number`` of X_first − X_second, each subject's score as the report gives it), its paired 95 %
    CI over the statements either answered (``n_statements``; ``n_shared``: answered by both), both letters and whether
    they differ; and how many of the four type letters differ."""
    dims: dict[str, Any] = {}
    for k, dim in enumerate(DIMENSIONS):
        sa, suma, cnta = statement_sums(first, dim)
        sb, sumb, cntb = statement_sums(second, dim)
        union = list(dict.fromkeys([*sa, *sb]))
        ma, mb = aligned(union, sa, suma, cnta), aligned(union, sb, sumb, cntb)
        ci = paired_bootstrap_counts(lambda w: resampled_scores(w, *ma), lambda w: resampled_scores(w, *mb), len(union),
                                     n_boot=max(n_boot, 1), seed=seed + k)
        shared = set(sa) & set(sb)
        lo, hi = (ci.lo, ci.hi) if n_boot > 0 and len(union) >= MIN_STATEMENTS else (math.nan, math.nan)
        pos = 5 if dim == DIMENSIONS[4] else k  # the suffix letter sits after the "-"
        la, lb = ((t or "")[pos:pos + 1] or None for t in types)
        dims[dim] = {"diff": number(ci.estimate, "no statement answered validly by both subjects"),
                     "ci": [json_number(lo), json_number(hi)], "n_statements": len(union), "n_shared": len(shared),
                     "letters": [la, lb], "letters_differ": bool(la and lb and "X" not in (la, lb) and la != lb)}
    return {"dimensions": dims, "n_letters_differ": sum(dims[d]["letters_differ"] for d in TYPE_DIMENSIONS)}


def chosen_answers(answers: pd.DataFrame, subject: str) -> pd.DataFrame:
    """The answers of ``subject`` the report scores it on: its permuted-order testings, else its fixed-order ones
    (as ``metrics.model_metrics`` chooses)."""
    mine = answers[answers["subject"] == subject]
    permuted = mine[mine["order_mode"] == "permuted"]
    return permuted if len(permuted) else mine[mine["order_mode"] == "fixed"]


def type_gaps(answers: pd.DataFrame, subjects: dict[str, dict[str, Any]], pairs: tuple[tuple[str, str], ...], *,
              n_boot: int, seed: int = 0) -> dict[str, Any]:
    """``"Men|Women"`` -> ``pair_gap`` for each pair of ``pairs`` whose two subjects the model was asked (names
    matched case-insensitively); ``subjects``: the report's subject entries (their ``type``)."""
    by_lower = {s.lower(): s for s in subjects}
    out = {}
    for a, b in pairs:
        sa, sb = by_lower.get(a.lower()), by_lower.get(b.lower())
        if sa is not None and sb is not None:
            out[f"{a}|{b}"] = pair_gap(chosen_answers(answers, sa), chosen_answers(answers, sb),
                                       (subjects[sa].get("type"), subjects[sb].get("type")), n_boot=n_boot, seed=seed)
    return out


def decided_headline(uncertainty: dict[str, dict[str, Any]], n_boot: int) -> dict[str, Any]:
    """``mbti_decided``: the mean over subjects of the type letters (of E/I, N/S, T/F, J/P) whose 95 % CI over
    statements lies wholly on one side of 50 (``n_decided``; 0–4), over the subjects whose four dimensions each rest on
    ≥ ``MIN_STATEMENTS`` answered statements (``decidable``; others could decide nothing whatever they answered, so
    they are left out and the coverage says so, rather than counted as 0)."""
    if not uncertainty:
        return number(None, "no subject scored")
    if n_boot <= 0:
        return number(None, "not bootstrapped (n_boot = 0): a letter is decided only by its CI over statements")
    decided = [u["n_decided"] for u in uncertainty.values() if u.get("decidable")]
    entry = number(sum(decided) / len(decided) if decided else None,
                   f"no subject has ≥ {MIN_STATEMENTS} answered statements on each of E/I, N/S, T/F and J/P, so no "
                   "letter can be decided (ask more statements than --limit-statements allows)",
                   n=len(decided), of=len(uncertainty), unit="subjects")
    if decided:
        entry["note"] = (f"mean over {len(decided)} subject{'' if len(decided) == 1 else 's'} of the letters (of 4) whose 95 % CI over statements "
                         "lies on one side of 50")
    return entry
