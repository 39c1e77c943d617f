"""The units an inventory's statistics stand on (issue 57: each statistic on the unit the design samples).

- **Persona type**: the personas given the same shaping targets (``Sheets.targets``): PersonaLLM's 32 extreme types
  (every domain high or low); in a single-trait design (RoleScope's: one target domain per persona) the personas at
  one shaping level of the domain, those shaped on another domain counting as unshaped on it. Shaping creates variance
  *between* types on purpose, so α, ω and λ6 pooled over types measure how well the shaping worked as much as how
  consistent the inventory is. In a shaped design they are computed **within** each type and summarised by their
  median and range over the types where they are defined (``within_types``); the pooled coefficient is kept only as
  "between-type", labelled as inflated by shaping. Unshaped persona sets (one type) keep the pooled coefficient.
- **Design unit**: what is sampled independently. Repeats of the same prompt (``Sheets.units``: PersonaLLM's 10
  temperature-0.7 iterations of a type) are one unit, otherwise each persona is one. The shaping effect d is computed
  on the units' mean scores, and every CI over personas resamples units (``unit_indices``), stratified by the design's
  fixed cells (the target level), so that a resample keeps the design's high and low groups.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.inventory.scoring import Sheets

UNSHAPED = "(unshaped)"


def typed_design(s: Sheets) -> bool:
    """Whether personas carry targets on several domains at once (PersonaLLM's types), rather than one domain each (a
    single-trait design) or none."""
    return any(len(t) > 1 for t in s.targets)


def persona_types(s: Sheets, domain: str) -> list[str]:
    """Each persona's type for ``domain``'s reliability: in a typed design its whole target set (a canonical string),
    in a single-trait design its level on ``domain`` (a persona shaped on another domain is unshaped on this one);
    ``UNSHAPED`` without a target."""
    if typed_design(s):
        return [json.dumps(t, sort_keys=True) if t else UNSHAPED for t in s.targets]
    return [str(t[domain]) if domain in t else UNSHAPED for t in s.targets]


def grouping(s: Sheets) -> str:
    """What a reliability's groups are called: "persona type" or "shaping level"."""
    return "persona type" if typed_design(s) else "shaping level"


def shaped_types(s: Sheets, domain: str) -> bool:
    """Whether ``domain``'s personas fall into more than one type (so its pooled reliability is between-type)."""
    return len(set(persona_types(s, domain))) > 1


def units(s: Sheets) -> list[str]:
    """Each persona's design unit (``Sheets.units``, else the persona itself)."""
    return list(s.units) if s.units is not None else list(s.personas)


def repeated_units(s: Sheets) -> bool:
    """Whether some unit holds more than one persona (repeats of one prompt)."""
    return s.units is not None and len(set(s.units)) < len(s.units)


def unit_means(s: Sheets, values: np.ndarray, levels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per unit with a finite value: (its mean value over its personas, its target level, how many personas count).

    A unit's personas share their prompt, so they share the level; the first finite one is taken."""
    if s.units is None:  # every persona its own unit
        ok = np.isfinite(values)
        return values[ok].astype(float), levels[ok].astype(float), np.ones(int(ok.sum()), dtype=int)
    frame = pd.DataFrame({"unit": units(s), "value": values, "level": levels})
    frame = frame[np.isfinite(frame["value"].to_numpy(float))]
    grouped = frame.groupby("unit", sort=False).agg(value=("value", "mean"), level=("level", "first"),
                                                    n=("value", "size"))
    return grouped["value"].to_numpy(float), grouped["level"].to_numpy(float), grouped["n"].to_numpy(int)


def within_types(s: Sheets, domain: str, statistic: Callable[[list[int]], tuple[float, str | None]]) -> dict[str, Any]:
    """``statistic`` (positions of one type's personas → (value, why undefined)) per type, summarised:
    ``{"median", "min", "max", "n_types" (defined), "of_types", "by_type": {type: value}, "reason"}`` (median etc.
    null with the first type's reason when no type has a defined value)."""
    types = persona_types(s, domain)
    by_type: dict[str, float | None] = {}
    reasons: list[str] = []
    for t in dict.fromkeys(types):
        value, why = statistic([p for p, u in enumerate(types) if u == t])
        by_type[t] = float(value) if np.isfinite(value) else None
        if by_type[t] is None:
            reasons.append(why or "undefined")
    defined = np.array([v for v in by_type.values() if v is not None], dtype=float)
    summary: dict[str, Any] = {"n_types": int(defined.size), "of_types": len(by_type), "by_type": by_type}
    if defined.size:
        summary |= {"median": float(np.median(defined)), "min": float(defined.min()), "max": float(defined.max()),
                    "reason": None}
    else:
        summary |= {"median": None, "min": None, "max": None,
                    "reason": f"undefined within every type: {reasons[0]}" if reasons else "no persona type"}
    return summary


def unit_indices(strata: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """``(n_boot, n)`` positions of a stratified bootstrap: each stratum's positions drawn with replacement within the
    stratum (as many as it holds), by ``numpy.random.default_rng(seed)``; column j of a row stays in j's stratum."""
    rng = np.random.default_rng(seed)
    strata = np.asarray(strata)
    out = np.empty((n_boot, len(strata)), dtype=int)
    for value in pd.unique(strata):
        where = np.flatnonzero(strata == value)
        out[:, where] = where[rng.integers(0, len(where), size=(n_boot, len(where)))]
    return out
