"""Repeated testings: the same respondent given the same inventory several times (answer rows with an
``administration`` number: Mei et al.'s 30 sessions of a model without a persona; PersonaLLM's 10 iterations of each
persona type). The inventory report's ``testings`` block, and the human norm beside a model (``human``).

A **unit** is what is tested repeatedly: the rows' ``persona_type`` when set (PersonaLLM: one of 32 types), else the
model itself (every sheet one unit). A **testing** is one ``administration`` of a unit; its domain score is the sheet's
(``scoring.scale_scores``: the mean keyed answer over the domain's valid answers).

- ``mean`` (per domain): the mean over units of the mean over the unit's testings of its domain score, with its 95 %
  CI resampling units (several) or testings (one unit): ``mean_lo``, ``mean_hi``, ``mean_ci_unit`` (``mean_ci``);
- ``sd`` (per domain): the mean over units of the sample SD (ddof = 1) over the unit's testings of its domain score:
  how far one testing's score strays from another's (one unit: simply the SD across testings);
- ``icc`` (overall and per domain): test–retest agreement of the item answers, ICC(2,1) (Shrout & Fleiss 1979;
  two-way random, absolute agreement, single testing; ``analysis.reliability.icc2`` → ``pingouin.intraclass_corr``)
  with targets = (unit, item) pairs, raters = testings (by administration number), ratings = keyed answers, over the
  targets answered validly in every testing. 1 = every testing gives every item the same answer;
- ``profile_r``: the mean over every pair of testings of one unit of the Pearson r of their keyed answers over the
  inventory's items (``DataFrame.corr``, pairwise complete); a pair where one testing gives every item the same keyed
  answer has no r and is left out (``profile_r_pairs`` says how many pairs count, of ``n_pairs``).

Each number is null with its reason where undefined.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.inventory.human_norm import percentile
from analysis.methods.inventory.scoring import Sheets, persona_scores, scale_scores
from analysis.reliability import icc2
from analysis.stats import percentile_ci, resample_indices

NO_UNIT = "(the model, no persona)"


def _val(x: float | None) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def units_of(answers: pd.DataFrame) -> pd.DataFrame:
    """One row per persona (sheet owner): its ``unit`` and ``administration`` (NaN when the rows have none)."""
    first = answers.drop_duplicates("persona_id").set_index("persona_id")
    unit = first["persona_type"] if "persona_type" in first else pd.Series(None, index=first.index, dtype=object)
    admin = pd.to_numeric(first["administration"], errors="coerce") if "administration" in first else \
        pd.Series(np.nan, index=first.index)
    return pd.DataFrame({"unit": unit.where(unit.notna(), NO_UNIT).astype(str), "administration": admin})


def repeated(units: pd.DataFrame) -> bool:
    """Whether some unit was tested at least twice (two administrations)."""
    counts = units.dropna(subset=["administration"]).groupby("unit")["administration"].nunique()
    return bool((counts >= 2).any())


def item_table(s: Sheets, units: pd.DataFrame, items: np.ndarray) -> pd.DataFrame:
    """(unit, item) × administration: the keyed answers of the first option order (NaN = no valid answer)."""
    rows = []
    for p, pid in enumerate(s.personas):
        unit, admin = units.loc[pid, "unit"], units.loc[pid, "administration"]
        if not np.isfinite(admin):
            continue
        for i in np.flatnonzero(items):
            rows.append((unit, s.items[i], int(admin), s.X[p, 0, i]))
    long = pd.DataFrame(rows, columns=["unit", "item", "administration", "keyed"])
    return long.pivot_table(index=["unit", "item"], columns="administration", values="keyed", aggfunc="first")


def icc_entry(table: pd.DataFrame) -> tuple[float | None, str | None]:
    """ICC(2,1) of a (unit, item) × testing table (module docstring), or why undefined."""
    complete = table.dropna()
    if table.shape[1] < 2:
        return None, "needs ≥ 2 testings"
    if len(complete) < 3:
        return None, f"needs ≥ 3 items answered validly in every testing, has {len(complete)}"
    if complete.to_numpy().std() == 0:
        return None, "every testing gives every item the same answer (no variance: agreement is undefined)"
    value = _val(icc2(complete))
    return value, None if value is not None else "the ICC could not be computed"


def profile_r(table: pd.DataFrame) -> dict[str, Any]:
    """Mean pairwise Pearson r of testings' keyed answers within each unit (module docstring)."""
    rs, pairs = [], 0
    for _, block in table.groupby(level="unit"):
        R = block.astype(float).corr()
        for a, b in combinations(R.columns, 2):
            pairs += 1
            if np.isfinite(R.loc[a, b]):
                rs.append(float(R.loc[a, b]))
    out = {"profile_r": float(np.mean(rs)) if rs else None, "profile_r_pairs": len(rs), "n_pairs": pairs}
    if not rs:
        out["profile_r_reason"] = "no pair of testings where both vary across items"
    return out


