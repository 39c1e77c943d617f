"""Cached reads of a store and the ``analysis`` computations the pages draw.

Every function takes a ``StoreRef`` (path, read-only flag, content signature) so results are
recomputed exactly when the store changes (a finished run, an import). A method's report and chance bands are kept in
the store they describe (``analysis.report_cache``; a read-only store's in its side store), so a restarted server
paints at once; the bundled demo ships with its default ones. Nothing here computes a metric itself: it calls
``analysis`` and reshapes for display.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import pandas as pd
import streamlit as st

from app.stores import StoreRef, open_store

N_BOOT = int(os.environ.get("ROLESCOPE_N_BOOT", "1000"))
#: Simulations per null model behind every chance band (``analysis.chance``).
#: (``analysis.chance.DEFAULT_SIMS``, which the bundled demo caches; not imported here to keep a warm start light)
CHANCE_SIMS = int(os.environ.get("ROLESCOPE_CHANCE_SIMS", "100"))
CACHE = {"show_spinner": False, "max_entries": 64}


def _store(ref: StoreRef):
    return open_store(ref.path, ref.read_only)


@st.cache_data(**CACHE)
def configurations(ref: StoreRef) -> dict[str, dict[str, dict[str, list[Any]]]]:
    """method -> family -> model -> its configurations (``analysis.runs.comparable``), newest first."""
    from analysis import methods
    from analysis.runs import comparable

    frame = comparable.store_runs(_store(ref))
    return {m.name: {f.name: comparable.configurations(frame, f) for f in m.families} for m in methods.all_methods()}


# -- runs and tables ------------------------------------------------------------------------------
@st.cache_data(**CACHE)
def runs(ref: StoreRef) -> pd.DataFrame:
    frame = _store(ref).runs()
    for col in ("created_at", "finished_at"):
        frame[col] = pd.to_datetime(frame[col], unit="s", utc=True).dt.tz_convert(None).dt.floor("s")
    return frame


@st.cache_data(**CACHE)
def past_latency(ref: StoreRef, model: str):
    """The median latency of ``model``'s past calls (``analysis.runs.estimate.past_latency``), or None."""
    from analysis.runs.estimate import past_latency as median_latency

    return median_latency(_store(ref), model)


@st.cache_data(**CACHE)
def throughput(ref: StoreRef, model: str, method: str):
    """What the newest earlier run of ``model`` measured (``analysis.runs.estimate.measured_throughput``), or None."""
    from analysis.runs.estimate import measured_throughput

    return measured_throughput(_store(ref), model, method)


@st.cache_data(**CACHE)
def run_record(ref: StoreRef, run_id: str) -> dict[str, Any]:
    """One run with its parsed model spec and plan (``Store.get_run``)."""
    return _store(ref).get_run(run_id)


def open_batch(ref: StoreRef, run_id: str) -> bool:
    """Whether ``run_id`` has a batch still open at the provider (read now, not cached: a worker may change it)."""
    return bool(_store(ref).open_batch_ids(run_id))


@st.cache_data(**CACHE)
def table_sizes(ref: StoreRef) -> dict[str, int]:
    return _store(ref).table_sizes()


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
def run_outcome(ref: StoreRef, run_id: str, status: str, error: str | None = None) -> Any:
    """How a finished run ended (``analysis.run_outcome.run_outcome``, the very function the CLI tells it with): its
    calls as the store holds them, what its answers hold to score and why calls were not asked."""
    from analysis.run_outcome import run_outcome as told

    return told(_store(ref), run_id, status, error)


@st.cache_data(**CACHE)
def failures(ref: StoreRef, run_id: str) -> pd.DataFrame:
    return _store(ref).frame("SELECT unit, error, attempts, created_at FROM call_failures WHERE run_id=? ORDER BY id", (run_id,))


@st.cache_resource(show_spinner=False, max_entries=8)
def samples(ref: StoreRef) -> pd.DataFrame:
    """Every stored reply of every method in this store (``analysis.samples``: one row each). Shared, not copied
    (~40 ms a rerun on the demo's 8,000 replies): callers filter it into new frames and never change it."""
    from analysis.samples import store_samples

    return store_samples(_store(ref))


