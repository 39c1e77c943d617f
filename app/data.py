"""Cached reads of a store and the ``analysis`` computations the pages draw.

Every function takes a ``StoreRef`` (path, read-only flag, content signature) so results are
recomputed exactly when the store changes (a finished run, an import). Expensive metric
documents are also kept on disk (``app.cache``) so a restarted server paints at once.
Nothing here computes a metric itself: it calls ``analysis`` and reshapes for display.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import pandas as pd
import streamlit as st

from app.cache import cached_json
from app.stores import StoreRef, open_store

N_BOOT = int(os.environ.get("ROLESCOPE_N_BOOT", "1000"))
#: Simulations per null model behind every chance band (``analysis.chance``).
#: (``analysis.chance.DEFAULT_SIMS``, which the bundled demo caches; not imported here to keep a warm start light)
CHANCE_SIMS = int(os.environ.get("ROLESCOPE_CHANCE_SIMS", "100"))
CACHE = {"show_spinner": False, "max_entries": 64}


def _store(ref: StoreRef):
    return open_store(ref.path, ref.read_only)


def _configs(ref: StoreRef) -> str:
    """The chosen configurations as a disk-cache key part (empty when every model shows its latest)."""
    return f"|config={sorted(ref.configs)}" if ref.configs else ""


@st.cache_data(**CACHE)
def configurations(ref: StoreRef) -> dict[str, dict[str, dict[str, list[Any]]]]:
    """method -> family -> model -> its configurations (``analysis.runs.comparable``), newest first."""
    from analysis.runs import comparable

    frame = comparable.store_runs(_store(ref))
    return {method: {family: comparable.configurations(frame, method, family) for family in families}
            for method, families in comparable.FAMILIES.items()}


# -- runs and tables ------------------------------------------------------------------------------
@st.cache_data(**CACHE)
def runs(ref: StoreRef) -> pd.DataFrame:
    frame = _store(ref).runs()
    for col in ("created_at", "finished_at"):
        frame[col] = pd.to_datetime(frame[col], unit="s", utc=True).dt.tz_convert(None).dt.floor("s")
    return frame


@st.cache_data(**CACHE)
def throughput(ref: StoreRef, model: str, method: str):
    """What the newest earlier run of ``model`` measured (``analysis.runs.estimate.measured_throughput``), or None."""
    from analysis.runs.estimate import measured_throughput

    return measured_throughput(_store(ref), model, method)


@st.cache_data(**CACHE)
def run_record(ref: StoreRef, run_id: str) -> dict[str, Any]:
    """One run with its parsed model spec and plan (``Store.get_run``)."""
    return _store(ref).get_run(run_id)


@st.cache_data(**CACHE)
def table_sizes(ref: StoreRef) -> dict[str, int]:
    store = _store(ref)
    return {name: int(store.query_one(f'SELECT COUNT(*) AS n FROM "{name}"')["n"]) for name in sorted(store.table_names())}


@st.cache_data(**CACHE)
def table(ref: StoreRef, name: str) -> pd.DataFrame:
    return _store(ref).table(name)


@st.cache_data(**CACHE)
def call_record(ref: StoreRef, cache_key: str) -> dict[str, Any] | None:
    """The stored call (request JSON parsed, reply, logprobs, tokens, latency, cost) for a cache key."""
    row = _store(ref).query_one("SELECT * FROM calls WHERE cache_key=?", (cache_key,))
    if row is None:
        return None
    row["request"] = json.loads(row["request"])
    row["logprobs"] = json.loads(row["logprobs"]) if row.get("logprobs") else None
    return row


@st.cache_data(**CACHE)
def failures(ref: StoreRef, run_id: str) -> pd.DataFrame:
    return _store(ref).frame("SELECT unit, error, attempts, created_at FROM call_failures WHERE run_id=? ORDER BY id", (run_id,))


def models_in(ref: StoreRef) -> list[str]:
    frame = runs(ref)
    return sorted(frame["model"].dropna().unique()) if len(frame) else []


# -- every method's report ------------------------------------------------------------------------
@st.cache_data(**CACHE)
def report(ref: StoreRef, method: str) -> dict[str, Any]:
    """The method's report for this store (``Method.report``): every number its pages, the Overview and Compare show."""
    def compute() -> dict[str, Any]:
        from analysis import methods  # a method's metrics import scipy & co.: only on a cache miss

        return methods.get(method).report(_store(ref), config=ref.chosen(method), n_boot=N_BOOT)

    return cached_json(method, ref.path, ref.signature, compute, f"n_boot={N_BOOT}{_configs(ref)}")


