"""Internal consistency of each value's items per context: Cronbach's α and McDonald's ω_t.

As the Stick to Your Role! reference computes α (``visualization_scripts/data_analysis.py``,
``compute_cronbach_alpha``): per value, ``pingouin.cronbach_alpha`` over personas of the value's items, on
*centred* item answers (each persona's answers minus that persona's mean over all items of the instrument, the
reference's ``per_part_normalized_scores``); the context's α is the mean over values. ω_t
(``analysis.reliability.omega_total``) is computed on the same centred answers so the two are comparable.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis import reliability
from analysis.values import VALUES


def centred(matrix: pd.DataFrame) -> pd.DataFrame:
    """persona × item scores minus each persona's mean over all items answered (NaN kept)."""
    return matrix.sub(matrix.mean(axis=1), axis=0)


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
        reason = reliability.why_undefined(frame)
        alpha = reliability.cronbach_alpha(frame)
        omega = reliability.omega_total(frame)
        if np.isfinite(alpha) and not np.isfinite(omega) and reason is None:
            reason = "ω needs ≥ 3 items" if len(items) < 3 else "ω undefined"
        out[value] = {"alpha": alpha if np.isfinite(alpha) else None, "omega": omega if np.isfinite(omega) else None,
                      "n_items": len(items), "reason": reason}

    def mean(key: str) -> float | None:
        xs = [v[key] for v in out.values() if v[key] is not None]
        return float(np.mean(xs)) if xs and len(xs) == len(out) else None  # a mean over some values only would mislead

    return {"values": out, "alpha_mean": mean("alpha"), "omega_mean": mean("omega")}
