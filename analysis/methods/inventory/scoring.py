"""Scores from answers: one answer sheet is one persona in one option order; an item's keyed score is its option's
score (1..k), reversed ((k + 1) − score) for reverse-keyed items.

- domain (facet) score of a sheet: the mean keyed score of its valid answers to the domain's (facet's) items
  (IPIP-NEO's scale score divided by its item count, so inventories and short forms share the 1..k scale), when at
  least half of those items were answered validly (``MIN_ITEM_SHARE``), else none;
- a persona's score: the mean of its sheets' scores;
- norm percentiles (IPIP-NEO only, every item answered): ``five-factor-e``'s ``IpipNeo.compute`` on the sheet's raw
  answers with the persona's sex and age (Johnson's norms; the package reverses the keyed items itself);
- the human 25–75 % band of a domain: Johnson's norm mean ± 0.6745 SD (normal quartiles) of the domain's sum, from
  ``ipipneo.norm.Norm``, divided by the domain's item count.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from analysis.methods.inventory.inventory import IPIP
from analysis.stats import nanmean_last

QUARTILE_Z = 0.6744897501960817  # scipy.stats.norm.ppf(0.75)
#: five-factor-e's order of the domains in ``Norm(...)["ns"]``: means at 1..5, SDs at 6..10.
NORM_ORDER = ("N", "E", "O", "A", "C")
FULL_NAMES = {"openness": "O", "conscientiousness": "C", "extraversion": "E", "agreeableness": "A", "neuroticism": "N"}


@dataclass(frozen=True)
class Sheets:
    """The answers of one model to one inventory as arrays: ``X[p, o, i]`` keyed scores (NaN = no valid answer),
    ``raw[p, o, i]`` option scores before reversal, with the personas, orders and items they index."""

    personas: list[str]
    orders: list[str]
    items: list[str]
    domain: np.ndarray  # per item: its domain (None = unkeyed)
    facet: np.ndarray
    X: np.ndarray
    raw: np.ndarray
    number: np.ndarray  # the number given (1..k), NaN when invalid: the position chosen
    n_options: int
    targets: list[dict[str, int]]
    sex: list[str]
    age: list[int]
    #: Per persona, the design unit it repeats (``persona_type`` of its rows: PersonaLLM's 10 iterations of one of 32
    #: types are one unit); None: every persona is its own unit.
    units: list[str] | None = None

    @property
    def domains(self) -> list[str]:
        return list(dict.fromkeys(d for d in self.domain if d is not None))


def sheets(answers: pd.DataFrame, n_options: int) -> Sheets:
    """``Sheets`` of one model's answers to one inventory (rows of ``inventory_answers``)."""
    import json

    personas = list(dict.fromkeys(answers["persona_id"]))
    orders = [o for o in ("ascending", "descending") if (answers["order_mode"] == o).any()]
    first = answers.sort_values("seq", kind="stable").drop_duplicates("item_id")
    items = list(first["item_id"])
    domain = np.array([d if isinstance(d, str) and d else None for d in first["domain"]], dtype=object)
    facet = np.array([f if isinstance(f, str) and f else None for f in first["facet"]], dtype=object)
    shape = (len(personas), len(orders), len(items))
    X, raw, number = (np.full(shape, np.nan) for _ in range(3))
    valid = answers[answers["valid"] == 1]
    p, o, i = (valid[c].map({v: n for n, v in enumerate(keys)}).to_numpy().astype(int)
               for c, keys in (("persona_id", personas), ("order_mode", orders), ("item_id", items)))
    X[p, o, i] = pd.to_numeric(valid["keyed"]).to_numpy(float)
    raw[p, o, i] = pd.to_numeric(valid["score"]).to_numpy(float)
    number[p, o, i] = pd.to_numeric(valid["number"]).to_numpy(float)
    people = answers.drop_duplicates("persona_id").set_index("persona_id").loc[personas]
    targets = [json.loads(t) if isinstance(t, str) and t else {} for t in people["targets"]]
    types = people["persona_type"] if "persona_type" in people else pd.Series(None, index=people.index, dtype=object)
    units = [str(t) if isinstance(t, str) and t else str(p) for p, t in zip(personas, types)]
    return Sheets(personas, orders, items, domain, facet, X, raw, number, n_options, targets,
                  [s if s in ("M", "F") else "N" for s in people["sex"]],
                  [int(a) if pd.notna(a) else 30 for a in people["age"]],
                  units if len(set(units)) < len(units) else None)