def present_methods(ref: StoreRef) -> list[Any]:
    """The methods (``analysis.methods.base.Method``) with answers in this store, in display order."""
    from analysis import methods

    sizes = table_sizes(ref)
    return [m for m in methods.all_methods() if m.has_data(sizes)]


def values_doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "values")


def values_board(ref: StoreRef) -> dict[str, Any]:
    """Leaderboard document (Cardinal, Ordinal, group means, diversity, sensitivity): the values report's."""
    return values_doc(ref)["leaderboard"]


@st.cache_data(**CACHE)
def values_answers(ref: StoreRef, model: str | None = None) -> pd.DataFrame:
    from analysis.methods.values.metrics import latest_answers

    return latest_answers(_store(ref), model, config=ref.chosen("values"))


def values_models(ref: StoreRef) -> list[str]:
    answers = values_answers(ref)
    return sorted(answers["model"].unique()) if len(answers) else []


@st.cache_data(**CACHE)
def context_keys(ref: StoreRef, model: str) -> dict[str, tuple[str, str]]:
    """Display key (as in the metrics document) -> (context, instrument) for one model's answers."""
    from analysis.methods.values.metrics import _context_keys

    answers = values_answers(ref, model)
    return {key: pair for pair, key in _context_keys(answers).items()} if len(answers) else {}


@st.cache_data(**CACHE)
def values_scores(ref: StoreRef, model: str) -> pd.DataFrame:
    """One model's value scores (long table) with contexts named by their display keys."""
    from analysis.methods.values.compare import context_scores

    return context_scores(values_answers(ref, model))


@st.cache_data(**CACHE)
def structure(ref: StoreRef, model: str, key: str) -> dict[str, Any]:
    """Circumplex layout and centroids, Stress, CFA fits and loadings, separability of one model x context, as the
    values report holds them (nothing is refitted); only the random-start Stress is computed here."""
    from analysis.methods.base import doc_frame

    context, instrument = context_keys(ref, model)[key]
    doc = values_doc(ref)["models"][model]["contexts"][key]
    figures = doc["figures"]
    cfa = pd.DataFrame([{"group": g, **fit} for g, fit in (doc.get("cfa") or {}).items()],
                       columns=["group", "n", "chi2", "df", "cfi", "tli", "rmsea", "srmr", "converged", "reason"])
    return {
        "context": context,
        "instrument": instrument,
        "error": doc["error"],
        "stress": doc["stress"],
        "layout": doc_frame(figures["layout"]),
        "centroids": doc_frame(figures["centroids"]),
        "rank_distance": doc["order_distance"],
        "observed_order": figures["observed_order"],
        "cfa": cfa,
        "loadings": doc_frame(figures["loadings"]),
        "separability": figures["separability"],
        "movement": doc_frame(figures["movement"]),
        "random_start_stress": random_start_stress(ref, model, key) if figures["layout"] else None,
        "reliability": doc.get("reliability") or {},
    }


@st.cache_data(**CACHE)
def random_start_stress(ref: StoreRef, model: str, key: str) -> float:
    """Lowest Stress of MDS from random starts on one model x context (``analysis.methods.values.chance``)."""
    from analysis.methods.values import chance as values_chance
    from analysis.methods.values.scores import item_matrix

    context, instrument = context_keys(ref, model)[key]
    answers = values_answers(ref, model)
    sub = answers[(answers["context"] == context) & (answers["instrument"] == instrument)]
    keyed = {k: v for k, v in zip(sub["item_id"].astype(str), sub["value"]) if isinstance(v, str) and v}
    return values_chance.random_start_stress(item_matrix(sub, context=context, instrument=instrument), keyed)


