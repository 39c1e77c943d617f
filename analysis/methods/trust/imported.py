"""The report of imported published trust-game answers (``analysis.methods.trust.importer``): what such a source
supports, per model and configuration (one configuration per condition of the source).

- ``amount_sent``: of the ``n`` personas, the ``valid`` ones whose source-extracted amount is a finite number in
  [0, endowment]; over those, ``mean`` = Σx/valid and ``sd`` = sqrt(Σ(x − mean)²/(valid − 1)) (the sample SD, numpy's
  ``ddof=1``), each a ``number`` entry (null with the reason when undefined: no valid amount; fewer than two); and
  ``distribution``: the count per $1 bin from $0 to the endowment, each bin the half-open interval [d, d + 1)
  labelled so ($7.00 and $7.50 in '[7, 8)'; the endowment's bin, '10', holds the endowment alone:
  ``behaviour.dollar_bins``), and ``n_fractional``: how many amounts were not whole.
- ``amount_sent_reader``: the same over RoleScope's own reading of the replies (``trust-amount``: whole dollars only).
- ``invalid_replies``: the ``counts`` entry of the condition's replies RoleScope's reader left invalid (its share
  with a Wilson interval), so a condition full of unread replies shows beside the others.
- ``reader_agreement``: each persona in one class — both valid and equal, both valid and different, only the source
  valid, only RoleScope's reader valid, both invalid — with its count and up to ``EXAMPLES`` persona ids.

- ``shift_from_base`` (every condition but the base): the mean over the personas valid in both of (amount in the
  condition − amount in the base condition), $ of a $10 endowment, with a paired bootstrap CI over those personas
  (``versus_human.shift_entry``).

The belief–behaviour headline is undefined for such a configuration (``NO_BELIEFS``: the source published amounts
sent, not beliefs). The headline ``trust_vs_human`` of an imported model is its base condition's source amounts
against Berg et al.'s humans (``vs_human_imported``), whichever condition the page uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from analysis.methods.base import counts, number, unread_bound
from analysis.methods.trust.behaviour import dollar_bins
from analysis.methods.trust.importer import BASE
from analysis.methods.trust.versus_human import scaled_to_ten, shift_entry, vs_human_entry
from analysis.runs import comparable
from analysis.runs.store import Store
from analysis.methods.trust.tables import TRANSFERS

EXAMPLES = 5
AGREEMENT = ("both_equal", "both_different", "only_source", "only_reader", "both_invalid")
AGREEMENT_LABELS = {"both_equal": "both valid, equal", "both_different": "both valid, different",
                    "only_source": "only the source valid", "only_reader": "only RoleScope's reader valid",
                    "both_invalid": "both invalid"}
NO_BELIEFS = ("{source} published amounts sent, not beliefs; the belief–behaviour ρ needs both (a stated belief about "
              "how much people like the persona send, and the amount the persona sent), so it is undefined for these "
              "imported answers (condition {condition}); their amounts sent are under 'imported' and in 'Trust: sent − "
              "human'")
NO_BASE_SHIFT = {"mean": number(None, "no base-condition import of this model to pair with"), "ci": [None, None],
                 "n_pairs": 0, "unit": "$ of a $10 endowment", "ci_reason": None, "base_configuration": None}
#: What an imported trust source supports, as the page says it.
SUPPORTS = ("amounts sent per condition (the source's extraction and RoleScope's reading of the replies); not "
            "belief–behaviour consistency (no beliefs elicited apart from the game); not forecasts (single-round play)")


def amount_summary(amounts: Sequence[float], n: int, endowment: int) -> dict[str, Any]:
    """``{n, valid, mean, sd, distribution, n_fractional}`` of the valid ``amounts`` among ``n`` answers (see the module
    docstring for the formulas)."""
    x = np.asarray([float(a) for a in amounts], dtype=float)
    mean = number(float(x.mean()) if x.size else None, "no valid amount", n=int(x.size), of=int(n), unit="personas", read=True,
                  bound=unread_bound(x, n, 0.0, float(endowment)), bound_note=f"every unread reply at $0 … at ${endowment}")
    sd = number(float(x.std(ddof=1)) if x.size >= 2 else None, "fewer than two valid amounts")
    return {"n": int(n), "valid": int(x.size), "read_share": round(x.size / n, 4) if n else None, "mean": mean, "sd": sd,
            "distribution": dollar_bins(x, endowment, every=True),
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
            "reader_agreement": reader_agreement(rows),
            "invalid_replies": counts("invalid replies", int((~reader_ok).sum()), len(rows))}


def imported_rows(store: Store, configs: Sequence[comparable.Configuration],
                  order: dict[str, float]) -> dict[str, tuple[comparable.Configuration, pd.DataFrame]]:
    """configuration id -> (configuration, its transfer rows, latest run per persona), for every imported
    configuration among ``configs`` (a model's population configurations) whose rows carry a source amount."""
    out: dict[str, tuple[comparable.Configuration, pd.DataFrame]] = {}
    for config in configs:
        if not config.signature.get("imported"):
            continue
        rows = store.table(TRANSFERS.name, run_ids=list(config.run_ids), without=("raw",))
        if rows.empty or "source_valid" not in rows:
            continue
        out[config.id] = (config, comparable.latest_rows(rows, ["persona_id"], order))
    return out


def endowment_of(rows: pd.DataFrame, config: comparable.Configuration) -> int:
    """The configuration's endowment (its signature's, else its rows')."""
    return int(config.signature.get("endowment") or rows["endowment"].dropna().iloc[0])


def source_amounts(rows: pd.DataFrame, endowment: int) -> pd.Series:
    """The source's valid amounts (``source_valid`` = 1) per persona id, on the $10 scale (``versus_human``)."""
    ok = rows[rows["source_valid"] == 1]
    return pd.Series(scaled_to_ten(ok["source_amount"].to_numpy(dtype=float), endowment),
                     index=ok["persona_id"].astype(str).to_numpy(), dtype=float)


def base_configuration(found: dict[str, tuple[comparable.Configuration, pd.DataFrame]]) -> str | None:
    """The id of the imported configuration of the base condition (the game without manipulation), or None: a source's
    ``base`` condition, else the one its importer ranks first (``design.base``: 1, 2, …)."""
    ranked = sorted((0 if config.signature.get("condition") == BASE else config.signature.get("base"), cid)
                    for cid, (config, _) in found.items()
                    if config.signature.get("condition") == BASE or isinstance(config.signature.get("base"), int))
    return ranked[0][1] if ranked else None


def imported_entries(found: dict[str, tuple[comparable.Configuration, pd.DataFrame]],
                     used: comparable.Configuration | None, *, n_boot: int = 0, seed: int = 0) -> dict[str, Any]:
    """configuration id -> its entry (``configuration_entry``) for every configuration of ``imported_rows``; each
    condition other than the base also carries ``shift_from_base`` (``versus_human.shift_entry``: the paired mean
    of per-persona differences from the base condition, CI over personas), undefined with the reason when the model
    has no base-condition import."""
    out: dict[str, Any] = {}
    base = base_configuration(found)
    amounts = {cid: source_amounts(rows, endowment_of(rows, config)) for cid, (config, rows) in found.items()}
    for cid, (config, rows) in found.items():
        entry = configuration_entry(rows, config, used is not None and config.id == used.id)
        if cid != base:
            entry["shift_from_base"] = (shift_entry(amounts[base], amounts[cid], base, n_boot=n_boot, seed=seed)
                                        if base is not None else NO_BASE_SHIFT)
        out[cid] = entry
    return out


def vs_human_imported(found: dict[str, tuple[comparable.Configuration, pd.DataFrame]], *, n_boot: int,
                      seed: int = 0) -> dict[str, Any]:
    """The ``trust_vs_human`` headline of an imported model: its base condition's source amounts against the human
    baseline (``versus_human.vs_human_entry``); undefined with the reason when the base condition was not imported."""
    base = base_configuration(found)
    if base is None:
        conditions = ", ".join(sorted(str(c.signature.get("condition")) for c, _ in found.values()))
        return number(None, f"no base-condition import of this model (only {conditions}): the human baseline is the "
                            "unmanipulated one-shot game, so only the base condition compares with it") | {"ci": None}
    config, rows = found[base]
    endowment = endowment_of(rows, config)
    what = (f"{config.signature.get('source')}, base condition"
            + ("" if config.signature.get("condition") == BASE else f" ({config.signature.get('condition')})"))
    ok = rows[rows["source_valid"] == 1]
    entry = vs_human_entry(ok["source_amount"].astype(float).tolist(), len(rows), endowment, what, n_boot=n_boot,
                           seed=seed)
    read = rows[rows["valid"] == 1]
    # the same number by RoleScope's own reading of the replies, beside the source's extraction (issue 56)
    mine = vs_human_entry(read["sent"].astype(float).tolist(), len(rows), endowment, what + ", RoleScope's reading",
                          n_boot=n_boot, seed=seed)
    return entry | {"extraction": "the source's", "by_rolescope_reading": {
        k: mine.get(k) for k in ("value", "reason", "coverage", "ci", "model_mean", "note")}}
