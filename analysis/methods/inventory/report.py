"""The inventory report: the ``metrics inventory --json`` document.

    {"models": {NAME: {
        "domains": {D: {"name", "score", "percentile", "alpha", "omega" (keyed, no flip), "keying": [{"item_id", "item",
                        "loading"}] (items loading against the key), "lambda6", "test_retest", "shaping_rho",
                        "drift", "shaping_d", "shaping_d_lo", "shaping_d_hi", "shaping_n_high", "shaping_n_low",
                        "n_personas", "n_complete_sheets" (sheets answering every item of the domain; ω and λ6
                        use pairwise-complete correlations as psych does), "n_under_coverage" (personas with too few valid items to be scored), "n_items",
                        "human_percentile" (the score's percentile among people's, with an imported human norm),
                        "<metric>_reason": why undefined, …}},   # the main inventory's
        "inventory": main inventory name,
        "inventories": {INV: {"title", "n_items", "n_personas", "n_sheets", "norms", "domains": {…as above},
                              "provenance": {"imported", "source", "citation", "administration", "text_bundled", …},
                              "facets": {F: {"name", "domain", "score", "percentile"}},
                              "testings": {"unit", "n_units", "n_testings", "icc", "profile_r", "domains": {D: {"mean",
                                           "sd", "icc"}}} (repeated testings of one respondent; ``testings``) or null,
                              "human": {"source", "n_people", "domains": {D: {"n", "alpha", "omega", "mean", "sd",
                                        "model_score", "model_percentile"}}} (an imported human norm) or null,
                              "position": {"shares": {"1": x, …}, "first": x, "order_gap": x}}},
        "mtmm": {"inventories": [A, B], "convergent", "discriminant", "reason", "n_personas", "matrix": frame,
                 "n_shaped": personas among them with a shaping target (the paper's Table 1 is on unshaped ones),
                 "convergent_domains": {D: r of D's scores on A and B, null where undefined}},
        "headlines": {"inventory_shaping": number, "inventory_alpha": number},
        "counts": [invalid answers], "chance": {INV: {"alpha/E": {"uniform": …, "permutation": …}, …}},
        "figures": {"profiles", "shaping", "facets"}, "configuration", "configurations"}}}

The main inventory is IPIP-NEO-120 when it was given, else IPIP-NEO-300, else the first. Formulas:
``analysis.methods.inventory.scoring`` and ``psychometrics``; the numbers the chance draws recompute, ``measures``.
Every number is null with its reason where undefined.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis.errors import InputError
from analysis.methods.base import counts, frame_doc, number
from analysis.methods.inventory import psychometrics as pm
from analysis.methods.inventory.answers import selected_answers
from analysis.methods.inventory.families import FAMILY
from analysis.methods.inventory.inventory import ipip_facet_names
from analysis.methods.inventory.design import grouping, shaped_types
from analysis.methods.inventory.measures import aligned_scores, levels_of, reliability, statistics
from analysis.methods.inventory.shaping import shaping_effect
from analysis.methods.inventory.scoring import (MIN_ITEM_SHARE, Sheets, norm_band, persona_scores, scale_scores,
                                                sheet_percentiles, sheets, under_coverage)
from analysis.methods.inventory.testings import human_doc, testings_doc
from analysis.persona_scores import persona_scores_doc
from analysis.runs import comparable
from analysis.runs.store import Store
from analysis.stats import nanmean_last

PREFERRED = ("ipip-neo-120", "ipip-neo-300")


def _val(x: float) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def _entry(out: dict[str, Any], key: str, pair: tuple[float, str | None]) -> None:
    value, why = pair
    out[key] = _val(value)
    if out[key] is None:
        out[f"{key}_reason"] = why or "undefined"


def keying(s: Sheets, domain: str, loadings: np.ndarray, answers: pd.DataFrame) -> list[dict[str, Any]]:
    """The domain's items that load against its keyed scale (``psychometrics.against_key``: the items psych's default
    ``flip = TRUE`` would reverse), each with its text and loading; empty when every item runs with the scale or no
    factor was fit. Read beside α: such an item lowers α and the keyed ω."""
    ids = [i for i, d in zip(s.items, s.domain) if d == domain]
    text = answers.drop_duplicates("item_id").set_index("item_id")["item"]
    return [{"item_id": ids[k], "item": str(text.get(ids[k], "")), "loading": float(loadings[k])}
            for k in pm.against_key(loadings)]


def reliability_entries(s: Sheets, domain: str, stats: dict[str, tuple[float, str | None]],
                        pooled_omega: tuple[float, str | None], within: dict[str, dict]) -> dict[str, Any]:
    """α, ω and λ6 of a domain on the design's unit (``design``): ``<m>`` the value, ``<m>_unit`` the unit said in
    words; in a shaped design also ``<m>_within`` (median, min, max, n_types, of_types, values per type) and the
    pooled ``<m>_between`` labelled "between persona types (shaping levels), inflated by shaping". ``within``: the
    summaries ``statistics`` already computed (α, λ6); ω's is computed here."""
    out: dict[str, Any] = {}
    if not shaped_types(s, domain):
        for metric, pair in (("alpha", stats[f"alpha/{domain}"]), ("omega", pooled_omega),
                             ("lambda6", stats[f"lambda6/{domain}"])):
            _entry(out, metric, pair)
            out[f"{metric}_unit"] = "answer sheets (unshaped personas)"
        return out
    for metric in ("alpha", "omega", "lambda6"):
        key = f"{metric}/{domain}"
        if key in within:
            value, why, summary = *stats[key], within[key]
        else:
            value, why, summary = reliability(s, s.X, domain, metric)
        _entry(out, metric, (value, why))
        out[f"{metric}_within"] = summary
        group = grouping(s)
        out[f"{metric}_unit"] = (f"within {group}: median of {summary['n_types']} of {summary['of_types']} {group}s "
                                 f"(range {summary['min']:.2f} to {summary['max']:.2f})" if summary["n_types"] else
                                 f"within {group}: undefined in each of {summary['of_types']} {group}s")
        between = pooled_omega if metric == "omega" else stats[f"{metric}_between/{domain}"]
        _entry(out, f"{metric}_between", between)
        out[f"{metric}_between_unit"] = f"between {group}s, inflated by shaping"
    return out