@st.cache_data(**CACHE)
def item_texts(instrument: str) -> dict[str, str]:
    """item_id -> wording for an instrument the app can load (the bundled pvq-rs); empty otherwise."""
    from analysis.methods.values.instruments import load_instrument

    names = {"pvq-rs": "pvq", "pvq": "pvq"}
    if instrument not in names:
        return {}
    try:
        inst = load_instrument(names[instrument])
    except Exception:  # noqa: BLE001 - a missing instrument only means no hover text
        return {}
    return {i.id: i.wording("male") for i in inst.items}


@st.cache_data(**CACHE)
def stability(ref: StoreRef, model: str) -> dict[str, Any]:
    """Context x context rank-order matrix, per-value stability with CIs, ipsative per persona."""
    from analysis.methods.values import compare
    from analysis.methods.values import stability as stab

    scores = values_scores(ref, model)
    contexts = list(dict.fromkeys(scores["context"]))
    if len(contexts) < 2:
        return {"contexts": contexts, "matrix": None, "by_value": None, "ipsative": None}
    return {
        "contexts": contexts,
        "matrix": stab.rank_order_matrix(scores),
        "by_value": compare.rank_order_by_value_ci(scores, n_boot=N_BOOT),
        "ipsative": compare.ipsative_by_persona(scores),
    }


@st.cache_data(**CACHE)
def personas_of(ref: StoreRef, model: str) -> pd.DataFrame:
    answers = values_answers(ref, model)
    if answers.empty:
        return pd.DataFrame(columns=["persona_id", "persona", "gender"])
    cols = [c for c in ("persona_id", "persona", "gender") if c in answers]
    return answers[cols].drop_duplicates("persona_id").sort_values("persona_id").reset_index(drop=True)


# -- MBTI -----------------------------------------------------------------------------------------
def mbti_doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "mbti")


@st.cache_data(**CACHE)
def mbti_answers(ref: StoreRef, model: str | None = None) -> pd.DataFrame:
    """The answers the MBTI metrics use: each model's chosen configuration (``analysis.methods.mbti.report.selected_answers``)."""
    from analysis.methods.mbti.report import selected_answers

    return selected_answers(_store(ref), model, config=ref.chosen("mbti")).reset_index(drop=True)


@st.cache_data(**CACHE)
def mbti_testings(ref: StoreRef, model: str) -> pd.DataFrame:
    from analysis.methods.mbti.scoring import scores_by_testing

    return scores_by_testing(mbti_answers(ref, model))


@st.cache_data(**CACHE)
def mbti_distribution(ref: StoreRef, model: str, subject: str, order_mode: str) -> pd.DataFrame:
    from analysis.methods.mbti.metrics import answer_distribution

    answers = mbti_answers(ref, model)
    mine = answers[(answers["subject"] == subject) & (answers["order_mode"] == order_mode)]
    dist = answer_distribution(mine)
    text = mine.drop_duplicates("statement_id").set_index("statement_id")
    dist["statement"] = dist["statement_id"].map(text["statement"]) if len(text) else None
    dist["dimension"] = dist["statement_id"].map(text["dimension"]) if len(text) else None
    return dist


# -- trust and PersonaGym -------------------------------------------------------------------------
def trust_doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "trust")


def personagym_doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "personagym")


# -- chance bands (``analysis.chance``): per method, {model: chance document} ------------------------
@st.cache_data(**CACHE)
def chance(ref: StoreRef, method: str) -> dict[str, Any]:
    """Each model's null bands for ``method`` (``Method.chance``; observed numbers = its report's)."""
    def compute() -> dict[str, Any]:
        from analysis import methods

        return methods.get(method).chance(_store(ref), CHANCE_SIMS, config=ref.chosen(method), report=report(ref, method))

    return cached_json(f"chance-{method}", ref.path, ref.signature, compute, f"sims={CHANCE_SIMS}{_configs(ref)}")