#: Resamples behind a testings mean's CI.
N_BOOT = 2000


def mean_ci(frame: pd.DataFrame, per_unit: pd.DataFrame) -> dict[str, Any]:
    """The 95 % percentile CI of a domain's ``mean`` (Efron & Tibshirani 1993, ch. 13; 2,000 resamples, seed 0): with
    several units their means are resampled (a unit's testings are repeats of one prompt, not independent units),
    with one unit its testings (Mei et al.'s 30 sessions of one model); ``mean_ci_unit`` names what was resampled."""
    if len(per_unit) >= 2:
        values, noun = per_unit["mean"].to_numpy(float), f"{len(per_unit)} units (each with its testings)"
    else:
        values, noun = frame["score"].to_numpy(float), f"{len(frame)} testings"
    if len(values) < 2:
        return {"mean_ci_reason": "needs ≥ 2 testings to resample"}
    idx = resample_indices(len(values), N_BOOT, 0)
    ci = percentile_ci(float(values.mean()), values[idx].mean(axis=1))
    return {"mean_lo": _val(ci.lo), "mean_hi": _val(ci.hi), "mean_ci_unit": f"bootstrap over {noun}"}


def domain_spread(s: Sheets, units: pd.DataFrame, domain: str) -> dict[str, Any]:
    """``mean`` and ``sd`` across testings of one domain's score (module docstring)."""
    score = persona_scores(scale_scores(s))[domain]
    frame = pd.DataFrame({"unit": units.loc[s.personas, "unit"].to_numpy(), "score": score}).dropna()
    per_unit = frame.groupby("unit")["score"].agg(["mean", "std", "count"])
    sds = per_unit.loc[per_unit["count"] >= 2, "std"].dropna()
    out: dict[str, Any] = {"mean": _val(float(per_unit["mean"].mean())) if len(per_unit) else None,
                           "sd": _val(float(sds.mean())) if len(sds) else None}
    if out["mean"] is None:
        out["mean_reason"] = "no testing has a score on this domain"
    else:
        out |= mean_ci(frame, per_unit)
    if out["sd"] is None:
        out["sd_reason"] = "needs a unit scored in ≥ 2 testings"
    return out


def testings_doc(s: Sheets, answers: pd.DataFrame) -> dict[str, Any] | None:
    """The ``testings`` block of one inventory (module docstring), None when no unit was tested twice."""
    units = units_of(answers)
    if not repeated(units):
        return None
    tested = units.dropna(subset=["administration"])
    everything = item_table(s, units, np.array([d is not None for d in s.domain]))
    icc, why = icc_entry(everything)
    doc: dict[str, Any] = {
        "unit": "persona type" if (tested["unit"] != NO_UNIT).any() else "the model (no persona)",
        "n_units": int(tested["unit"].nunique()),
        "n_testings": int(tested.groupby("unit")["administration"].nunique().max()),
        "icc": icc, **({"icc_reason": why} if why else {}), **profile_r(everything), "domains": {}}
    for d in s.domains:
        d_icc, d_why = icc_entry(item_table(s, units, s.domain == d))
        doc["domains"][d] = domain_spread(s, units, d) | {"icc": d_icc, **({"icc_reason": d_why} if d_why else {})}
    return doc


def human_doc(norm: dict[str, Any], domains: dict[str, Any]) -> dict[str, Any]:
    """The human row beside a model: per domain the people's α, ω, mean, SD and n (``human_norm``), and the model's
    mean domain score with its percentile among the people's scores (``human_norm.percentile``)."""
    out = {"source": norm.get("source"), "n_people": norm.get("n_people"), "missing": norm.get("missing"),
           "unit": norm.get("unit"), "domains": {}}
    for d, entry in (norm.get("domains") or {}).items():
        score = (domains.get(d) or {}).get("score")
        pct = percentile(entry.get("distribution") or {}, score) if score is not None else None
        out["domains"][d] = {k: entry.get(k) for k in ("n", "alpha", "omega", "mean", "sd")} | {
            "model_score": score, "model_percentile": pct,
            **({} if pct is not None else {"model_percentile_reason": "the model has no score on this domain"})}
    return out
