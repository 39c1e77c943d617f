"""Comparing two trust-game models: each strategy's median Spearman, the forecast error, the amounts sent of an
imported condition and the ``trust_vs_human`` headline, each A − B with a bootstrap CI over the units both answered
(``analysis.methods.resampled``: paired over the shared units — personas; a ChatGPT-Behavioral session is its model's
own — else "not paired" with an unpaired CI; units and statistics: ``paired``), recomputed from the rows each side's
report read (``cli.side_rows``). Without those rows (``compare_trust`` on two documents) the rows carry no CI."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from analysis.methods.base import Difference, Side, difference
from analysis.methods.resampled import Resampler, resampled_difference

METHOD = "Trust"


def _f(x: Any) -> float:
    return float("nan") if x is None else float(x)


def _mean_defined(values: Iterable[Any]) -> float:
    """Mean of the defined values; NaN (shown as undefined) when none is, without numpy's empty-slice warning."""
    defined = [v for v in map(_f, values) if math.isfinite(v)]
    return sum(defined) / len(defined) if defined else float("nan")


def _median(values: list[float]) -> float:
    values = sorted(values)
    n = len(values)
    return float("nan") if not n else (values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2)


class SideUnits:
    """One side's per-unit rows, as its report selected them (``cli.side_rows``), and its numbers as ``Resampler``s
    (``paired``)."""

    def __init__(self, side: Side):
        from analysis.methods.trust.cli import side_rows

        self.side, self.model = side, side.model
        self.rows = side_rows(side.store, side.model, side.config)

    def _keys(self, runs: list[str]) -> Callable[[str], str]:
        """persona id -> unit, for a native configuration's runs (their plans' descriptions)."""
        from analysis.methods.trust.paired import unit_key
        from analysis.persona_scores import plan_descriptions

        described = plan_descriptions(self.side.store.get_run(r)["plan"] for r in runs)
        return lambda pid: unit_key(pid, descriptions=described)

    def imported_amounts(self, config_id: str, value: str, valid: str) -> Resampler:
        """The mean amount sent of an imported configuration: ``value`` over the rows ``valid`` marks (the source's
        extraction: source_amount / source_valid; RoleScope's reading: sent / valid)."""
        from analysis.methods.trust.paired import mean_resampler, unit_key, unit_noun

        config, rows = self.rows.imported[config_id]
        ok = rows[(rows[valid] == 1) & rows[value].notna()]
        ids = [unit_key(p, signature=config.signature, model=self.model) for p in ok["persona_id"]]
        return mean_resampler(ids, ok[value].astype(float).tolist(), unit_noun(config.signature))

    def vs_human(self) -> Resampler | None:
        """``trust_vs_human``: the mean sent on the $10 scale − the human mean, over the units its report averages
        (an imported model's base condition, else the unconditioned games at the headline endowment)."""
        from analysis.methods.trust.cli import headline_endowment
        from analysis.methods.trust.human import BERG_1995
        from analysis.methods.trust.imported import base_configuration, endowment_of
        from analysis.methods.trust.paired import mean_resampler, unit_key, unit_noun
        from analysis.methods.trust.tables import TRANSFERS
        from analysis.methods.trust.versus_human import scaled_to_ten

        human = BERG_1995.point_mean()
        used = self.rows.used_pop
        if used is not None and used.signature.get("imported"):
            base = base_configuration(self.rows.imported)
            if base is None:
                return None
            config, rows = self.rows.imported[base]
            ok = rows[rows["source_valid"] == 1]
            ids = [unit_key(p, signature=config.signature, model=self.model) for p in ok["persona_id"]]
            return mean_resampler(ids, scaled_to_ten(ok["source_amount"].astype(float), endowment_of(rows, config)),
                                  unit_noun(config.signature), minus=human)
        endowment, transfers = headline_endowment(self.rows), self.rows.tables[TRANSFERS.name]
        if endowment is None or transfers.empty:
            return None
        ok = transfers[(transfers["conditioning"] == "none") & (transfers["endowment"] == endowment)
                       & (transfers["valid"] == 1) & transfers["sent"].notna()]
        key = self._keys(self.rows.pop_runs)
        return mean_resampler([key(str(p)) for p in ok["persona_id"]],
                              scaled_to_ten(ok["sent"].astype(float), endowment), unit_noun(None), minus=human)

    def spearman(self, strategy: str, attributes: list[str]) -> Resampler:
        from analysis.methods.trust.cli import population_inputs
        from analysis.methods.trust.paired import spearman_resampler

        beliefs, transfers = population_inputs(self.rows, strategy)
        return spearman_resampler(beliefs, transfers, attributes, self._keys(self.rows.pop_runs))

    def mae(self, archetypes: list[str]) -> Resampler:
        from analysis.methods.trust.paired import mae_resampler
        from analysis.methods.trust.tables import ROUNDS

        return mae_resampler(self.rows.tables[ROUNDS.name], archetypes, self._keys(self.rows.ind_runs))


