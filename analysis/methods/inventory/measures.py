"""The inventory's numbers that the report shows and the chance draws recompute on null answers
(``analysis.methods.inventory.chance``): every per-domain statistic of one inventory (``statistics``) and the shared
personas' domain scores on two inventories (``aligned_scores``, MTMM's input). Formulas: ``scoring`` and
``psychometrics``."""

from __future__ import annotations

import numpy as np

from analysis.methods.inventory import psychometrics as pm
from analysis.methods.inventory.scoring import Sheets, persona_scores, scale_scores


def levels_of(s: Sheets, domain: str) -> np.ndarray:
    """Each persona's target level on ``domain`` (NaN where it has none): single-trait shaping gives one domain a
    level, a type design (PersonaLLM's) every domain."""
    return np.array([t.get(domain, np.nan) for t in s.targets], dtype=float)


def statistics(s: Sheets, X: np.ndarray | None = None, *, with_omega: bool = True) -> dict[str, tuple[float, str | None]]:
    """Every per-domain number of one inventory computed from keyed answers ``X`` (default the observed): the metrics
    the report shows and the chance draws re-compute on null answers. Keys ``metric/domain``."""
    X = s.X if X is None else X
    sheet = scale_scores(s, X=X)
    person = persona_scores(sheet)
    out: dict[str, tuple[float, str | None]] = {}
    for d in s.domains:
        frame = pm.domain_items(X, s.domain == d)
        out[f"alpha/{d}"] = pm.alpha(frame)
        out[f"lambda6/{d}"] = pm.lambda6(frame)
        if with_omega:
            out[f"omega/{d}"] = pm.omega(frame)
        if len(s.orders) == 2:
            out[f"test_retest/{d}"] = pm.pearson(sheet[d][:, 0], sheet[d][:, 1])
        else:
            out[f"test_retest/{d}"] = (float("nan"), "needs both option orders (--order both); this configuration has one")
        lv = levels_of(s, d)
        if np.isfinite(lv).any():
            shaped = pm.shaping(lv, person, d)
            out[f"shaping/{d}"], out[f"drift/{d}"] = shaped["rho"], shaped["drift"]
            out[f"shaping_d/{d}"] = pm.shaping_d(lv, person[d])
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
