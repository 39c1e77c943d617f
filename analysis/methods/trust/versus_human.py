"""Amounts sent against the human baseline, and a condition's shift from the base condition (pure functions).

**Trust: sent − human ($)** (headline ``trust_vs_human``). A model's personas i = 1..n sent x_i of an endowment E;
on a $10 scale (Berg et al.'s endowment) y_i = 10 · x_i / E (the same amounts when E = 10; a run at another endowment
is scaled and says so). With the human amounts h_j (j = 1..32, ``human.BERG_1995``)::

    d = mean_i y_i − mean_j h_j          ($ of a $10 endowment; > 0: the model sends more than the humans did)

95 % CI: percentile bootstrap (Efron & Tibshirani 1993, ch. 13) of d* = mean(y*) − mean(h*), the personas and the 32
humans resampled **independently** (two samples: nothing pairs a persona with a human), each with replacement, the
personas with ``analysis.stats.resample_indices(n, B, seed)`` and the humans with ``resample_indices(32, B, seed + 1)``.
Unit of the CI: "personas; humans".

**Shift from the base condition** (imported conditions of agent-trust: COT, LLM player, more/less trust, sex, race):
over the personas P with a valid amount in both the condition c and the base condition (both on the $10 scale)::

    Δ_c = (1/|P|) Σ_{i∈P} (y_{c,i} − y_{base,i})

95 % CI: paired percentile bootstrap over the personas of P (``analysis.stats.bootstrap_counts``, seeded), undefined
with fewer than ``MIN_PAIRED_UNITS`` (5) shared personas.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.base import number, too_few_units, unread_bound
from analysis.methods.trust.human import BERG_1995, HumanBaseline
from analysis.stats import CI, bootstrap_counts, json_number, percentile_ci, resample_indices

#: The scale every amount is put on: Berg et al.'s $10 endowment.
SCALE = 10
CI_UNITS = "personas; humans"
UNIT = "$ of a $10 endowment"


def scaled_to_ten(amounts: Sequence[float] | np.ndarray | pd.Series, endowment: float) -> np.ndarray:
    """y = 10 · x / E: amounts sent of an endowment E on the $10 scale."""
    if not endowment or endowment <= 0:
        raise ValueError(f"endowment {endowment}: must be > 0")
    return np.asarray(amounts, dtype=float) * (SCALE / float(endowment))


def difference_from_human(amounts: Sequence[float] | np.ndarray, endowment: float, *, n_boot: int, seed: int = 0,
                          baseline: HumanBaseline = BERG_1995) -> CI:
    """d = mean(10·x/E) − human mean, with its 95 % bootstrap CI over personas and humans resampled independently
    (see the module docstring). No amount: all NaN; ``n_boot`` = 0: NaN bounds."""
    y = scaled_to_ten(amounts, endowment)
    nan = float("nan")
    if y.size == 0:
        return CI(nan, nan, nan)
    estimate = float(y.mean()) - baseline.point_mean()
    if n_boot <= 0:
        return CI(estimate, nan, nan)
    h = baseline.amounts()
    model = y[resample_indices(y.size, n_boot, seed)].mean(axis=1)
    human = h[resample_indices(h.size, n_boot, seed + 1)].mean(axis=1)
    return percentile_ci(estimate, model - human)


def paired_shift(base: pd.Series, other: pd.Series, *, n_boot: int, seed: int = 0) -> tuple[CI, int]:
    """Δ = mean over the shared personas of (other − base), and its paired 95 % bootstrap CI over those personas;
    ``base`` and ``other``: amount ($10 scale) per persona id, valid amounts only. Returns (CI, shared personas)."""
    both = pd.concat([base.rename("base"), other.rename("other")], axis=1, join="inner").dropna()
    d = (both["other"] - both["base"]).to_numpy(dtype=float)
    if d.size == 0:
        nan = float("nan")
        return CI(nan, nan, nan), 0
    if n_boot <= 0 or too_few_units(d.size, "personas"):
        return CI(float(d.mean()), float("nan"), float("nan")), int(d.size)
    ci = bootstrap_counts(lambda w: (w @ d) / w.sum(axis=1), d.size, n_boot=n_boot, seed=seed)
    return ci, int(d.size)


def _interval(ci: CI) -> dict[str, float | None]:
    return {"lo": json_number(ci.lo), "hi": json_number(ci.hi)}


def vs_human_entry(amounts: Sequence[float], n: int, endowment: int, what: str, *, n_boot: int, seed: int = 0,
                   baseline: HumanBaseline = BERG_1995) -> dict[str, Any]:
    """The ``trust_vs_human`` headline entry: ``number(d)`` over the ``len(amounts)`` valid of ``n`` personas, with
    ``ci`` ({"lo", "hi"}), ``ci_units``, ``unit``, both means, the endowment (and whether amounts were scaled), the
    source and a ``note`` saying what the number is of (``what``: "base condition of agent-trust")."""
    ci = difference_from_human(amounts, endowment, n_boot=n_boot, seed=seed, baseline=baseline)
    valid = len(amounts)
    scaled = endowment != SCALE
    model_mean = float(np.mean(scaled_to_ten(amounts, endowment))) if valid else None
    reason = (f"no valid amount sent in the {what} ({n} personas played, none with an amount in [0, ${endowment}])"
              if n else f"no single-round game in the {what}")
    note = (f"{what}: mean ${model_mean:.2f} over {valid} personas − human ${baseline.point_mean():.2f} "
            f"({baseline.n} senders, Berg et al. 1995)" + (f"; amounts of a ${endowment} endowment scaled to $10"
                                                             if scaled else "")
            + "; 95 % CI: personas and humans resampled independently") if valid else None
    mean_bound = unread_bound(scaled_to_ten(amounts, endowment) if valid else [], n, 0.0, SCALE)
    bound = None if mean_bound is None else (mean_bound[0] - baseline.point_mean(), mean_bound[1] - baseline.point_mean())
    entry = number(ci.estimate, reason, n=valid, of=n, unit="personas", read=True, bound=bound,
                   bound_note=f"every unread reply at $0 … at ${SCALE:g}")
    return entry | {"ci": _interval(ci) if valid else None, "ci_units": CI_UNITS, "unit": UNIT,
                    "model_mean": json_number(model_mean), "human_mean": json_number(baseline.point_mean()),
                    "n_humans": baseline.n, "endowment": endowment, "scaled": scaled, "source": baseline.citation(),
                    "baseline_note": baseline.note(), **({"note": note} if note else {})}


def shift_entry(base: pd.Series, other: pd.Series, base_configuration: str, *, n_boot: int,
                seed: int = 0) -> dict[str, Any]:
    """An imported condition's ``shift_from_base``: ``mean`` (``number`` of Δ, $10 scale), ``ci`` [lo, hi],
    ``n_pairs`` (personas valid in both), ``ci_reason`` when the CI is undefined, and the base configuration's id."""
    ci, n_pairs = paired_shift(base, other, n_boot=n_boot, seed=seed)
    why_ci = too_few_units(n_pairs, "personas") or ("not bootstrapped (n_boot = 0)" if n_boot <= 0 else None)
    return {"mean": number(ci.estimate, "no persona has a valid amount in both this condition and the base condition"),
            "ci": [json_number(ci.lo), json_number(ci.hi)], "n_pairs": n_pairs, "unit": UNIT,
            "ci_reason": why_ci if n_pairs else None, "base_configuration": base_configuration}
