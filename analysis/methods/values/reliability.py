"""Internal consistency of each value's items per context: Cronbach's α and McDonald's ω_t.

As the Stick to Your Role! reference computes α (``visualization_scripts/data_analysis.py``,
``compute_cronbach_alpha``): per value, ``pingouin.cronbach_alpha`` over personas of the value's items, on
*centred* item answers (each persona's answers minus that persona's mean over all items of the instrument, the
reference's ``per_part_normalized_scores``); the context's α is the mean over values. Neither is reported on fewer
than ``MIN_PERSONAS`` personas (the reason says so). ω_t
(``analysis.reliability.omega_total``: pairwise-complete correlations, as psych) is computed on the same centred answers
so the two are comparable.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis import reliability
from analysis.methods.values import VALUES
from analysis.methods.values.scores import ITEM_STAGES


#: Fewest personas (answering every item of a value) its α and ω are reported on. Source: Bonett's (2002, "Sample
#: size requirements for testing and estimating coefficient alpha", Journal of Educational and Behavioral Statistics
#: 27(4), 335–340) sample size to tell an α of .70 from 0 (two-sided 5 %, power 80 %):
#: n = 2k/(k − 1) · (z.975 + z.80)² / ln²(1/(1 − .70)) + 2 = 23.7 for k = 2 items, the most it asks of any value
#: (fewer for more items); Bujang, Omar & Baharum (2018, Malaysian Journal of Medical Sciences 25(6), 85–99) tabulate
#: that test's sizes as under 30. On fewer personas even a reliable-looking value's α is not distinguishable from none.
MIN_PERSONAS = 24


def too_few_personas(n: int) -> str:
    """The reason a value's α and ω over ``n`` personas are not reported ("" when n ≥ ``MIN_PERSONAS``)."""
    return f"needs ≥ {MIN_PERSONAS} personas answering every item of the value, has {n}" if n < MIN_PERSONAS else ""


def centred(matrix: pd.DataFrame) -> pd.DataFrame:
    """persona × item scores minus each persona's mean over all items answered (NaN kept)."""
    return matrix.sub(matrix.mean(axis=1), axis=0)


def sample_retest(answers: pd.DataFrame) -> dict[str, Any]:
    """Test–retest of repeated answers (``--samples`` > 1) in one model × context: the Pearson r between the scores
    of two samples of the same (persona, item), over the pairs valid in both, averaged over pairs of samples
    (``analysis.reliability.test_retest``). None with a reason when there is one sample only."""
    from itertools import combinations

    valid = answers[(pd.to_numeric(answers["valid"], errors="coerce") == 1) & answers["stage"].isin(ITEM_STAGES)]
    wide = valid.pivot_table(index=["persona_id", "item_id"], columns="sample", values="score", aggfunc="mean")
    if wide.shape[1] < 2:
        return {"test_retest": None, "reason": "one sample per item (run with --samples 2 or more)"}
    rs = [reliability.test_retest(wide[a], wide[b]) for a, b in combinations(wide.columns, 2)]
    rs = [r for r in rs if np.isfinite(r)]
    return {"test_retest": float(np.mean(rs)) if rs else None, "n_samples": int(wide.shape[1]),
            "reason": None if rs else "fewer than 3 answers valid in two samples"}


def value_reliability(matrix: pd.DataFrame, item_values: dict[str, str | None]) -> dict[str, Any]:
    """``{"values": {value: {alpha, omega, n_items, reason}}, "alpha_mean", "omega_mean"}`` of one model × context
    (``matrix`` from ``scores.item_matrix``); undefined numbers are None with the reason."""
    data = centred(matrix)
    out: dict[str, Any] = {}
    for value in VALUES:
        items = [c for c in matrix.columns if item_values.get(str(c)) == value]
        if not items:
            continue
        frame = data[items]
        few = too_few_personas(int(frame.notna().all(axis=1).sum()))
        alpha = float("nan") if few else reliability.cronbach_alpha(frame)
        omega = float("nan") if few else reliability.omega_total(frame)
        reason = few or reliability.why_alpha_undefined(frame)
        if reason is None and not np.isfinite(omega):  # α defined, ω not (ω needs 3 items, each with variance)
            reason = "ω: " + (reliability.why_pairwise_undefined(frame, min_items=3) or "undefined")
        out[value] = {"alpha": alpha if np.isfinite(alpha) else None, "omega": omega if np.isfinite(omega) else None,
                      "n_items": len(items), "reason": reason}

    def mean(key: str) -> float | None:
        xs = [v[key] for v in out.values() if v[key] is not None]
        return float(np.mean(xs)) if xs and len(xs) == len(out) else None  # a mean over some values only would mislead

    return {"values": out, "alpha_mean": mean("alpha"), "omega_mean": mean("omega")}
