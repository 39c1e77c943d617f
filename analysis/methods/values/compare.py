"""Comparing two models' values numbers (paired over shared personas), and the pages' display frames.

- ``compare_values``: two models' headlines with paired bootstrap CIs of the differences;
- ``item_gaps``, ``persona_gaps``: where two models differ most (``where_they_differ``: Compare's tables).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis import stats
from analysis.methods.base import Difference, difference, too_few_units
from analysis.methods.values import VALUES, stability

N_BOOT = 1000


def _f(x: Any) -> float:
    return float("nan") if x is None else float(x)


def values_fit_chance(store: Any, values_metrics: Mapping[str, Any], model: str, key: str, n_sims: int, *,
                      config: Any = None) -> dict[str, Any]:
    """Null bands of separability and the CFA fit for one model × context (``{metric: {kind: summary}}``)."""
    from analysis.methods.values.metrics import values_chance

    doc = values_chance(store, values_metrics, config, n_sims=n_sims, model=model, fast=False, slow=key)
    return ((doc.get(model) or {}).get("contexts") or {}).get(key, {})


def context_scores(answers: pd.DataFrame) -> pd.DataFrame:
    """One model's value scores (long table, ``scores.value_scores``) from its answers (``answers.latest_answers``),
    contexts named by their display keys (as in the report)."""
    from analysis.methods.values.metrics import _context_keys
    from analysis.methods.values.scores import value_scores

    if answers.empty:
        return pd.DataFrame(columns=["model", "context", "instrument", "persona_id", "value", "score", "ipsatised"])
    keys = _context_keys(answers)
    scores = value_scores(answers)
    scores["context"] = [keys[(c, i)] for c, i in zip(scores["context"], scores["instrument"])]
    if "persona" in answers:  # who each persona_id is, so two models pair by identity (compare_values)
        names = answers.drop_duplicates("persona_id").set_index("persona_id")["persona"]
        scores["persona"] = scores["persona_id"].map(names)
    return scores


def _same_people(scores_a: pd.DataFrame, scores_b: pd.DataFrame) -> np.ndarray:
    """persona_ids that are the same persona on both sides: the id and the persona's name agree (ids alone would pair
    two populations by position)."""
    ids = np.intersect1d(scores_a["persona_id"].unique(), scores_b["persona_id"].unique())
    if "persona" not in scores_a or "persona" not in scores_b:
        return ids
    na = scores_a.drop_duplicates("persona_id").set_index("persona_id")["persona"]
    nb = scores_b.drop_duplicates("persona_id").set_index("persona_id")["persona"]
    return np.array([i for i in ids if na.get(i) == nb.get(i)])


def _shared_contexts(scores_a: pd.DataFrame, scores_b: pd.DataFrame) -> list[str]:
    return [c for c in dict.fromkeys(scores_a["context"]) if c in set(scores_b["context"])]


def compare_values(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any], scores_a: pd.DataFrame, scores_b: pd.DataFrame,
                   board_rows: Mapping[str, Mapping[str, Any]] | None = None, names: tuple[str, str] = ("A", "B"),
                   *, n_boot: int = N_BOOT, seed: int = 0) -> list[Difference]:
    """Values headlines of two models: Cardinal (no CI), rank-order and ipsative stability (paired bootstrap
    over shared personas, on the contexts both have), mean Stress / CFI / CV separability (no CI). A model with a
    failed CFA fit in a shared context has no mean CFI: that row's side and A − B are undefined (NaN) with the reason,
    never a failed fit subtracted as CFI 0."""
    from analysis.methods.values.leaderboard import FAILURE_NOTE  # scipy: only when comparing

    out: list[Difference] = []
    board_rows = board_rows or {}
    if names[0] in board_rows and names[1] in board_rows:
        ra, rb = board_rows[names[0]], board_rows[names[1]]
        scored = any(r.get("cfa_failed") for r in (ra, rb))
        na, nb = ra.get("n_columns"), rb.get("n_columns")
        if na != nb:  # each model's Cardinal is the mean of its own columns: no common footing
            out.append(Difference("Values", "Cardinal score", _f(ra.get("cardinal")), _f(rb.get("cardinal")), float("nan"),
                                  note=f"A − B undefined: A is scored over {na} leaderboard columns, B over {nb}; the "
                                       "rows below compare the contexts both have", key="values_cardinal"))
        else:
            out.append(difference("Values", "Cardinal score", ra.get("cardinal"), rb.get("cardinal"),
                                  note=f"leaderboard score over {na} columns each" + (
                                      f"; {FAILURE_NOTE}" if scored else "") + "; not bootstrapped", key="values_cardinal"))
    shared = _shared_contexts(scores_a, scores_b)
    personas = _same_people(scores_a, scores_b)
    # the headline itself when both models answered exactly these contexts and personas (its report's units)
    whole = (set(shared) == set(scores_a["context"]) == set(scores_b["context"])
             and set(personas) == set(scores_a["persona_id"]) == set(scores_b["persona_id"]))
    if len(shared) >= 2 and personas.size >= 3:
        sa = scores_a[scores_a["context"].isin(shared) & scores_a["persona_id"].isin(personas)]
        sb = scores_b[scores_b["context"].isin(shared) & scores_b["persona_id"].isin(personas)]
        for metric, label in (("rank_order", "Rank-order stability"), ("ipsative", "Ipsative stability")):
            try:
                ci = stability.stability_diff_ci(sa, sb, metric=metric, n_boot=n_boot, seed=seed)
            except ValueError:
                continue
            est = {"rank_order": stability.rank_order_stability, "ipsative": stability.ipsative_stability}[metric]
            a = est(sa[sa["persona_id"].isin(personas)])
            b = est(sb[sb["persona_id"].isin(personas)])
            too_few = too_few_units(int(personas.size), "personas")
            out.append(difference("Values", label, a, b, None if too_few else ci, too_few or
                                  f"paired bootstrap over {personas.size} shared personas, {len(shared)} shared contexts",
                                  key="values_rank_order" if metric == "rank_order" and whole else None))
    ctx_a, ctx_b = doc_a.get("contexts") or {}, doc_b.get("contexts") or {}
    common = [c for c in ctx_a if c in ctx_b]
    for key, label in (("stress", "Stress (lower is better)"), ("cfi", "CFI"), ("separability", "Separability (CV accuracy)")):
        if key == "cfi":
            if common:
                out.append(_mean_fit(ctx_a, ctx_b, common, f"{label}, mean over {len(common)} contexts"))
            continue
        va = [_f(ctx_a[c].get(key)) for c in common]
        vb = [_f(ctx_b[c].get(key)) for c in common]
        if common and any(map(math.isfinite, va)) and any(map(math.isfinite, vb)):
            out.append(difference("Values", f"{label}, mean over {len(common)} contexts", np.nanmean(va), np.nanmean(vb)))
    return out


def _mean_fit(ctx_a: Mapping[str, Any], ctx_b: Mapping[str, Any], common: list[str], metric: str) -> Difference:
    """Mean CFI over the shared contexts of each side, undefined on a side where a context's CFI is (a failed fit:
    the report's ``cfa_reason``); A − B only when both are defined, else NaN with each undefined side's reason."""
    means, reasons = [], []
    for side, ctx in (("A", ctx_a), ("B", ctx_b)):
        why = [f"{c}: {ctx[c].get('cfa_reason') or ctx[c].get('error') or 'CFI undefined'}"
               for c in common if ctx[c].get("cfi") is None]
        means.append(float("nan") if why else float(np.mean([_f(ctx[c]["cfi"]) for c in common])))
        if why:
            reasons.append(f"{side}: no CFI (a failed fit is undefined, not 0) — " + "; ".join(why))
    if reasons:
        return Difference("Values", metric, means[0], means[1], float("nan"), note="; ".join(reasons))
    return difference("Values", metric, means[0], means[1])


def item_gaps(answers_a: pd.DataFrame, answers_b: pd.DataFrame) -> pd.DataFrame:
    """Per context x item: mean valid score of each model over the personas both answered, and A − B,
    sorted by |A − B| (largest first)."""
    cols = ["context", "instrument", "item_id", "value", "a", "b", "diff", "n_personas"]

    def means(answers: pd.DataFrame) -> pd.DataFrame:
        rows = answers[(answers["stage"] == "item") & (answers["valid"] == 1)]
        return rows.groupby(["context", "instrument", "item_id", "persona_id"], as_index=False).agg(
            value=("value", "first"), score=("score", "mean"))

    ma, mb = means(answers_a), means(answers_b)
    if ma.empty or mb.empty:
        return pd.DataFrame(columns=cols)
    both = ma.merge(mb, on=["context", "instrument", "item_id", "persona_id"], suffixes=("_a", "_b"))
    if both.empty:
        return pd.DataFrame(columns=cols)
    out = both.groupby(["context", "instrument", "item_id"], as_index=False).agg(
        value=("value_a", "first"), a=("score_a", "mean"), b=("score_b", "mean"), n_personas=("persona_id", "nunique"))
    out["diff"] = out["a"] - out["b"]
    return out.reindex(out["diff"].abs().sort_values(ascending=False, kind="stable").index)[cols].reset_index(drop=True)


def persona_gaps(scores_a: pd.DataFrame, scores_b: pd.DataFrame) -> pd.DataFrame:
    """Per persona x context: mean |A − B| of the ipsatised value scores and the Spearman between the two
    models' value profiles, sorted by the mean gap (largest first)."""
    cols = ["persona_id", "context", "mean_abs_gap", "profile_spearman", "n_values"]
    keys = ["persona_id", "context", "value"]
    both = scores_a[keys + ["ipsatised"]].merge(scores_b[keys + ["ipsatised"]], on=keys, suffixes=("_a", "_b")).dropna()
    if both.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for (pid, ctx), g in both.groupby(["persona_id", "context"], sort=False):
        rho = stats.spearman(g["ipsatised_a"].to_numpy(), g["ipsatised_b"].to_numpy())
        rows.append({"persona_id": pid, "context": ctx, "mean_abs_gap": float((g["ipsatised_a"] - g["ipsatised_b"]).abs().mean()),
                     "profile_spearman": float(rho), "n_values": int(len(g))})
    out = pd.DataFrame(rows, columns=cols)
    return out.sort_values("mean_abs_gap", ascending=False, kind="stable").reset_index(drop=True)


