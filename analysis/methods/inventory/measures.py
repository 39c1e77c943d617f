"""The inventory's numbers that the report shows and the chance draws recompute on null answers
(``analysis.methods.inventory.chance``): every per-domain statistic of one inventory (``statistics``) and the shared
personas' domain scores on two inventories (``aligned_scores``, MTMM's input). Formulas: ``scoring`` and
``psychometrics``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.methods.inventory import psychometrics as pm
from analysis.methods.inventory.design import persona_types, shaped_types, unit_means, within_types
from analysis.methods.inventory.scoring import Sheets, persona_scores, scale_scores


def levels_of(s: Sheets, domain: str) -> np.ndarray:
    """Each persona's target level on ``domain`` (NaN where it has none): single-trait shaping gives one domain a
    level, a type design (PersonaLLM's) every domain."""
    return np.array([t.get(domain, np.nan) for t in s.targets], dtype=float)


RELIABILITY = {"alpha": pm.alpha, "lambda6": pm.lambda6, "omega": pm.omega}


def reliability(s: Sheets, X: np.ndarray, domain: str, metric: str) -> tuple[float, str | None, dict | None]:
    """(value, why undefined, within-type summary) of one reliability ``metric`` of ``domain`` on the design's unit
    (``design``): in a shaped design the median over persona types of the coefficient within each type (the summary
    of ``design.within_types``), else the coefficient over every sheet (summary None)."""
    mask = s.domain == domain
    fn = RELIABILITY[metric]
    if not shaped_types(s, domain):
        value, why = fn(pm.domain_items(X, mask))
        return value, why, None
    within = within_types(s, domain, lambda rows: fn(pm.domain_items(X[rows], mask)))
    pooled, why = fn(type_centred(s, X, domain))
    within |= {"pooled": float(pooled) if np.isfinite(pooled) else None, "pooled_reason": why}
    value = within["median"] if within["median"] is not None else float("nan")
    return value, within["reason"], within


def type_centred(s: Sheets, X: np.ndarray, domain: str) -> pd.DataFrame:
    """A domain's sheets × items with each item's mean within the sheet's persona type subtracted: the coefficient of
    this frame is the pooled within-type one (the item covariances pooled over types, between-type variance
    removed)."""
    frame = pm.domain_items(X, s.domain == domain)
    types = np.repeat(persona_types(s, domain), X.shape[1])
    return frame - frame.groupby(types).transform("mean")


def statistics(s: Sheets, X: np.ndarray | None = None, *, with_omega: bool = True,
               within: dict[str, dict] | None = None) -> dict[str, tuple[float, str | None]]:
    """Every per-domain number of one inventory computed from keyed answers ``X`` (default the observed): the metrics
    the report shows and the chance draws re-compute on null answers. Keys ``metric/domain``; α, λ6 and ω on the
    design's unit (``reliability``), in a shaped design also the pooled ``alpha_between/…``, ``lambda6_between/…``
    (inflated by shaping); the shaping d on the design's units' means (``shaping``). ``within``, when given, receives
    each shaped domain's within-type summaries (``reliability``) under the same keys."""
    X = s.X if X is None else X
    sheet = scale_scores(s, X=X)
    person = persona_scores(sheet)
    out: dict[str, tuple[float, str | None]] = {}
    for d in s.domains:
        typed = shaped_types(s, d)
        frame = pm.domain_items(X, s.domain == d)
        for metric in ("alpha", "lambda6", "omega") if with_omega else ("alpha", "lambda6"):
            value, why, summary = reliability(s, X, d, metric)
            out[f"{metric}/{d}"] = (value, why)
            if within is not None and summary is not None:
                within[f"{metric}/{d}"] = summary
            if typed and metric != "omega":
                out[f"{metric}_between/{d}"] = RELIABILITY[metric](frame)
        if len(s.orders) == 2:
            out[f"test_retest/{d}"] = pm.pearson(sheet[d][:, 0], sheet[d][:, 1])
        else:
            out[f"test_retest/{d}"] = (float("nan"), "needs both option orders (--order both); this configuration has one")
        lv = levels_of(s, d)
        if np.isfinite(lv).any():
            shaped = pm.shaping(lv, person, d)
            out[f"shaping/{d}"], out[f"drift/{d}"] = shaped["rho"], shaped["drift"]
            unit_score, unit_level, _ = unit_means(s, person[d], lv)
            out[f"shaping_d/{d}"] = pm.shaping_d(unit_level, unit_score)
        else:
            why = "no persona was shaped on this domain" if any(s.targets) else "no persona was shaped (--shaping none)"
            out[f"shaping/{d}"] = out[f"drift/{d}"] = out[f"shaping_d/{d}"] = (float("nan"), why)
    for metric in ("shaping", "alpha"):
        vals = [v for k, (v, _) in out.items() if k.startswith(metric + "/") and np.isfinite(v)]
        first_reason = next((w for k, (v, w) in out.items() if k.startswith(metric + "/") and w), "undefined")
        out[metric] = (float(np.mean(vals)), None) if vals else (float("nan"), first_reason)
    return out


def aligned_scores(arrays: dict[str, Sheets], names: list[str], shared: list[str],
                   answers: dict[str, np.ndarray] | None = None,
                   order: dict[str, list[int]] | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Per inventory, per domain: the shared personas' scores, in the order of ``shared`` (``answers``: other keyed
    answers per inventory; ``order``: other persona positions per inventory, a null's shuffle)."""
    out = {}
    for n in names:
        person = persona_scores(scale_scores(arrays[n], X=(answers or {}).get(n)))
        index = (order or {}).get(n) or [arrays[n].personas.index(p) for p in shared]
        out[n] = {d: v[index] for d, v in person.items()}
    return out