_WARMED: set[StoreRef] = set()


def warm_samples(ref: StoreRef) -> None:
    """Build ``samples(ref)`` in a background thread, once per store version, after a page has drawn: the Samples
    page's first visit then finds the reply table ready (about 1 s on the demo's 53,000 replies) instead of building
    it while the user waits. Only in a server started by ``app.launch`` (it sets ``ROLESCOPE_WARM=1``): not under
    AppTest, whose runtime also "exists", nor in tests' servers, where it would only take a core."""
    import threading

    from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

    if ref in _WARMED or os.environ.get("ROLESCOPE_WARM") != "1":
        return
    _WARMED.add(ref)

    def build() -> None:
        try:
            samples(ref)
        except Exception:  # noqa: BLE001 - the Samples page builds it again and shows the error where the user looks
            _WARMED.discard(ref)

    thread = threading.Thread(target=build, name="rolescope-warm-samples", daemon=True)
    add_script_run_ctx(thread, get_script_run_ctx())
    thread.start()


@st.cache_data(**CACHE)
def run_samples(ref: StoreRef, run_ids: tuple[str, ...]) -> pd.DataFrame:
    """The stored replies of these runs only (``analysis.samples.store_samples`` with run ids): a page that shows one
    campaign's replies reads them without building every reply of the store."""
    from analysis.samples import store_samples

    return store_samples(_store(ref), list(run_ids))


def labelled_runs(ref: StoreRef) -> pd.DataFrame:
    """The runs with their names, tags and notes (``analysis.runs.labels``; read at every call: a label changes no
    content signature)."""
    from analysis.runs.labels import labels, with_labels

    return with_labels(runs(ref), labels(_store(ref)))


def source_row(ref: StoreRef, table: str, key: str) -> pd.Series | None:
    """The stored row a sample came from (its table and primary key as JSON), or None."""
    fields = json.loads(key)
    if table not in table_sizes(ref) or not fields:
        return None
    where = " AND ".join(f'"{k}" = ?' for k in fields)
    frame = _store(ref).frame(f'SELECT * FROM "{table}" WHERE {where}', list(fields.values()))
    return frame.iloc[0] if len(frame) else None


def models_in(ref: StoreRef) -> list[str]:
    """The store's models, real ones first (``analysis.model_order``): the sidebar's order, which every page keeps."""
    from analysis.model_order import real_first

    frame = runs(ref)
    return real_first(frame["model"].dropna().unique(), model_specs(ref)) if len(frame) else []


# -- every method's report ------------------------------------------------------------------------
@st.cache_data(**CACHE)
def report(ref: StoreRef, method: str) -> dict[str, Any]:
    """The method's report for this store (``Method.report``, ``N_BOOT`` resamples, ``CHANCE_SIMS`` draws per null):
    every number its pages, the Overview and Compare show, and their chance bands (``chance``), computed once."""
    from analysis import methods  # the registry is light; a method's metrics (scipy & co.) load on a cache miss only

    return methods.get(method).cached_report(_store(ref), config=ref.chosen(method), n_boot=N_BOOT, chance=CHANCE_SIMS)


@st.cache_data(**CACHE)
def results_table(ref: StoreRef, models: tuple[str, ...]) -> Any:
    """The results table for the paper (``analysis.results_table``) of ``models``, each method at the configuration
    its pages show, with the options the pages use (``N_BOOT`` resamples, ``CHANCE_SIMS`` null draws)."""
    from analysis.results_table import results_table as table

    present = [m.name for m in present_methods(ref)]
    return table(_store(ref), models=list(models) or None, configs={m: ref.chosen(m) for m in present},
                 n_boot=N_BOOT, chance=CHANCE_SIMS)