#: A sheet's scale score needs valid answers to at least this share of the scale's items; below it the sheet has no
#: score for the scale (a Neuroticism "of 5.0" read from 1 of 12 items is not a Neuroticism score). The common
#: prorating rule of questionnaire scoring; RoleScope's choice, applied alike to observed and simulated answers.
MIN_ITEM_SHARE = 0.5


def scale_scores(s: Sheets, by: str = "domain", X: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Per domain (or facet): ``[p, o]`` mean keyed score of the sheet's valid answers; NaN when fewer than
    ``MIN_ITEM_SHARE`` of the scale's items were answered validly."""
    X = s.X if X is None else X
    keys = s.domain if by == "domain" else s.facet
    out = {}
    for key in dict.fromkeys(k for k in keys if k is not None):
        block = X[:, :, keys == key]
        enough = np.isfinite(block).sum(axis=-1) >= MIN_ITEM_SHARE * block.shape[-1]
        out[key] = np.where(enough, nanmean_last(block), np.nan)
    return out


def under_coverage(s: Sheets, by: str = "domain", scored: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Per domain (or facet): ``[p]`` whether the persona answered some of its items validly but no sheet reached
    ``MIN_ITEM_SHARE`` of them (so it is not scored on the scale). ``scored``: the persona scores when already
    computed (``persona_scores(scale_scores(s, by))``)."""
    keys = s.domain if by == "domain" else s.facet
    scored = persona_scores(scale_scores(s, by)) if scored is None else scored
    return {key: np.isfinite(s.X[:, :, keys == key]).any(axis=(1, 2)) & ~np.isfinite(scored[key])
            for key in dict.fromkeys(k for k in keys if k is not None)}


def persona_scores(sheet_scores: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per domain: each persona's mean over its sheets."""
    return {k: nanmean_last(v) for k, v in sheet_scores.items()}


def five_factor_percentiles(raw: dict[str, int], n: int, sex: str, age: int) -> dict[str, float]:
    """Domain and facet percentiles of one complete IPIP-NEO-``n`` sheet (item number -> option 1..5, unreversed),
    as five-factor-e computes them: ``{"O": pct, "O1": pct, …}``."""
    from ipipneo import IpipNeo

    result = IpipNeo(question=n).compute(sex=sex, age=age, answers={
        "answers": [{"id_question": int(q), "id_select": int(v)} for q, v in raw.items()]})
    out = {}
    for entry in result["person"]["result"]["personalities"]:
        (doc,) = entry.values()
        letter = next(k for k in doc if len(k) == 1)
        out[letter] = float(doc[letter])
        for trait in doc["traits"]:
            name = next(k for k in trait if k not in ("trait", "score"))
            out[f"{letter}{trait['trait']}"] = float(trait[name])
    return out


def sheet_percentiles(s: Sheets, inventory: str) -> tuple[dict[tuple[int, int], dict[str, float]], str | None]:
    """Percentiles of every complete sheet ((p, o) -> {domain or facet: pct}), or why there are none."""
    n = IPIP.get(inventory)
    if n is None:
        return {}, "no norms for this inventory (norms: IPIP-NEO-120 and -300 with every item)"
    if len(s.items) != n:
        return {}, f"norms need all {n} items; the run asked {len(s.items)}"
    out = {}
    for p in range(len(s.personas)):
        for o in range(len(s.orders)):
            row = s.raw[p, o]
            if np.isnan(row).any():
                continue
            out[(p, o)] = five_factor_percentiles(dict(zip(s.items, row.astype(int))), n, s.sex[p], s.age[p])
    return out, None if out else "no sheet has every item answered validly (norms need all of them)"


@cache
def norm_band(inventory: str, sex: str, age: int) -> dict[str, tuple[float, float]]:
    """Per domain: the human 25–75 % range of its mean item score (Johnson's norms for ``sex`` and ``age``)."""
    from ipipneo.model import QuestionNumber
    from ipipneo.norm import Norm

    n = IPIP[inventory]
    ns = Norm(sex=sex, age=int(age), nquestion=QuestionNumber.IPIP_120 if n == 120 else QuestionNumber.IPIP_300)["ns"]
    per_domain = n // 5
    return {d: ((ns[1 + k] - QUARTILE_Z * ns[6 + k]) / per_domain, (ns[1 + k] + QUARTILE_Z * ns[6 + k]) / per_domain)
            for k, d in enumerate(NORM_ORDER)}
