"""The report of imported published trust-game answers (``analysis.methods.trust.importer``): what such a source
supports, per model and configuration (one configuration per condition of the source).

- ``amount_sent``: of the ``n`` personas, the ``valid`` ones whose source-extracted amount is a finite number in
  [0, endowment]; over those, ``mean`` = Σx/valid and ``sd`` = sqrt(Σ(x − mean)²/(valid − 1)) (the sample SD, numpy's
  ``ddof=1``), each a ``number`` entry (null with the reason when undefined: no valid amount; fewer than two); and
  ``distribution``: count per dollar 0..endowment, an amount counting for the whole dollar below it ($7.50 -> 7;
  ``n_fractional`` says how many were not whole).
- ``amount_sent_reader``: the same over RoleScope's own reading of the replies (``trust-amount``: whole dollars only).
- ``reader_agreement``: each persona in one class — both valid and equal, both valid and different, only the source
  valid, only RoleScope's reader valid, both invalid — with its count and up to ``EXAMPLES`` persona ids.

The belief–behaviour headline is undefined for such a configuration (``NO_BELIEFS``): the source asked no beliefs
apart from the game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.base import number
from analysis.runs import comparable
from analysis.runs.store import Store
from analysis.methods.trust.tables import TRANSFERS

EXAMPLES = 5
AGREEMENT = ("both_equal", "both_different", "only_source", "only_reader", "both_invalid")
AGREEMENT_LABELS = {"both_equal": "both valid, equal", "both_different": "both valid, different",
                    "only_source": "only the source valid", "only_reader": "only RoleScope's reader valid",
                    "both_invalid": "both invalid"}
NO_BELIEFS = ("imported published answers ({source}, condition {condition}): the source elicited no beliefs apart from "
              "the game, so there is no belief–behaviour pair; its amounts sent are under 'imported'")
#: What an imported trust source supports, as the page says it.
SUPPORTS = ("amounts sent per condition (the source's extraction and RoleScope's reading of the replies); not "
            "belief–behaviour consistency (no beliefs elicited apart from the game); not forecasts (single-round play)")


def amount_summary(amounts: Sequence[float], n: int, endowment: int) -> dict[str, Any]:
    """``{n, valid, mean, sd, distribution, n_fractional}`` of the valid ``amounts`` among ``n`` answers (see the module
    docstring for the formulas)."""
    x = np.asarray([float(a) for a in amounts], dtype=float)
    mean = number(float(x.mean()) if x.size else None, "no valid amount")
    sd = number(float(x.std(ddof=1)) if x.size >= 2 else None, "fewer than two valid amounts")
    dollars = [int(math.floor(a)) for a in x]
    return {"n": int(n), "valid": int(x.size), "mean": mean, "sd": sd,
            "distribution": {str(d): dollars.count(d) for d in range(endowment + 1)},
            "n_fractional": int(sum(1 for a in x if not float(a).is_integer()))}


def _persona_order(ids: pd.Series) -> list[str]:
    return sorted(map(str, ids), key=lambda p: (0, int(p), p) if p.isdigit() else (1, 0, p))


def agreement_class(source_valid: bool, source: float | None, reader_valid: bool, reader: float | None) -> str:
    """One persona's ``AGREEMENT`` class."""
    if source_valid and reader_valid:
        return "both_equal" if float(source) == float(reader) else "both_different"  # type: ignore[arg-type]
    if source_valid:
        return "only_source"
    return "only_reader" if reader_valid else "both_invalid"


def reader_agreement(rows: pd.DataFrame) -> dict[str, Any]:
    """Per ``AGREEMENT`` class: ``{"n": count, "examples": [up to EXAMPLES persona ids]}`` over ``rows`` (one per
    persona, with source_valid, source_amount, valid, sent)."""
    classes = [agreement_class(bool(r.source_valid == 1), r.source_amount, bool(r.valid == 1), r.sent)
               for r in rows.itertuples(index=False)]
    frame = pd.DataFrame({"persona_id": rows["persona_id"].astype(str).to_numpy(), "cls": classes})
    out = {}
    for cls in AGREEMENT:
        ids = _persona_order(frame.loc[frame["cls"] == cls, "persona_id"])
        out[cls] = {"n": len(ids), "examples": ids[:EXAMPLES], "label": AGREEMENT_LABELS[cls]}
    return out


def configuration_entry(rows: pd.DataFrame, config: comparable.Configuration, used: bool) -> dict[str, Any]:
    """The ``imported`` entry of one configuration from its transfer rows (latest run per persona)."""
    sig = config.signature
    endowment = int(sig.get("endowment") or rows["endowment"].dropna().iloc[0])
    source_ok = rows["source_valid"] == 1
    reader_ok = rows["valid"] == 1
    return {"condition": sig.get("condition"), "source": sig.get("source"), "endowment": endowment,
            "run_ids": list(config.run_ids), "used": used, "supports": SUPPORTS,
            "amount_sent": amount_summary(rows.loc[source_ok, "source_amount"].tolist(), len(rows), endowment),
            "amount_sent_reader": amount_summary(rows.loc[reader_ok, "sent"].tolist(), len(rows), endowment),
            "reader_agreement": reader_agreement(rows)}


def imported_entries(store: Store, configs: Sequence[comparable.Configuration], used: comparable.Configuration | None,
                     order: dict[str, float]) -> dict[str, Any]:
    """configuration id -> its entry, for every imported configuration among ``configs`` (a model's population
    configurations) whose rows carry a source amount."""
    out: dict[str, Any] = {}
    for config in configs:
        if not config.signature.get("imported"):
            continue
        rows = store.table(TRANSFERS.name, run_ids=list(config.run_ids), without=("raw",))
        if rows.empty or "source_valid" not in rows:
            continue
        rows = comparable.latest_rows(rows, ["persona_id"], order)
        out[config.id] = configuration_entry(rows, config, used is not None and config.id == used.id)
    return out