def alpha_note(s: Sheets) -> str:
    """The unit the α headline stands on, in words."""
    if any(shaped_types(s, d) for d in s.domains):
        group = grouping(s)
        return f"mean over domains of α within {group} (median over {group}s); pooled α is between-{group}, inflated by shaping"
    return "mean over domains of α over answer sheets (unshaped personas)"


def inventory_doc(s: Sheets, name: str, answers: pd.DataFrame) -> dict[str, Any]:
    """One inventory's part of a model's document (observed numbers)."""
    from analysis.methods.inventory import BIG_FIVE

    within: dict[str, dict] = {}
    stats = statistics(s, with_omega=False, within=within)
    sheet = scale_scores(s)
    person = persona_scores(sheet)
    short = under_coverage(s, scored=person)
    pcts, pct_reason = sheet_percentiles(s, name)
    domains = {}
    for d in s.domains:
        entry: dict[str, Any] = {"name": BIG_FIVE.get(d, d), "n_items": int((s.domain == d).sum()),
                                 "n_personas": int(np.isfinite(person[d]).sum()),
                                 "n_under_coverage": int(short[d].sum())}
        _entry(entry, "score", (float(np.nanmean(person[d])) if np.isfinite(person[d]).any() else float("nan"),
                                f"no persona answered at least {MIN_ITEM_SHARE:.0%} of its items validly"))
        _entry(entry, "sd", (float(np.nanstd(person[d], ddof=1)) if np.isfinite(person[d]).sum() > 1 else float("nan"),
                             "needs ≥ 2 personas"))
        vals = [v[d] for v in pcts.values()]
        _entry(entry, "percentile", (float(np.mean(vals)) if vals else float("nan"), pct_reason))
        frame = pm.domain_items(s.X, s.domain == d)
        omega, why, loadings = pm.omega_keyed(frame)
        entry |= reliability_entries(s, d, stats, (omega, why), within)
        entry["n_complete_sheets"] = pm.complete_sheets(frame)  # ω and λ6 use pairwise correlations beyond these
        _entry(entry, "test_retest", stats[f"test_retest/{d}"])
        entry["keying"] = keying(s, d, loadings, answers)
        _entry(entry, "shaping_rho", stats[f"shaping/{d}"])
        _entry(entry, "drift", stats[f"drift/{d}"])
        levels = levels_of(s, d)
        if np.isfinite(levels).any():
            entry |= shaping_effect(s, levels, person[d])
        else:
            _entry(entry, "shaping_d", stats[f"shaping_d/{d}"])
            entry |= {"shaping_n_high": 0, "shaping_n_low": 0}
        domains[d] = entry
    facets = {}
    facet_names = ipip_facet_names() if name in PREFERRED else {}
    for f, values in persona_scores(scale_scores(s, "facet")).items():
        vals = [v[f] for v in pcts.values() if f in v]
        facets[f] = {"name": facet_names.get(f, f), "domain": str(s.domain[list(s.facet).index(f)]), "score": _val(np.nanmean(values)) if np.isfinite(values).any() else None,
                     "percentile": _val(np.mean(vals)) if vals else None}
    order_gap = [float(nanmean_last(np.abs(sheet[d][:, 0] - sheet[d][:, 1]))) for d in s.domains] if len(s.orders) == 2 else []
    shares = pm.position_shares(s.number, s.n_options)
    first = answers.iloc[0]
    return {
        "title": name, "n_items": len(s.items), "n_personas": len(s.personas), "n_sheets": len(s.personas) * len(s.orders),
        "orders": s.orders, "norms": name if name in PREFERRED and not pct_reason else None,
        "norms_reason": pct_reason, "answer_mode": str(first.get("mode")),
        "domains": domains, "facets": facets,
        "position": {"shares": {str(k): _val(v) for k, v in shares.items()}, "first": _val(shares.get(1, float("nan"))),
                     "chance_share": 1 / s.n_options,
                     "order_gap": _val(float(np.nanmean(order_gap))) if order_gap and np.isfinite(order_gap).any() else None,
                     "order_gap_reason": None if order_gap else "needs both option orders"},
        "headline": {k: stats[k] for k in ("shaping", "alpha")},
        "testings": testings_doc(s, answers),
    }


