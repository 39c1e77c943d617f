"""All Stick to Your Role! metrics of a store, per model: the ``metrics values`` / ``leaderboard`` documents.

Reads ``values_answers`` (native and imported runs alike) of each model's chosen configuration
(``analysis.runs.comparable``), keeps within it for every context × instrument the most recent run
(a re-run replaces, it does not pool), then computes per context
the circumplex Stress, separability and the magnifying-glass CFA, and across contexts the
rank-order and ipsative stability with bootstrap CIs over personas. Pure computation on the
frames read from the store; nothing here calls an LLM.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from analysis.methods.base import counts, frame_doc, number
from analysis.persona_scores import persona_scores_doc, plan_descriptions
from analysis.methods.values.answers import latest_answers
from analysis.methods.values.families import FAMILY
from analysis.runs import comparable
from analysis.runs.store import Store
from analysis.methods.values import cfa, leaderboard, stability, structure
from analysis.methods.values.campaign import off_protocol
from analysis.methods.values.instruments import bundled_wording
from analysis.methods.values.chance import HEAVY, model_chance, movement, random_start_stress, summarize_draws
from analysis.methods.values.chance import model_draws as chance_draws
from analysis.methods.values.reliability import sample_retest, value_reliability
from analysis.methods.values.scores import item_matrix, value_means, value_scores

N_BOOT = 1000


#: Columns of values_answers no metric reads (the reply text and the call it came from): the report leaves them out.
NOT_READ = ("raw", "cache_key")


def _context_keys(answers: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(context, instrument) -> the key shown to users: the context label, suffixed only if ambiguous."""
    pairs = answers[["context", "instrument"]].drop_duplicates().itertuples(index=False)
    pairs = sorted(tuple(p) for p in pairs)
    counts = pd.Series([c for c, _ in pairs]).value_counts()
    return {(c, i): c if counts[c] == 1 else f"{c} ({i})" for c, i in pairs}