@st.cache_data(**CACHE)
def values_fit_chance(ref: StoreRef, model: str, key: str) -> dict[str, Any]:
    """Null bands of separability and the CFA fit of one model × context (simulated on demand: ~0.5 s per draw)."""
    def compute() -> dict[str, Any]:
        from analysis.methods.values.compare import values_fit_chance

        return values_fit_chance(_store(ref), values_doc(ref), model, key, CHANCE_SIMS, config=ref.chosen("values"))

    return cached_json("chance-values", ref.path, ref.signature, compute, f"fit|{model}|{key}|sims={CHANCE_SIMS}{_configs(ref)}")


@st.cache_data(**CACHE)
def published(method: str | None = None) -> pd.DataFrame:
    """Bundled published figures (``analysis.published``): method, model, metric, value, better, source."""
    from analysis.published import published_rows

    return published_rows(method)


def headline_chance(ref: StoreRef) -> dict[str, dict[str, Any]]:
    """Per model, the null summary of each headline that has one (``Headline.null``), keyed by headline."""
    out: dict[str, dict[str, Any]] = {}
    for method in present_methods(ref):
        rep, bands = report(ref, method.name), chance(ref, method.name)
        for model, band in bands.items():
            for h in method.headlines:
                if h.null is not None:
                    entry = ((rep["models"].get(model) or {}).get("headlines") or {}).get(h.key) or {}
                    out.setdefault(model, {})[h.key] = h.null(band or {}, entry)
    return out


PAPER_SUFFIX = " · paper Table 1"


@st.cache_data(**CACHE)
def personagym_published(ref: StoreRef) -> dict[str, dict[str, Any]]:
    """Published PersonaGym scores: those imported into the store, and the paper's Table 1 bundled with RoleScope
    (named '<model> · paper Table 1'); each ``{"tasks", "persona_score", "source"}``."""
    out = {name: {**d, "source": "imported"} for name, d in (personagym_doc(ref).get("published") or {}).items()}
    rows = published("personagym")
    for name, group in rows.groupby("model", sort=False):
        by = dict(zip(group["metric"], group["value"]))
        out[name + PAPER_SUFFIX] = {"tasks": {k.split("/", 1)[1]: v for k, v in by.items() if k.startswith("task/")},
                                    "persona_score": by.get("persona_score"), "consistent": True,
                                    "source": group["source"].iloc[0]}
    return out


@st.cache_data(**CACHE)
def invalid_rates(ref: StoreRef) -> pd.DataFrame:
    """Per model × method × kind: the replies its report left out (``counts``: count, n, their share with a 95 % Wilson
    interval; undefined when n = 0)."""
    rows = [{"method": method.name, "model": model} | c
            for method in present_methods(ref) for model, doc in report(ref, method.name)["models"].items()
            for c in doc.get("counts", [])]
    return pd.DataFrame(rows, columns=["method", "model", "kind", "count", "n", "rate", "lo", "hi"]).astype(
        {"rate": float, "lo": float, "hi": float})


# -- across methods -------------------------------------------------------------------------------
def has_rows(ref: StoreRef, table_name: str) -> bool:
    return table_sizes(ref).get(table_name, 0) > 0


@st.cache_data(**CACHE)
def headlines(ref: StoreRef) -> pd.DataFrame:
    """One row per model × headline of every method in the store: ``model, method, key, label, value, reason``,
    read from each method's report (undefined: value None with its reason)."""
    rows = []
    for method in present_methods(ref):
        models = report(ref, method.name)["models"]
        for model, doc in models.items():
            for h in method.headlines:
                entry = (doc.get("headlines") or {}).get(h.key) or {"value": None, "reason": "not in the report"}
                rows.append({"model": model, "method": method.name, "key": h.key, "label": h.label,
                             "value": entry["value"], "reason": entry.get("reason")})
    return pd.DataFrame(rows, columns=["model", "method", "key", "label", "value", "reason"]).astype({"value": float})