def figures(s: Sheets, name: str) -> dict[str, Any]:
    """The frames the page draws: persona profiles (with the human norm band), the shaping curve, item answers."""
    from analysis.methods.inventory import BIG_FIVE

    person = persona_scores(scale_scores(s))
    rows = []
    for p, pid in enumerate(s.personas):
        (target, level), = (s.targets[p].items() if len(s.targets[p]) == 1 else [(None, None)])
        for d in s.domains:
            band = norm_band(name, s.sex[p], s.age[p]).get(d, (None, None)) if name in PREFERRED else (None, None)
            rows.append({"persona_id": pid, "domain": d, "domain_name": BIG_FIVE.get(d, d), "score": _val(person[d][p]),
                         "target_domain": target, "target_level": level, "domain_level": s.targets[p].get(d),
                         "norm_lo": band[0], "norm_hi": band[1], "sex": s.sex[p], "age": s.age[p]})
    profiles = pd.DataFrame(rows)
    shaped = profiles[profiles["domain_level"].notna()]
    curve = (shaped.groupby(["domain", "domain_level"], as_index=False)
             .agg(score=("score", "mean"), sd=("score", "std"), n=("score", "count"))
             .rename(columns={"domain_level": "target_level"})) if len(shaped) else \
        pd.DataFrame(columns=["domain", "target_level", "score", "sd", "n"])
    return {"profiles": frame_doc(profiles), "shaping": frame_doc(curve)}


