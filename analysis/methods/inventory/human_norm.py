"""A human norm for an inventory's domains, computed at import time from people's per-item answers and stored
compactly in the imported run's plan (``plan["human_norm"]``): no answer row of a person is stored.

Per domain, over the people who answered **every** item of the domain (listwise deletion per domain; an answer
outside 1..k, such as the 0 that the Open Psychometrics IPIP-50 data set writes for an unanswered item, is missing):

- ``alpha``: Cronbach's α of the keyed item answers (``analysis.reliability.cronbach_alpha``, as
  ``pingouin.cronbach_alpha`` computes it; on complete rows its pairwise deletion deletes nothing);
- ``omega``: McDonald's ω_t, one factor (minres), the key imposed (``analysis.reliability.omega_fit(flip=False)``,
  ``psych::omega(x, nfactors = 1, flip = FALSE)$omega.tot``);
- ``mean``, ``sd`` (ddof = 1) of the domain score = the mean keyed answer over its items (the scale the inventory
  report scores models on, 1..k);
- ``distribution``: every distinct domain score with how many people have it (the score of n items takes at most
  n·(k − 1) + 1 values: 41 for 10 five-point items), so a percentile is exact, not interpolated between quantiles.

``percentile(norm, x)`` = 100 · (#people with score < x + ½ · #people with score = x) / #people, the mid-rank
percentile (``scipy.stats.percentileofscore(kind="mean")``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from analysis.reliability import cronbach_alpha, omega_fit


def keyed_frame(answers: pd.DataFrame, items: Sequence[tuple[str, bool]], n_options: int) -> pd.DataFrame:
    """People × ``items`` ((column, reversed)): answers outside 1..k made NaN (missing), reversed items
    (k + 1) − answer."""
    cols = {}
    for column, reverse in items:
        x = pd.to_numeric(answers[column], errors="coerce").astype(float)
        x = x.where((x >= 1) & (x <= n_options))
        cols[column] = n_options + 1 - x if reverse else x
    return pd.DataFrame(cols)


def domain_norm(keyed: pd.DataFrame) -> dict[str, Any]:
    """One domain's norm entry (module docstring) from people × its keyed items (NaN = missing)."""
    complete = keyed.dropna()
    scores = complete.mean(axis=1)
    omega, _ = omega_fit(complete, flip=False)
    counts = scores.round(9).value_counts().sort_index()
    return {"n": int(len(complete)), "n_missing": int(len(keyed) - len(complete)),
            "alpha": _finite(cronbach_alpha(complete)), "omega": _finite(omega),
            "mean": _finite(float(scores.mean())), "sd": _finite(float(scores.std(ddof=1))),
            "distribution": {f"{v:.6g}": int(c) for v, c in counts.items()}}


def _finite(x: float) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def build_norm(answers: pd.DataFrame, keys: Mapping[str, Sequence[tuple[str, bool]]], n_options: int,
               source: str) -> dict[str, Any]:
    """``{"source", "n_rows", "n_people" (rows with at least one valid answer), "missing", "unit", "domains": {D:
    domain_norm}}`` of people's answers (one row each) and the inventory's key (domain -> [(column, reversed)])."""
    frames = {d: keyed_frame(answers, items, n_options) for d, items in keys.items()}
    answered = pd.concat(frames.values(), axis=1).notna().any(axis=1)
    return {"source": source, "n_rows": int(len(answers)), "n_people": int(answered.sum()),
            "missing": f"an answer outside 1..{n_options} (0 = unanswered) is missing; each domain uses the people who "
                       "answered all of its items",
            "unit": "α and ω: people as units, the domain's items as columns; the distribution: people's domain scores",
            "domains": {d: domain_norm(frame) for d, frame in frames.items()}}


def percentile(distribution: Mapping[str, int], x: float) -> float | None:
    """The mid-rank percentile of ``x`` among the norm's domain scores (module docstring); None without people or a
    finite ``x``."""
    from scipy.stats import percentileofscore

    if not distribution or x is None or not np.isfinite(x):
        return None
    values = np.repeat(np.array([float(v) for v in distribution], dtype=float),
                       np.array(list(distribution.values()), dtype=int))
    return float(percentileofscore(values, float(x), kind="mean"))