Units = tuple[SideUnits, SideUnits] | None


def _row(metric: str, a_value: Any, b_value: Any, resamplers: Any, *, n_boot: int, key: str | None = None,
         note: str = "", undefined: str = "") -> Difference:
    """One Compare row: with the sides' units (``resamplers()`` -> (A's, B's) ``Resampler``, or None when a side has
    none), A − B with its CI (``resampled_difference``); without, A − B alone, saying why. ``note`` comes first."""
    from analysis.methods.trust.paired import SESSIONS

    lead = f"{note}; " if note else ""
    if a_value is None or b_value is None:
        why = undefined or "; ".join(f"{s} undefined" for s, v in (("A", a_value), ("B", b_value)) if v is None)
        return difference(METHOD, metric, a_value, b_value, note=lead + why, key=key)
    pair = resamplers() if resamplers is not None else None
    if pair is None or None in pair:
        why = "no CI: the per-unit rows were not given" if resamplers is None else "no CI: a side's units are not stored"
        return difference(METHOD, metric, a_value, b_value, note=lead + why, key=key)
    d = resampled_difference(METHOD, metric, *pair, a_value, b_value, key=key, n_boot=n_boot)
    sessions = d.note.startswith("not paired") and pair[0].noun == pair[1].noun == SESSIONS
    why = "; a ChatGPT-Behavioral session repeats one prompt, so no session of one model is one of the other's" \
        if sessions else ""
    return dataclasses.replace(d, note=lead + d.note + why)


def _median_on_common(strategy: str, a: Mapping[str, Any], b: Mapping[str, Any], units: Units, n_boot: int,
                      headline: bool = False) -> Difference:
    """Median Spearman of each side over the attributes both have a defined ρ for (the same columns on both sides);
    the note says when the runs' attribute sets differ. Its CI resamples personas (beliefs fixed). ``headline``: both
    models' headline is this strategy's median, so the row is that headline (``Difference.key``) when the two have a
    defined ρ for exactly the same attributes and the same personas."""
    label = f"Median Spearman belief vs behaviour ({strategy})"
    ra = {k: _f(v.get("spearman")) for k, v in (a.get("attributes") or {}).items()}
    rb = {k: _f(v.get("spearman")) for k, v in (b.get("attributes") or {}).items()}
    if not ra and not rb:  # a document without per-attribute rows: the medians as reported
        return difference(METHOD, label, a.get("median_spearman"), b.get("median_spearman"),
                          note="no CI: the report holds no per-attribute ρ", key="trust_spearman" if headline else None)
    common = [k for k in ra if k in rb and math.isfinite(ra[k]) and math.isfinite(rb[k])]
    note = f"over the {len(common)} attributes with a defined ρ on both sides"
    if set(ra) != set(rb) or len(common) < len(ra):
        note += f" (A has {len(ra)}, B {len(rb)}: the others are left out)"
    if not common:
        return Difference(METHOD, label, float("nan"), float("nan"), float("nan"),
                          note="undefined: no attribute has a defined ρ on both sides")
    whole = set(common) == {k for k, v in ra.items() if math.isfinite(v)} == {k for k, v in rb.items() if math.isfinite(v)}
    pair = (lambda: (units[0].spearman(strategy, common), units[1].spearman(strategy, common))) if units else None
    # on every attribute of both: the medians as the reports hold them (of the unrounded ρ)
    va, vb = ((a.get("median_spearman"), b.get("median_spearman")) if whole else
              (_median([ra[k] for k in common]), _median([rb[k] for k in common])))
    return _row(label, va, vb, pair, n_boot=n_boot, key="trust_spearman" if headline and whole else None, note=note)