def persona_trait_scores(s: Sheets, name: str, answers: pd.DataFrame) -> dict[str, Any]:
    """Each persona's domain and facet scores on the main inventory (``analysis.persona_scores``): the mean keyed
    answer over the persona's sheets (both option orders when given), as ``scale_scores`` computes it."""
    from analysis.methods.inventory import BIG_FIVE

    domains = persona_scores(scale_scores(s))
    facets = persona_scores(scale_scores(s, "facet"))
    names = ipip_facet_names() if name.startswith(PREFERRED) else {}  # "ipip-neo-120 (first 60 items)" too
    constructs = {d: BIG_FIVE.get(d, d) for d in domains} | {f: f"{f} {names[f]}" if f in names else f for f in facets}
    frame = pd.DataFrame({"persona_id": s.personas, **domains, **facets})
    described = answers.drop_duplicates("persona_id").set_index("persona_id")["persona"]
    frame["description"] = [described.get(p) for p in s.personas]
    return persona_scores_doc(frame, constructs, secondary=list(facets))


def main_inventory(sizes: dict[str, int]) -> str:
    """IPIP-NEO-120, else IPIP-NEO-300, else the inventory with the most items (ties: by name)."""
    return next((n for n in PREFERRED if n in sizes), min(sizes, key=lambda n: (-sizes[n], n)))


def metrics_json(store: Store, model: str | None = None, config: comparable.Chosen = None, *,
                 chance: int = 0) -> dict[str, Any]:
    """The ``metrics inventory --json`` document (module docstring) for every model (or only ``model``)."""
    from analysis.methods.inventory import chance as inv_chance

    selection = comparable.select(store, FAMILY, model=model, config=config)
    answers = selected_answers(store, selection=selection)
    if model is not None and answers.empty:
        raise InputError(f"no inventory answers for model '{model}' in {store.path}")
    models = {}
    for name in dict.fromkeys(answers["model"]):
        mine = answers[answers["model"] == name]
        per_inv: dict[str, Any] = {}
        arrays: dict[str, Sheets] = {}
        for inv, rows in mine.groupby("inventory", sort=False):
            arrays[str(inv)] = sheets(rows, n_options_of(store, rows))
            per_inv[str(inv)] = inventory_doc(arrays[str(inv)], str(inv), rows) | {"provenance": provenance(store, rows)}
            with_human(per_inv[str(inv)], human_norm_of(store, rows))
        main = main_inventory({n: d["n_items"] for n, d in per_inv.items()})
        head = per_inv[main].pop("headline")
        for doc in per_inv.values():
            doc.pop("headline", None)
        doc: dict[str, Any] = {"inventory": main, "domains": per_inv[main]["domains"], "inventories": per_inv}
        doc["mtmm"] = mtmm_doc(arrays, chance=chance, store=store)
        doc["headlines"] = {"inventory_shaping": number(head["shaping"][0], head["shaping"][1] or "undefined"),
                            "inventory_alpha": number(head["alpha"][0], head["alpha"][1] or "undefined")
                            | {"note": alpha_note(arrays[main])}}
        doc["counts"] = [counts("invalid answers", int((mine["valid"] != 1).sum()), len(mine))]
        doc["figures"] = figures(arrays[main], main)
        doc["persona_scores"] = persona_trait_scores(arrays[main], main, mine[mine["inventory"] == main])
        doc |= selection.document(name)
        if chance > 0:
            doc["chance"] = {inv: inv_chance.inventory_chance(arrays[inv], inv, n_sims=chance, store=store)
                             for inv in per_inv}
        models[name] = doc
    return {"models": models}