def persona_scores(ref: StoreRef, persona_ids: dict[str, list[str]]) -> pd.DataFrame:
    """The scores each method's report gives the personas ``persona_ids`` (method -> its persona ids), per model: one
    row per (method, construct), one column per model (``analysis.persona_scores``; nothing computed here)."""
    from analysis import methods
    from analysis.persona_scores import read_persona_scores

    rows = []
    for method, ids in persona_ids.items():
        for model, doc in report(ref, method)["models"].items():
            frame, constructs = read_persona_scores(doc.get("persona_scores"))
            mine = frame[frame["persona_id"].astype(str).isin(ids)]
            for _, persona in mine.iterrows():
                rows += [{"method": methods.get(method).label, "construct": label, "model": model,
                          "score": persona[c]} for c, label in constructs.items()]
    if not rows:
        return pd.DataFrame(columns=["method", "construct"])
    table = pd.DataFrame(rows).pivot_table(index=["method", "construct"], columns="model", values="score",
                                           aggfunc="first", sort=False, dropna=False).reset_index()
    table.columns.name = None
    return table


@st.cache_data(**CACHE)
def answers(ref: StoreRef, method: str, model: str | None = None) -> pd.DataFrame:
    """The answer rows ``method``'s report reads (``Method.answers``), for the samples panels under its figures: read
    and filtered by the pages, never scored."""
    from analysis import methods

    return methods.get(method).answers(_store(ref), model, config=ref.chosen(method))


def present_methods(ref: StoreRef) -> list[Any]:
    """The methods (``analysis.methods.base.Method``) with answers in this store, in display order."""
    from analysis import methods

    sizes = table_sizes(ref)
    return [m for m in methods.all_methods() if m.has_data(sizes)]


# -- chance bands (``analysis.chance``): per method, {model: chance document} ------------------------
@st.cache_data(**CACHE)
def chance(ref: StoreRef, method: str) -> dict[str, Any]:
    """Each model's null bands for ``method``, read from its report (``Method.chance``; kept apart so that a page
    reading a band is not handed a copy of the whole report)."""
    from analysis import methods

    return methods.get(method).chance(report(ref, method))


@st.cache_data(**CACHE)
def part_chance(ref: StoreRef, method: str, model: str, part: str) -> dict[str, Any]:
    """The null bands of one part of ``model``'s report that ``method``'s pages draw on demand (``Method.part_chance``:
    simulated on a first visit, kept beside the report after)."""
    from analysis import methods

    return methods.get(method).part_chance(_store(ref), model, part, CHANCE_SIMS, config=ref.chosen(method),
                                           n_boot=N_BOOT)


@st.cache_data(**CACHE)
def published(method: str | None = None) -> pd.DataFrame:
    """Bundled published figures (``analysis.published``): method, model, metric, value, better, source."""
    from analysis.published import published_rows

    return published_rows(method)


def headline_chance(ref: StoreRef, only: str | None = None) -> dict[str, dict[str, Any]]:
    """Per model, the null summary of each headline that has one (``Headline.null``), keyed by headline (of method
    ``only``'s headlines when given)."""
    out: dict[str, dict[str, Any]] = {}
    for method in present_methods(ref):
        if only is not None and method.name != only:
            continue
        rep, bands = report(ref, method.name), chance(ref, method.name)
        for model, band in bands.items():
            for h in method.headlines:
                if h.null is not None:
                    entry = ((rep["models"].get(model) or {}).get("headlines") or {}).get(h.key) or {}
                    out.setdefault(model, {})[h.key] = h.null(band or {}, entry)
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
    """One row per model × headline of every method in the store: ``model, method, key, label, value, reason, note,
    coverage, chance_reason``, read from each method's report (undefined: value None with its reason; ``coverage``:
    'mean over 7 of 8 subjects' when the number averages a subset, else None)."""
    from analysis.methods.base import coverage_text

    rows = []
    for method in present_methods(ref):
        models = report(ref, method.name)["models"]
        for model, doc in models.items():
            for h in method.headlines:
                entry = (doc.get("headlines") or {}).get(h.key) or {"value": None, "reason": "not in the report"}
                rows.append({"model": model, "method": method.name, "key": h.key, "label": h.label,
                             "value": entry["value"], "reason": entry.get("reason"), "note": entry.get("note"),
                             "coverage": coverage_text(entry), "chance_reason": entry.get("chance_reason")})
    return pd.DataFrame(rows, columns=["model", "method", "key", "label", "value", "reason", "note", "coverage",
                                       "chance_reason"]).astype({"value": float})