def compare_sides(a: Any, b: Any, *, n_boot: int = 1000) -> list[Difference]:
    """``Method.compare``: the two sides' headlines and leaderboard rows with paired CIs over their shared personas."""
    from analysis.methods.values.answers import latest_answers

    rows = [{r["model"]: r for r in side.report["leaderboard"]["rows"]}.get(side.model) for side in (a, b)]
    board = {name: row for name, row in zip(("A", "B"), rows) if row}
    sa, sb = (context_scores(latest_answers(s.store, s.model, config=s.config)) for s in (a, b))
    return compare_values(a.doc, b.doc, sa, sb, board, ("A", "B"), n_boot=n_boot)


def where_they_differ(a: Any, b: Any) -> dict[str, dict[str, Any]]:
    """``Method.gaps``: the value items (``item_gaps``, with the item's wording where the instrument is bundled) and
    personas (``persona_gaps``, with the persona's name) where the two sides differ most, as frame documents."""
    from analysis.methods.base import frame_doc
    from analysis.methods.values.instruments import bundled_wording
    from analysis.methods.values.answers import latest_answers

    answers = [latest_answers(s.store, s.model, config=s.config) for s in (a, b)]
    scores = [context_scores(x) for x in answers]
    items = item_gaps(*answers)
    texts = {k: v for inst in items["instrument"].unique() for k, v in bundled_wording(str(inst)).items()}
    items.insert(4, "text", items["item_id"].astype(str).map(texts) if texts else None)
    people = persona_gaps(*scores)
    if "persona" in answers[0] and len(people):
        names = answers[0].drop_duplicates("persona_id").set_index("persona_id")["persona"]
        people.insert(1, "persona", people["persona_id"].map(names))
    return {"items": frame_doc(items), "personas": frame_doc(people)}