@st.cache_data(**CACHE)
def compare(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str) -> pd.DataFrame:
    """Every method's numbers for model a (of store ``ref_a``) and b (of ``ref_b``, possibly another store): each
    headline as the reports hold it, then what the method's comparison adds, with paired bootstrap CIs of a − b where
    both answered the same units (``Method.compare``)."""
    from analysis.methods.base import Side, differences_frame

    diffs: list[Any] = []
    in_a = {m.name for m in present_methods(ref_a)}
    for method in [m for m in present_methods(ref_b) if m.name in in_a]:
        ra, rb = report(ref_a, method.name), report(ref_b, method.name)
        if a in ra["models"] and b in rb["models"]:
            diffs += method.compare(Side(_store(ref_a), a, ref_a.chosen(method.name), ra),
                                    Side(_store(ref_b), b, ref_b.chosen(method.name), rb), n_boot=N_BOOT)
    return differences_frame(_headlines_first(ref_a, a, ref_b, b, diffs))


def _headlines_first(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, diffs: list[Any]) -> list[Any]:
    """Every headline of the methods both models have, A and B exactly as their reports hold them (undefined: NaN,
    its reason in the note) and A − B, with the paired CI of the method's comparison when it estimated these very two
    numbers (both answered the same units); then the comparison's other rows (a paired row on fewer units stays,
    labelled; one with an undefined side goes: the headline row says why)."""
    from analysis.methods.base import Difference, headline

    nan, out, used = float("nan"), [], set()
    in_a = {m.name for m in present_methods(ref_a)}
    for method in [m for m in present_methods(ref_b) if m.name in in_a]:
        ra, rb = report(ref_a, method.name), report(ref_b, method.name)
        if a not in ra["models"] or b not in rb["models"]:
            continue
        for h in method.headlines:
            ea, eb = headline(ra, a, h.key), headline(rb, b, h.key)
            va, vb = ea["value"], eb["value"]
            defined = va is not None and vb is not None
            row = Difference(method.label, h.label, nan if va is None else va, nan if vb is None else vb,
                                   va - vb if defined else nan, note="no paired CI" if defined else "; ".join(
                                       f"{side}: {e['reason']}" for side, e in (("A", ea), ("B", eb)) if e["value"] is None))
            for i, d in enumerate(diffs):
                if d.method != method.label or not h.paired or not d.metric.startswith(h.paired):
                    continue
                if defined and abs(d.a - va) < 1e-6 and abs(d.b - vb) < 1e-6:
                    used.add(i)
                    row = Difference(row.method, row.metric, va, vb, va - vb, d.lo, d.hi, d.note)
                    break
                if not (math.isfinite(d.a) and math.isfinite(d.b)):
                    used.add(i)
            out.append(row)
    return out + [d for i, d in enumerate(diffs) if i not in used]


@st.cache_data(**CACHE)
def values_columns(ref: StoreRef) -> pd.DataFrame:
    """Models x leaderboard columns (RO:a|b, 1-Stress:ctx, CFI:ctx, 1-SRMR:ctx, 1-RMSEA:ctx)."""
    def compute() -> dict[str, Any]:
        from analysis.methods.values.leaderboard import column_table  # scipy: only on a cache miss

        models = values_doc(ref)["models"]
        table = column_table(models) if models else pd.DataFrame()
        return json.loads(table.to_json(orient="split"))

    doc = cached_json("columns", ref.path, ref.signature, compute, f"n_boot={N_BOOT}{_configs(ref)}")
    return pd.DataFrame(doc["data"], index=doc["index"], columns=doc["columns"], dtype=float)


@st.cache_data(**CACHE)
def model_specs(ref: StoreRef) -> dict[str, dict[str, Any]]:
    """Model name -> the public model spec of its newest run (plans are not read: they can be large)."""
    frame = _store(ref).frame("SELECT model, model_spec FROM runs ORDER BY created_at")
    return {m: json.loads(s) for m, s in zip(frame["model"], frame["model_spec"])}


def mbti_models(ref: StoreRef) -> list[str]:
    return sorted(mbti_doc(ref)["models"]) if has_rows(ref, "mbti_answers") else []


@st.cache_data(**CACHE)
def mbti_spread(ref: StoreRef, model: str) -> dict[str, dict[str, float]]:
    from analysis.methods.mbti.compare import mbti_subject_spread

    return mbti_subject_spread(mbti_testings(ref, model))