def mtmm_doc(arrays: dict[str, Sheets], *, chance: int = 0, store: Any = None) -> dict[str, Any]:
    """The MTMM entry: personas aligned by id across the first two inventories (the main one first), with the
    convergent and discriminant numbers' chance bands when ``chance`` > 0, and how many of them are shaped
    (``n_shaped``): shaping moves a persona's domains with its target, so only an unshaped MTMM compares with the
    paper's Table 1 (unshaped persona descriptions)."""
    from analysis.methods.inventory.chance import mtmm_chance

    names = sorted(arrays, key=lambda n: (n not in PREFERRED, PREFERRED.index(n) if n in PREFERRED else 0, n))[:2]
    if len(names) < 2:
        return {"inventories": names, "convergent": None, "discriminant": None, "n_personas": 0, "n_shaped": 0,
                "matrix": None, "convergent_domains": {},
                "reason": "needs two inventories given to the same personas (run another --inventory on them)"}
    shared = [p for p in arrays[names[0]].personas if p in set(arrays[names[1]].personas)]
    scores = aligned_scores(arrays, names, shared)
    R, conv, disc, why = pm.mtmm(scores)
    domains = pm.convergent_domains(R, scores, *names) if why is None else {}
    main = arrays[names[0]]
    n_shaped = sum(bool(main.targets[main.personas.index(p)]) for p in shared)
    doc = {"inventories": names, "convergent": _val(conv), "discriminant": _val(disc), "n_personas": len(shared),
           "n_shaped": n_shaped,
           "convergent_domains": {d: _val(r) for d, r in domains.items()},
           "matrix": frame_doc(R.reset_index(names="scale")) if len(R) else None, "reason": why}
    if chance > 0 and why is None:
        doc["chance"] = mtmm_chance(arrays, names, shared, {"convergent": conv, "discriminant": disc},
                                    n_sims=chance, store=store)
    return doc


def provenance(store: Store, rows: pd.DataFrame) -> dict[str, Any]:
    """Where an inventory's answers come from: a run of RoleScope's, or an import (its source, citation, how the items
    were administered, and whether the replies' text is in the store)."""
    plans = [store.get_run(str(r))["plan"] for r in dict.fromkeys(rows["run_id"])]
    imported = [p for p in plans if p.get("imported")]
    if not imported:
        return {"imported": False, "administration": "each item its own prompt (Serapio-García et al.)"}
    first = imported[0]
    return {"imported": True, "source": first.get("source"), "citation": first.get("citation"),
            "administration": first.get("administration"), "text_bundled": first.get("text_bundled", True),
            "text_note": first.get("text_note")}


def human_norm_of(store: Store, rows: pd.DataFrame) -> dict[str, Any] | None:
    """The human norm an importer stored in the plan of these rows' runs (``plan["human_norm"]``), or None."""
    for run_id in dict.fromkeys(rows["run_id"]):
        norm = store.get_run(str(run_id))["plan"].get("human_norm")
        if norm:
            return norm
    return None


def with_human(doc: dict[str, Any], norm: dict[str, Any] | None) -> None:
    """Set an inventory document's ``human`` row (``testings.human_doc``; null without a norm) and each domain's
    ``human_percentile``: the model's domain score (its mean over personas or testings) among people's scores."""
    doc["human"] = human_doc(norm, doc["domains"]) if norm else None
    for d, entry in (doc["human"] or {}).get("domains", {}).items():
        if d in doc["domains"]:
            doc["domains"][d]["human_percentile"] = entry["model_percentile"]


def n_options_of(store: Store, rows: pd.DataFrame) -> int:
    """The number of response options of the inventory these rows answer (from their run's plan)."""
    import json

    run = store.get_run(str(rows["run_id"].iloc[0]))
    plan = json.loads(run["plan"]) if isinstance(run["plan"], str) else run["plan"]
    return len(plan["inventory"]["options"])


def report(store: Store, model: str | None = None, *, config: comparable.Chosen = None, n_boot: int = 1000,
           chance: int = 0) -> dict[str, Any]:
    """``Method.report``: ``metrics_json`` (``n_boot`` is not used: the report bootstraps nothing; Compare does), with
    the paper's per-domain convergent r (``published.convergent_rows``) that its page sets beside the store's."""
    from analysis.methods.inventory.published import convergent_rows

    return metrics_json(store, model, config=config, chance=chance) | {"published_convergent": convergent_rows()}