def no_verdicts(ref: StoreRef, models: list[str]) -> list[str]:
    """'model · headline: why' for each headline with a null (``Headline.null``) but no chance verdict
    (``analysis.methods.base.no_verdict_reason``), for the captions under the against-chance tables."""
    from analysis.methods.base import headline, no_verdict_reason

    bands, out = headline_chance(ref), []
    for method in present_methods(ref):
        rep = report(ref, method.name)
        for model in [m for m in models if m in rep["models"]]:
            for h in method.headlines:
                if h.null is None:
                    continue
                why = no_verdict_reason(headline(rep, model, h.key), (bands.get(model) or {}).get(h.key))
                if why:
                    out.append(f"{model} · {h.label}: {why}")
    return out


def invalid_gaps(ref: StoreRef, method: str, models: list[str]) -> list[dict[str, Any]]:
    """The counts kinds where ``models``' shares differ by more than 20 points (``invalid_share_gaps``)."""
    from analysis.methods.base import invalid_share_gaps

    docs = report(ref, method)["models"]
    return invalid_share_gaps({m: docs[m] for m in models if m in docs})


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


@st.cache_data(**CACHE)
def gaps(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, method: str) -> dict[str, pd.DataFrame]:
    """Where model a (store ``ref_a``) and b (``ref_b``) differ most under ``method`` (``Method.gaps``: items,
    personas, statements on the units both answered), as frames."""
    from analysis import methods
    from analysis.methods.base import Side, doc_frame

    m = methods.get(method)
    sides = [Side(_store(ref), name, ref.chosen(method), report(ref, method)) for ref, name in ((ref_a, a), (ref_b, b))]
    return {name: doc_frame(doc) for name, doc in m.gaps(*sides).items()}


def _headlines_first(ref_a: StoreRef, a: str, ref_b: StoreRef, b: str, diffs: list[Any]) -> list[Any]:
    """Every headline of the methods both models have, A and B exactly as their reports hold them (undefined: NaN,
    its reason in the note) and A − B; the method's comparison row keyed to that headline (``Difference.key``: it is
    the headline on the units both reports average) gives the row its A − B (undefined when the comparison says so),
    paired CI and note. Then the comparison's other rows (e.g. the same measure on the units both answered)."""
    from analysis.methods.base import Difference, coverage_text, headline

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
            partial = "".join(f"; {side}: {coverage_text(e)}" for side, e in (("A", ea), ("B", eb)) if coverage_text(e))
            row = Difference(method.label, h.label, nan if va is None else va, nan if vb is None else vb,
                                   va - vb if defined else nan, note=("no paired CI" if defined else "; ".join(
                                       f"{side}: {e['reason']}" for side, e in (("A", ea), ("B", eb)) if e["value"] is None))
                             + partial)
            keyed = [i for i, d in enumerate(diffs) if d.key == h.key]
            used.update(keyed)
            if defined and keyed:  # the comparison decides whether A − B is defined (e.g. scored on other columns)
                d = diffs[keyed[0]]
                row = Difference(row.method, row.metric, va, vb, va - vb if math.isfinite(d.diff) else nan,
                                 d.lo, d.hi, d.note + partial, h.key)
            out.append(row)
    return out + [d for i, d in enumerate(diffs) if i not in used]


@st.cache_data(**CACHE)
def stale_runs(ref: StoreRef) -> dict[str, str]:
    """The demo's runs asked with an older prompt, as its build recorded them (``analysis.demo.record_stale_runs``;
    ``tests/test_demo_staleness.py`` checks that record is today's): run id -> why. Empty for other stores."""
    from analysis.demo_staleness import recorded_stale_runs

    return recorded_stale_runs(_store(ref)) or {}


@st.cache_data(**CACHE)
def model_specs(ref: StoreRef) -> dict[str, dict[str, Any]]:
    """Model name -> the public model spec of its newest run (plans are not read: they can be large)."""
    from analysis.model_order import store_specs

    return store_specs(_store(ref))