@st.cache_data(**CACHE)
def gaps(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str) -> dict[str, pd.DataFrame]:
    """Where model a (store ``ref_a``) and b (store ``ref_b``) differ most: values items and personas, MBTI
    statements (matched by persona id / item / statement, as both were asked)."""
    from analysis.methods.mbti.compare import statement_gaps
    from analysis.methods.values.compare import item_gaps, persona_gaps

    out: dict[str, pd.DataFrame] = {}
    if a in _values_models(ref_a) and b in _values_models(ref_b):
        out["items"] = item_gaps(values_answers(ref_a, a), values_answers(ref_b, b))
        out["personas"] = persona_gaps(values_scores(ref_a, a), values_scores(ref_b, b))
    if a in mbti_models(ref_a) and b in mbti_models(ref_b):
        out["statements"] = statement_gaps(mbti_answers(ref_a, a), mbti_answers(ref_b, b))
    return out


def _values_models(ref: StoreRef) -> set[str]:
    return set(values_models(ref)) if has_rows(ref, "values_answers") else set()


@st.cache_data(**CACHE)
def value_means(ref: StoreRef, model: str) -> pd.DataFrame:
    from analysis.methods.values.compare import value_means

    return value_means(values_scores(ref, model))


@st.cache_data(**CACHE)
def leaderboard_rows(ref: StoreRef) -> pd.DataFrame:
    """Leaderboard rows of every model joined with its stability CIs, invalid share and persona count."""
    doc, board = values_doc(ref)["models"], values_board(ref)
    rows = pd.DataFrame(board["rows"])
    if rows.empty:
        return rows
    for key in ("rank_order", "ipsative"):
        ci = {m: (doc[m].get("ci") or {}).get(key) or {} for m in rows["model"]}
        rows[key] = [doc[m].get(key) for m in rows["model"]]
        rows[f"{key}_lo"] = [ci[m].get("lo") for m in rows["model"]]
        rows[f"{key}_hi"] = [ci[m].get("hi") for m in rows["model"]]
    rows["invalid_share"] = [doc[m]["invalid"] / max(1, doc[m]["n_answers"]) for m in rows["model"]]
    rows["personas"] = [doc[m]["n_personas"] for m in rows["model"]]
    numeric = [c for c in rows.columns if c not in ("model", "n_columns", "personas")]
    return rows.astype({c: float for c in numeric})


def trust_models(ref: StoreRef) -> list[str]:
    tables = ("trust_transfers", "trust_beliefs", "trust_rounds")
    return sorted(trust_doc(ref)["models"]) if any(has_rows(ref, t) for t in tables) else []


def personagym_models(ref: StoreRef) -> list[str]:
    tables = ("personagym_questions", "personagym_answers", "personagym_grades", "personagym_published")
    return sorted(personagym_doc(ref)["models"]) if any(has_rows(ref, t) for t in tables) else []


@st.cache_data(**CACHE)
def personagym_persona(ref: StoreRef, model: str, persona: str) -> pd.DataFrame:
    """One persona's questions, answers and grades (one row per task x question x evaluator)."""
    used = [c for c in (personagym_doc(ref)["models"].get(model) or {}).get("configurations", []) if c["used"]]
    runs_used = set(used[0]["runs"]) if used else set()
    answers = table(ref, "personagym_answers")
    grades = table(ref, "personagym_grades")
    answers, grades = answers[answers["run_id"].isin(runs_used)], grades[grades["run_id"].isin(runs_used)]
    a = answers[(answers["model"] == model) & (answers["persona"] == persona)]
    g = grades[(grades["model"] == model) & (grades["persona"] == persona)]
    keys = ["run_id", "task", "q_index"]
    cols = [*keys, "question", "answer", "status", "refusal", "truncated", "reason", "cache_key"]
    gcols = [*keys, "evaluator", "score", "status", "raw", "n_examples"]
    out = a[[c for c in cols if c in a]].merge(
        g[[c for c in gcols if c in g]].rename(columns={"status": "grade_status", "raw": "grader_reply"}),
        on=keys, how="left")
    from analysis.methods.personagym import TASKS

    order = {t: i for i, t in enumerate(TASKS)}
    return out.sort_values(["task", "q_index"], key=lambda s: s.map(order) if s.name == "task" else s).reset_index(drop=True)