def _forecast_mae(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any], units: Units, n_boot: int) -> list[Difference]:
    """Forecast MAE, the mean over the archetypes both played of each side's defined ones; CI over personas."""
    ia = (doc_a.get("individual") or {}).get("archetypes") or {}
    ib = (doc_b.get("individual") or {}).get("archetypes") or {}
    common = [k for k in ia if k in ib]
    if not common:
        return []
    da = [k for k in common if ia[k].get("mae") is not None]
    db = [k for k in common if ib[k].get("mae") is not None]
    note = "" if da == db else f"A's MAE is defined for archetypes {', '.join(da) or 'none'}, B's for {', '.join(db) or 'none'}"
    a, b = _mean_defined(ia[k].get("mae") for k in da), _mean_defined(ib[k].get("mae") for k in db)
    pair = (lambda: (units[0].mae(da), units[1].mae(db))) if units else None
    return [_row("Forecast MAE, mean over archetypes (lower is better)", a if da else None, b if db else None, pair,
                 n_boot=n_boot, note=note)]


def _amounts_sent(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any], units: Units, n_boot: int) -> list[Difference]:
    """Imported published play (``imported``): the mean amount sent in the condition a side's headline uses, when both
    models have it, from the source's extraction and from RoleScope's reading; CI over the personas (sessions)."""
    by_a = {e.get("condition"): (cid, e) for cid, e in (doc_a.get("imported") or {}).items()}
    by_b = {e.get("condition"): (cid, e) for cid, e in (doc_b.get("imported") or {}).items()}
    out = []
    shown = [c for c in by_a if c in by_b and (by_a[c][1].get("used") or by_b[c][1].get("used"))]  # the page's configuration
    for condition in shown:
        (ca, ea), (cb, eb) = by_a[condition], by_b[condition]
        for key, who, value, valid in (("amount_sent", "the source's extraction", "source_amount", "source_valid"),
                                       ("amount_sent_reader", "RoleScope's reading", "sent", "valid")):
            ma, mb = (ea.get(key) or {}).get("mean") or {}, (eb.get(key) or {}).get("mean") or {}
            pair = ((lambda ca=ca, cb=cb, value=value, valid=valid: (
                units[0].imported_amounts(ca, value, valid), units[1].imported_amounts(cb, value, valid)))
                if units else None)
            out.append(_row(f"Amount sent, mean $ ({condition}, {who})", ma.get("value"), mb.get("value"), pair,
                            n_boot=n_boot, note="published play, imported",
                            undefined="; ".join(f"{s}: {m.get('reason')}" for s, m in (("A", ma), ("B", mb))
                                                if m.get("value") is None)))
    return out


def _vs_human(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any], units: Units, n_boot: int) -> list[Difference]:
    """The headline ``trust_vs_human``: A − B is the difference of the two mean amounts sent ($10 scale; the human mean
    cancels), keyed to the headline when both average the same units."""
    ha, hb = ((doc.get("headlines") or {}).get("trust_vs_human") or {} for doc in (doc_a, doc_b))
    if ha.get("value") is None and hb.get("value") is None:
        return []
    pair = (lambda: (units[0].vs_human(), units[1].vs_human())) if units else None
    return [_row("Sent − human, $ of $10 (A − B: the difference of the amounts sent)", ha.get("value"),
                 hb.get("value"), pair, n_boot=n_boot, key="trust_vs_human",
                 undefined="; ".join(f"{s}: {h.get('reason')}" for s, h in (("A", ha), ("B", hb))
                                     if h.get("value") is None))]


def compare_trust(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any], units: Units = None, *,
                  n_boot: int = 0) -> list[Difference]:
    """The trust rows of Compare from two models' report documents; ``units``: (A's, B's) ``SideUnits`` for the CIs."""
    out = []
    pa, pb = doc_a.get("population") or {}, doc_b.get("population") or {}
    shown = {((doc.get("headlines") or {}).get("trust_spearman") or {}).get("strategy") for doc in (doc_a, doc_b)}
    for strategy in [s for s in pa if s in pb]:
        out.append(_median_on_common(strategy, pa[strategy], pb[strategy], units, n_boot, headline=shown == {strategy}))
    out.extend(_forecast_mae(doc_a, doc_b, units, n_boot))
    out.extend(_amounts_sent(doc_a, doc_b, units, n_boot))
    out.extend(_vs_human(doc_a, doc_b, units, n_boot))
    return out


def compare_sides(a: Side, b: Side, *, n_boot: int = 1000) -> list[Difference]:
    """``Method.compare``: every row with its CI over the units both sides answered (paired), else unpaired."""
    return compare_trust(a.doc, b.doc, (SideUnits(a), SideUnits(b)), n_boot=n_boot)