def _clean(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if hasattr(x, "item"):  # numpy scalar
        return _clean(x.item())
    return x


@dataclass
class ContextStructure:
    """What one model × context yields: circumplex, separability, CFA fits."""

    circumplex: structure.CircumplexResult | None
    separability: dict[str, Any] | None
    cfa_results: dict[str, cfa.CFAResult]
    error: str | None = None
    reliability: dict[str, Any] | None = None
    #: Lowest Stress of MDS from random starts (``chance.random_start_stress``): what the data support without theory.
    random_start_stress: float | None = None

    def summary(self) -> dict[str, Any]:
        table = cfa.cfa_table(self.cfa_results)
        fit = cfa.context_cfa_summary(table)  # undefined (null) when a group failed: cfa_reason says which and why
        # a failed group's indices are NaN (null in the document) beside its reason; the leaderboard alone scores it
        groups = {row["group"]: {k: row[k] for k in ("n", "chi2", "df", "cfi", "tli", "rmsea", "srmr", "converged", "reason")}
                  for row in table.to_dict("records")}
        return {
            "stress": self.circumplex.stress if self.circumplex else None,
            **fit,
            "cfa_reason": cfa.failed_reason(table) or None,
            "cfa": groups,
            "separability": self.separability.get("cv_accuracy") if self.separability else None,
            "separability_train": self.separability.get("train_accuracy") if self.separability else None,
            "order_distance": getattr(self.circumplex, "rank_distance", None) if self.circumplex else None,
            "alpha": (self.reliability or {}).get("alpha_mean"),
            "omega": (self.reliability or {}).get("omega_mean"),
            "reliability": (self.reliability or {}).get("values", {}),
            "test_retest": ((self.reliability or {}).get("retest") or {}).get("test_retest"),
            "error": self.error,
        }

    def figures(self) -> dict[str, Any]:
        """What the Structure page draws, so it never refits: the MDS layout, value centroids and their observed order,
        each item's movement from its theoretical start, CFA standardised loadings, separability per value."""
        circ = self.circumplex
        return {
            "layout": frame_doc(circ.layout) if circ else None,
            "centroids": frame_doc(circ.centroids) if circ else None,
            "observed_order": list(circ.observed_order) if circ else [],
            "movement": frame_doc(movement(circ.layout)) if circ else None,
            "loadings": frame_doc(cfa.cfa_loadings(self.cfa_results)),
            "separability": _clean(self.separability),
            "random_start_stress": self.random_start_stress,
        }


def context_structure(answers: pd.DataFrame, context: str, instrument: str, *, with_separability: bool = True) -> ContextStructure:
    """Structure metrics of one model's answers in one context (answers already filtered to the model)."""
    sub = answers[(answers["context"] == context) & (answers["instrument"] == instrument)]
    # unkeyed items (11 of the SVS's 57) carry no value (NaN in the frame): they never reach the structure metrics
    item_values = {k: v for k, v in zip(sub["item_id"].astype(str), sub["value"])
                   if not k.startswith("pick_") and isinstance(v, str) and v}
    matrix = item_matrix(sub, context=context, instrument=instrument)
    try:
        circ, error = structure.circumplex(matrix, item_values), None
    except ValueError as exc:  # too few personas, no keyed items: reported, not fatal
        circ, error = None, str(exc)
    sep = None
    if with_separability and circ is not None:
        try:
            sep = structure.separability(matrix, item_values)
        except ValueError as exc:  # no value with 2 items, too few for cross-validation: undefined, the circle stays
            sep = {"cv_accuracy": None, "train_accuracy": None, "reason": str(exc)}
    random_start = random_start_stress(matrix, item_values) if circ is not None else None
    return ContextStructure(circ, sep, cfa.fit_magnifying_glass_results(matrix, item_values), error,
                            value_reliability(matrix, item_values) | {"retest": sample_retest(sub)}, random_start)


def structure_jobs(answers: pd.DataFrame, *, with_separability: bool = True) -> list[tuple[Any, ...]]:
    """One ``context_structure`` call per context of one model's answers (``analysis.parallel`` jobs)."""
    return [(_structure, answers[(answers["context"] == c) & (answers["instrument"] == i)], c, i,
             {"with_separability": with_separability}) for c, i in _context_keys(answers)]


def _structure(sub: pd.DataFrame, context: str, instrument: str, kwargs: dict[str, Any]) -> ContextStructure:
    return context_structure(sub, context, instrument, **kwargs)


def model_metrics(answers: pd.DataFrame, *, n_boot: int = N_BOOT, seed: int = 0, with_separability: bool = True,
                  fitted: Sequence[ContextStructure] | None = None) -> dict[str, Any]:
    """The per-model document of ``metrics values --json`` (answers of one model). ``fitted``: its contexts'
    structures (``structure_jobs``), when computed already (``values_metrics``: every model's at once)."""
    from analysis.parallel import run_parallel

    keys = _context_keys(answers)
    if fitted is None:
        fitted = run_parallel(structure_jobs(answers, with_separability=with_separability), 1)
    fitted = dict(zip(keys.values(), fitted))
    asked = {key: pair for pair, key in keys.items()}
    contexts = {key: {"context": asked[key][0], "instrument": asked[key][1]} | s.summary() | {"figures": s.figures()}
                for key, s in fitted.items()}
    scores = value_scores(answers)
    scores["context"] = [keys[(c, i)] for c, i in zip(scores["context"], scores["instrument"])]
    out: dict[str, Any] = {"contexts": contexts, "n_personas": int(answers["persona_id"].nunique()),
                           "n_answers": int(len(answers)), "invalid": int((answers["valid"] == 0).sum()),
                           "profile_figures": profile_figures(answers, scores)}
    if len(keys) >= 2:
        out["rank_order"] = stability.rank_order_stability(scores)
        out["ipsative"] = stability.ipsative_stability(scores)
        out["pairwise_rank_order"] = stability.pairwise_rank_order(scores).to_dict()
        out["rank_order_by_value"] = stability.rank_order_by_value(scores).to_dict()
        ro = stability.rank_order_ci(scores, n_boot=n_boot, seed=seed)
        ip = stability.ipsative_ci(scores, n_boot=n_boot, seed=seed)
        out["ci"] = {"rank_order": {"lo": ro.lo, "hi": ro.hi}, "ipsative": {"lo": ip.lo, "hi": ip.hi},
                     "level": 0.95, "n_boot": n_boot, "seed": seed}
        # what the Stability page draws, so it never recomputes: the context matrix, per value with CIs, per persona
        out["stability_figures"] = {
            "matrix": frame_doc(stability.rank_order_matrix(scores).rename_axis("context").reset_index()),
            "by_value": frame_doc(stability.rank_order_by_value_ci(scores, n_boot=n_boot, seed=seed)),
            "ipsative": frame_doc(stability.ipsative_by_persona(scores)),
        }
    else:
        out |= {"rank_order": None, "ipsative": None, "pairwise_rank_order": {}, "ci": {}}
    return out


def profile_figures(answers: pd.DataFrame, scores: pd.DataFrame) -> dict[str, Any]:
    """What the pages draw of the value scores, so they never score answers: ``personas`` (persona_id, persona,
    gender), each persona's ``profiles`` (context, persona_id, value, score, ipsatised: ``scores.value_scores``) and
    the ``means`` per context × value over personas (mean, sd, n of the ipsatised score: ``scores.value_means``)."""
    cols = [c for c in ("persona_id", "persona", "gender") if c in answers]
    people = answers[cols].drop_duplicates("persona_id").sort_values("persona_id")
    return {"personas": frame_doc(people),
            "profiles": frame_doc(scores[["context", "persona_id", "value", "score", "ipsatised"]]),
            "means": frame_doc(value_means(scores))}


def values_metrics(store: Store, model: str | None = None, config: comparable.Chosen = None, *, chance: int = 0,
                   chance_scope: str = "all", **kwargs: Any) -> dict[str, Any]:
    """``{"models": {NAME: model_metrics | {"configuration", "configurations"}}}`` for every model in the store (or
    one), each on one configuration (``latest_answers``). ``chance`` > 0 adds each model's ``"chance"`` document
    (``analysis.methods.values.chance.model_chance`` with that many simulations; draws cached in a writable store):
    every null (``chance_scope="all"``), those the pages show up front (``"fast"``: circumplex and stability; each
    context's separability and CFA fit nulls are drawn on demand, ``analysis.methods.values.fit_chance``), or the
    stability nulls only (``"stability"``: what a leaderboard row shows)."""
    from analysis.parallel import shared_pool, submit

    selection = comparable.select(store, FAMILY, model=model, config=config)
    answers = latest_answers(store, selection=selection, without=NOT_READ)
    groups = list(answers.groupby("model", sort=True)) if len(answers) else []
    del answers  # each model's rows are in its group now
    with_separability = kwargs.get("with_separability", True)
    # One pool for everything: a model's observed structures run while its null draws are planned, then the draws;
    # one model at a time, so that only its rows are copied out to the workers.
    fitted, simulated = {}, {}
    with shared_pool(None, HEAVY):
        for name, group in groups:
            waits = submit(structure_jobs(group, with_separability=with_separability))
            if chance > 0:
                simulated[name] = chance_draws(group, _context_keys(group), n_sims=chance, store=store,
                                               contexts=chance_scope != "stability", slow=chance_scope == "all")
            fitted[name] = [wait() for wait in waits]
    models = {}
    for name, group in groups:
        doc = model_metrics(group, fitted=fitted[name], **kwargs) | selection.document(str(name))
        plans = [store.get_run(r)["plan"] for r in dict.fromkeys(group["run_id"])]
        doc["persona_scores"] = persona_value_scores(group, plan_descriptions(plans))
        doc["imported"] = imported_notes(plans)
        if chance > 0:
            doc["chance"] = summarize_draws(doc, simulated[name])
        models[name] = doc
    return _clean({"models": models})


def imported_notes(plans: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """What each imported run of a model's configuration says of itself (source, citation, whether its text is
    bundled, RoleScope's reading against the source's own parsed answers, and a re-test whose replies repeat the first
    asking's byte for byte): read from the plans the importer wrote, never recomputed."""
    keys = ("source", "kind", "citation", "text_bundled", "text_note", "key", "summary", "reader_agreement",
            "retest_identical_replies")
    return [{k: plan.get(k) for k in keys if k in plan} for plan in plans if plan.get("imported")]


def persona_value_scores(answers: pd.DataFrame, descriptions: Mapping[str, str]) -> dict[str, Any]:
    """Each persona's 10 value scores (``analysis.persona_scores``): the centred (ipsatised) score, Schwartz's
    recommended score for correlations with other variables (Schwartz 2003, "Computing scores for the 10 human
    values"), averaged over the configuration's contexts. ``descriptions``: persona id -> its description (the plans')."""
    from analysis.methods.values import VALUES

    scores = value_scores(answers)
    wide = scores.pivot_table(index="persona_id", columns="value", values="ipsatised", aggfunc="mean", dropna=False)
    wide = wide.reindex(columns=[v for v in VALUES if v in wide.columns]).reset_index()
    wide["description"] = [descriptions.get(str(p)) for p in wide["persona_id"]]
    return persona_scores_doc(wide, {v: v for v in VALUES if v in wide.columns})


def values_chance(store: Store, metrics: Mapping[str, Any], config: comparable.Chosen = None, *, n_sims: int,
                  seed: int = 0, model: str | None = None, **kwargs: Any) -> dict[str, Any]:
    """``{model: chance document}`` for a ``values_metrics`` document already computed (its numbers are the
    observed values), on the same answers (``latest_answers``); ``kwargs`` go to ``model_chance`` (``fast``,
    ``slow``)."""
    answers = latest_answers(store, model, config=config)
    return _clean({name: model_chance(group, metrics["models"][name], _context_keys(group), n_sims=n_sims, seed=seed,
                                      store=store, **kwargs)
                   for name, group in (answers.groupby("model", sort=True) if len(answers) else [])
                   if name in metrics["models"]})


def values_leaderboard(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """Leaderboard document from a ``values_metrics`` document."""
    models = metrics["models"]
    if not models:
        return {"rows": [], "columns": [], "kendall_w": None, "diversity": None, "sensitivity": {},
                "failure_scoring": leaderboard.FAILURE_NOTE}
    # Rows by model name (as values_metrics lists them, whatever order a stored document kept): the reference's
    # ordinal-sensitivity split takes the first M//5 rows of its table, so the row order is part of the method.
    table = leaderboard.column_table(dict(sorted(models.items())))
    doc = leaderboard.leaderboard(table).to_dict()  # ordinal sensitivity: L = first M//5 models by name
    for row in doc["rows"]:  # CFA fits its columns score by the failure rule (CFI 0, TLI 0, RMSEA 1, SRMR 1), of how many
        contexts = [c for c in (models[row["model"]].get("contexts") or {}).values()  # scored contexts only: not one
                    if c.get("stress") is not None and not cfa.not_fitted(c.get("cfa") or {})]  # with too few personas
        fits = [g for c in contexts for g in (c.get("cfa") or {}).values()]
        row["cfa_failed"], row["cfa_fits"] = sum(1 for g in fits if not g.get("converged")), len(fits)
    doc["failure_scoring"] = leaderboard.FAILURE_NOTE  # the mark of the scored columns (cfi, srmr, rmsea, CFI:ctx …)
    doc["column_table"] = frame_doc(table.rename_axis("model").reset_index())  # models × columns, as the board scores them
    return _clean(doc)


def values_report(store: Store, model: str | None = None, *, config: comparable.Chosen = None, n_boot: int = N_BOOT,
                  chance: int = 0, chance_scope: str = "all") -> dict[str, Any]:
    """The values report: ``values_metrics`` with the ``leaderboard`` of its models (``values_leaderboard``), and
    per model its ``headlines`` (Cardinal score, rank-order stability) and ``counts`` (invalid answers)."""
    doc = values_metrics(store, model, config, n_boot=n_boot, chance=chance, chance_scope=chance_scope)
    doc["leaderboard"] = board = values_leaderboard(doc)
    # each bundled instrument's item wording, for the pages' hovers and Compare (empty for an instrument not bundled)
    instruments = {c["instrument"] for m in doc["models"].values() for c in (m.get("contexts") or {}).values()}
    doc["item_texts"] = {i: bundled_wording(i) for i in sorted(instruments)}
    cardinal = {row["model"]: row.get("cardinal") for row in board["rows"]}
    covered = {row["model"]: row.get("n_columns") for row in board["rows"]}
    for name, m in doc["models"].items():
        few = len(m.get("contexts") or {}) < 2
        m["headlines"] = {  # Cardinal: the mean of the model's defined leaderboard columns (coverage: how many)
            "values_cardinal": number(cardinal.get(name), "no leaderboard column is defined for this model",
                                      n=covered.get(name) or 0, of=len(board.get("columns") or []),
                                      unit="leaderboard columns"),
            "values_rank_order": number(m.get("rank_order"), "needs answers in 2 or more contexts" if few
                                        else "undefined: value scores constant within a context"),
        }
        m["counts"] = [counts("invalid answers", m["invalid"], m["n_answers"])]
        # why its numbers cannot stand beside the published leaderboard's (None: they can)
        m["off_protocol"] = off_protocol(m)
    return doc


def report(store: Store, model: str | None = None, *, config: comparable.Chosen = None, n_boot: int = N_BOOT,
           chance: int = 0) -> dict[str, Any]:
    """``Method.report``: ``values_report`` with the nulls the pages show up front (``chance_scope="fast"``)."""
    return values_report(store, model, config=config, n_boot=n_boot, chance=chance, chance_scope="fast")


