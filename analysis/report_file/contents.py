"""What a report file holds (``ReportContents``, pydantic): the manifest, each method's headlines with their chance
verdicts, counts, published comparators, design and evidence, and the store's tidy tables. Gathered from a store by
``gather``; ``analysis.report_file.html`` renders it, ``analysis.report_file.restore`` reads its tables back.

Every number is the method's report as ``Method.cached_report`` keeps it, with the options ``metrics --json`` uses by
default (1,000 bootstrap resamples, 100 draws of each null model), so a headline here is the one of ``metrics --json``.
Nothing is recomputed: the chance summaries are the headline's ``Headline.null`` of the same report.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import math
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pandas as pd
from pydantic import BaseModel, ConfigDict

from analysis.model_order import real_first, store_specs
from analysis.runs.export import scrub_frame
from analysis.llm.keys import Scrubber

#: Replies shown per method and model as evidence (a seeded sample of them when there are more; the total is stated).
EVIDENCE_PER_MODEL = 100
#: The seed of that sample, so the same store gives the same report.
EVIDENCE_SEED = 20261128
#: The options every number is computed with by default: those of ``metrics --json``.
N_BOOT = 1000
CHANCE_SIMS = 100
#: Store tables that are caches or call records, not results: left out of the embedded tables.
NOT_RESULTS = frozenset({"calls", "run_calls", "call_failures", "call_claims", "run_owners", "run_batches",
                         "report_cache", "null_draws", "meta", "sqlite_sequence"})
REPO = Path(__file__).resolve().parents[2]
EMBEDDED_WARNING = ("produced by the embedded SmolLM2-135M-Instruct (135M parameters): near chance, a check that the "
                    "pipeline runs, not a measurement of a model")


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RunEntry(Frozen):
    run_id: str
    method: str
    model: str
    status: str
    created: str | None
    finished: str | None
    n_calls: int
    n_failed: int
    name: str | None
    tags: list[str]
    note: str | None


class ModelEntry(Frozen):
    """A model as its runs describe it: no key, the endpoint's host only."""

    name: str
    backend: str
    model_id: str
    host: str | None
    params: dict[str, Any]
    tokens_in: int | None
    tokens_out: int | None
    cost: float | None
    priced: bool
    warning: str | None


class Manifest(Frozen):
    """What a report file says of itself. ``store_sha256`` names the store file it was made from (check it against
    that file); ``tables_sha256`` and ``reports_sha256`` seal the embedded tables and reports: the SHA-256 of each
    block's JSON document before packing, checked on import (files written before the seal have none)."""

    rolescope_version: str
    commit: str | None
    created: str
    store: str
    store_sha256: str
    options: dict[str, Any]
    runs: list[RunEntry]
    models: list[ModelEntry]
    tables_sha256: str | None = None
    reports_sha256: str | None = None


class HeadlineCell(Frozen):
    """One model's headline as the report holds it, with its chance verdict (or why there is none)."""

    method: str
    key: str
    label: str
    model: str
    value: float | None
    reason: str | None
    coverage: str | None
    chance: str | None
    no_verdict: str | None
    band: tuple[float | None, float | None] | None
    ci: tuple[float, float] | None  # its 95 % bootstrap CI where the report holds one (``Headline.ci``)
    anchor: str


class Sample(Frozen):
    sample_id: str
    model: str
    kind: str
    persona: str | None
    item: str | None
    context: str | None
    parsed: str | None
    valid: bool
    reason: str | None
    reply: str | None


class MethodSection(Frozen):
    name: str
    label: str
    headlines: list[HeadlineCell]
    counts: list[dict[str, Any]]
    published: list[dict[str, Any]]
    design: dict[str, list[str]]
    evidence: list[Sample]
    evidence_totals: dict[str, int]  # model -> its scored replies (``evidence`` shows all, or a sample of them)
    figures: dict[str, str]  # name -> the figure's Plotly JSON


class ReportContents(Frozen):
    manifest: Manifest
    methods: list[MethodSection]
    #: the results table for the paper (``analysis.results_table.ResultsTable``, dumped; ``report_html`` adds it)
    results: dict[str, Any] | None = None
    reports: str  # method -> its report document as metrics --json prints it, packed (``pack``)
    tables: str  # the store's result tables: gzip + base64 of {"table": {"columns", "data"}} (``encode_tables``)



def anchor(*parts: str) -> str:
    """An HTML id from its parts: letters, digits and '-' only."""
    text = "-".join(parts)
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower()


def _when(ts: Any) -> str | None:
    if ts is None or (isinstance(ts, float) and math.isnan(ts)):
        return None
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(float(ts)))


def code_commit() -> str | None:
    """The git commit of the code (``git rev-parse HEAD`` in the repository), or None outside a checkout."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def scrubbed(value: Any, scrubber: Scrubber | None = None) -> Any:
    """``value`` with every string in it passed through the store's scrubber (``analysis.llm.keys.Scrubber``)."""
    scrubber = scrubber or Scrubber()
    if isinstance(value, str):
        return scrubber.text(value)
    if isinstance(value, Mapping):
        return {scrubbed(k, scrubber): scrubbed(v, scrubber) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrubbed(v, scrubber) for v in value]
    return value


def document_bytes(doc: Any) -> bytes:
    """A JSON document as the UTF-8 bytes a report file packs (and its seal hashes)."""
    return json.dumps(doc, ensure_ascii=False, allow_nan=False).encode("utf-8")


def seal(raw: bytes) -> str:
    """The seal of a packed block: the SHA-256 of its document's bytes (``document_bytes``)."""
    return hashlib.sha256(raw).hexdigest()


def pack(doc: Any) -> str:
    """A JSON document as gzip + base64 text (what a report file embeds; ``unpack`` reads it back)."""
    return pack_bytes(document_bytes(doc))


def pack_bytes(raw: bytes) -> str:
    """``document_bytes`` as gzip + base64 text."""
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


#: The most a packed block of a report file may unpack to: a gzip bomb (1 GB in a 1.4 MB file) stops here, having
#: held at most this much. The bundled demo's whole store unpacks to well under it.
MAX_UNPACKED_BYTES = 512 * 2**20


def unpack(text: str, *, max_bytes: int | None = None) -> Any:
    """``pack`` read back, decompressing at most ``max_bytes`` (default ``MAX_UNPACKED_BYTES``); ``InputError``
    past it or when the block is not gzip + base64 JSON."""
    return unpack_bytes_json(unpack_bytes(text, max_bytes=max_bytes))


def unpack_bytes(text: str, *, max_bytes: int | None = None) -> bytes:
    """The document bytes of a packed block (``unpack`` without parsing them), at most ``max_bytes``."""
    import zlib

    from analysis.errors import InputError

    cap = MAX_UNPACKED_BYTES if max_bytes is None else max_bytes
    try:
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        data = inflate.decompress(base64.b64decode(text), cap + 1)
    except (ValueError, zlib.error) as exc:
        raise InputError(f"a packed block is not gzip + base64 JSON ({type(exc).__name__})") from None
    if len(data) > cap or inflate.unconsumed_tail:
        raise InputError(f"a packed block unpacks to more than {cap:,} bytes: refused (a compression bomb?)")
    return data


def unpack_bytes_json(data: bytes) -> Any:
    """Document bytes parsed as JSON (NaN and Infinity refused: a report never writes them); ``InputError`` when
    they are not."""
    from analysis.errors import InputError

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not a JSON number")

    try:
        return json.loads(data.decode("utf-8"), parse_constant=no_constant)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"a packed block is not JSON ({type(exc).__name__}: {str(exc)[:80]})") from None


def tables_document(frames: Mapping[str, pd.DataFrame]) -> bytes:
    """Tables as one JSON document ``{table: {"columns", "data"}}`` (``frame_doc``), every text scrubbed
    (``scrub_frame``), as bytes (``document_bytes``: what ``encode_tables`` packs and the seal hashes)."""
    from analysis.methods.base import frame_doc  # floats as Python writes them: exact, unlike pandas' to_json

    return document_bytes({name: frame_doc(scrub_frame(frame)) for name, frame in frames.items()})


def encode_tables(frames: Mapping[str, pd.DataFrame]) -> str:
    """Tables packed (``pack``) as one JSON document (``tables_document``)."""
    return pack_bytes(tables_document(frames))


def decode_tables(text: str) -> dict[str, pd.DataFrame]:
    """``encode_tables`` read back: table -> frame."""
    return {name: pd.DataFrame(t["data"], columns=t["columns"]) for name, t in unpack(text).items()}


def _specs(runs: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Model -> the spec of its newest run."""
    return {row.model: json.loads(row.model_spec) if isinstance(row.model_spec, str) else {}
            for row in runs.sort_values("created_at").itertuples(index=False)}


def _model_entries(runs: pd.DataFrame, usage: pd.DataFrame) -> list[ModelEntry]:
    from analysis.runs.provenance import edited_note

    out: dict[str, ModelEntry] = {}
    edited: dict[str, str] = {}  # model -> the note of its run imported from an edited report (any of its runs)
    for row in runs.sort_values("created_at").itertuples(index=False):
        spec = json.loads(row.model_spec) if isinstance(row.model_spec, str) else {}
        note = edited_note(spec)
        if note:
            edited[row.model] = note
        used = usage[usage["model"] == row.model]
        backend = str(spec.get("backend") or "")
        priced = spec.get("price_input_per_mtok") is not None or spec.get("price_output_per_mtok") is not None
        out[row.model] = ModelEntry(
            name=row.model, backend=backend, model_id=str(spec.get("model") or row.model),
            host=urlsplit(spec["base_url"]).hostname if spec.get("base_url") else None,
            params=spec.get("params") or {},
            tokens_in=int(used["tokens_in"].sum()) if len(used) else None,
            tokens_out=int(used["tokens_out"].sum()) if len(used) else None,
            cost=float(used["cost"].sum()) if priced and len(used) else None, priced=priced,
            warning="; ".join(w for w in (EMBEDDED_WARNING if backend == "embedded" else None, edited.get(row.model))
                              if w) or None)
    return [out[m] for m in real_first(out, _specs(runs))]


def _usage(store: Any) -> pd.DataFrame:
    """Tokens and cost of the calls each model's runs made (each stored call once per model)."""
    if "calls" not in store.table_names():
        return pd.DataFrame(columns=["model", "tokens_in", "tokens_out", "cost"])
    return store.frame(
        "SELECT model, COALESCE(SUM(tokens_in), 0) AS tokens_in, COALESCE(SUM(tokens_out), 0) AS tokens_out, "
        "COALESCE(SUM(cost), 0) AS cost FROM (SELECT DISTINCT r.model, c.cache_key, c.tokens_in, c.tokens_out, c.cost "
        "FROM runs r JOIN run_calls rc ON rc.run_id = r.run_id JOIN calls c ON c.cache_key = rc.cache_key) GROUP BY model")


def _runs(store: Any, runs: pd.DataFrame) -> tuple[pd.DataFrame, list[RunEntry]]:
    """``runs`` (rows of ``Store.runs``) with their labels, and as manifest entries."""
    from analysis.runs.labels import labels, with_labels

    runs = with_labels(runs, labels(store))
    entries = [RunEntry(run_id=r.run_id, method=r.method, model=r.model, status=r.status, created=_when(r.created_at),
                        finished=_when(r.finished_at), n_calls=int(r.n_calls), n_failed=int(r.n_failed),
                        name=r.name if isinstance(r.name, str) and r.name else None, tags=list(r.tags),
                        note=r.note if isinstance(r.note, str) and r.note else None)
               for r in runs.itertuples(index=False)]
    return runs, entries


def _design(samples: pd.DataFrame) -> dict[str, list[str]]:
    """The personas, items and contexts the method's replies answer (as the store labels them)."""
    out = {}
    for column, title in (("persona", "personas"), ("item", "items"), ("context", "contexts")):
        values = samples[column].dropna().astype(str).unique().tolist()
        if values:
            out[title] = sorted(values)
    return out


def _scored(samples: pd.DataFrame) -> pd.DataFrame:
    """The replies behind the numbers: those of the kinds the method scores (all of them when it scores none)."""
    return samples[samples["scored"]] if samples["scored"].any() else samples


def _evidence(samples: pd.DataFrame, order: Sequence[str] = ()) -> list[Sample]:
    """Each model's scored replies, or a seeded sample of ``EVIDENCE_PER_MODEL`` of them; models in ``order`` (the
    report's: real ones first), others after them by name."""
    parts = []
    for _, mine in _scored(samples).groupby("model", sort=False):
        parts.append(mine if len(mine) <= EVIDENCE_PER_MODEL else mine.sample(EVIDENCE_PER_MODEL,
                                                                            random_state=EVIDENCE_SEED))
    rank = {m: i for i, m in enumerate(order)}
    shown = pd.concat(parts)
    shown = shown.assign(_rank=shown["model"].map(lambda m: rank.get(m, len(rank)))).sort_values(
        ["_rank", "model", "kind", "persona", "item", "context"], kind="stable", na_position="last")

    def text(v: Any) -> str | None:
        return None if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else str(v)

    return [Sample(sample_id=str(r.sample_id), model=str(r.model), kind=str(r.kind), persona=text(r.persona),
                   item=text(r.item), context=text(r.context), parsed=text(r.parsed), valid=bool(r.valid),
                   reason=text(r.reason), reply=text(r.reply)) for r in shown.itertuples(index=False)]


def headline_cell(method: Any, h: Any, doc: Mapping[str, Any], model: str) -> HeadlineCell:
    """Headline ``h`` (a ``Headline`` of ``method``) of ``model`` as ``doc`` (the method's report) holds it, with its
    chance verdict from the same report (``Headline.null``; or why there is none) and its CI (``Headline.ci``): read,
    never recomputed. The report file and the results table (``analysis.results_table``) show these cells."""
    from analysis.chance import vs_chance
    from analysis.methods.base import coverage_text, headline, no_verdict_reason

    entry = headline(doc, model, h.key)
    mine = doc["models"].get(model) or {}
    band = mine.get("chance") or {}
    summaries = h.null(band, entry) if h.null is not None else None
    why = no_verdict_reason(entry, summaries) if h.null is not None else "no null model for this number"
    his = [s for s in (summaries or {}).values() if s and s.get("lo") is not None]
    interval = h.ci(mine) if h.ci is not None and entry.get("value") is not None else None
    return HeadlineCell(
        method=method.name, key=h.key, label=h.label, model=model, value=entry.get("value"),
        reason=entry.get("reason"), coverage=coverage_text(entry), chance=None if why else vs_chance(summaries),
        no_verdict=why, band=(min(s["lo"] for s in his), max(s["hi"] for s in his)) if his else None,
        ci=(interval["lo"], interval["hi"]) if interval and interval.get("lo") is not None else None,
        anchor=anchor("samples", method.name, model))


def _headlines(method: Any, doc: Mapping[str, Any], models: Sequence[str]) -> list[HeadlineCell]:
    return [headline_cell(method, h, doc, model) for h in method.headlines for model in models]


def chosen_methods(store: Any, methods: Sequence[str] | None, command: str) -> list[Any]:
    """The methods with answers in ``store`` (``Method.has_data``), in registry order; only ``methods`` when given
    (``InputError`` naming ``command``'s ``--methods`` for a name that is no method)."""
    from analysis import methods as registry
    from analysis.errors import InputError

    sizes = store.table_sizes()
    present = [m for m in registry.all_methods() if m.has_data(sizes)]
    if methods:
        unknown = sorted(set(methods) - {m.name for m in registry.all_methods()})
        if unknown:
            raise InputError(f"{command} --methods: no method {', '.join(unknown)}")
        present = [m for m in present if m.name in set(methods)]
    return present


def check_models(store: Any, runs: pd.DataFrame, models: Sequence[str] | None, command: str) -> set[str] | None:
    """``models`` as a set (None: every model), once each has runs among ``runs`` (``Store.runs``); ``InputError``
    naming ``command``'s ``--models`` otherwise."""
    from analysis.errors import InputError

    chosen = set(models) if models else None
    if chosen:
        missing = sorted(chosen - set(runs["model"]))
        if missing:
            raise InputError(f"{command} --models: no model {', '.join(missing)} in {store.path}")
    return chosen


def shown_models(doc: Mapping[str, Any], chosen: set[str] | None, specs: Mapping[str, Any]) -> list[str]:
    """The models of a report that a report file or table shows: ``chosen`` ones (None: all), real ones first."""
    return real_first([m for m in doc["models"] if chosen is None or m in chosen], specs)


def gather(store: Any, *, models: Sequence[str] | None = None, methods: Sequence[str] | None = None,
           runs: Sequence[str] | None = None, figures: bool = True,
           configs: Mapping[str, Any] | None = None, n_boot: int = N_BOOT,
           chance: int = CHANCE_SIMS) -> ReportContents:
    """Everything a report file shows, for the store's methods with answers (or ``methods``), its models (or
    ``models``), and its runs (or ``runs``: numbers are the store's, the runs listed and embedded those). ``configs``:
    method -> the configurations chosen instead of each model's latest (``Method.cached_report``'s ``config``), as a
    page shows them; by default each model's latest, as ``metrics --json`` does. ``n_boot`` and ``chance``: bootstrap
    resamples and null draws (``metrics``' ``--n-boot`` and ``--chance``). ``figures``: each method's figures drawn
    from its report (``Method.figures``) embedded."""
    from analysis.errors import InputError

    present = chosen_methods(store, methods, "report")
    run_ids = list(runs) if runs else None
    all_runs = store.runs()
    if run_ids:
        missing = sorted(set(run_ids) - set(all_runs["run_id"]))
        if missing:
            raise InputError(f"report --runs: no run {', '.join(missing)} in {store.path}")
    chosen = check_models(store, all_runs, models, "report")

    def keep(frame: pd.DataFrame) -> pd.Series:
        mask = frame["method"].isin([m.name for m in present])
        if run_ids:
            mask &= frame["run_id"].isin(run_ids)
        if chosen:
            mask &= frame["model"].isin(chosen)
        return mask

    run_frame, run_entries = _runs(store, all_runs[keep(all_runs)])
    kept = run_frame["run_id"].tolist()
    specs = store_specs(store)
    sections, reports = [], {}
    for method in present:
        doc = method.cached_report(store, config=(configs or {}).get(method.name), n_boot=n_boot, chance=chance)
        reports[method.name] = doc
        shown = shown_models(doc, chosen, specs)
        mine = _method_samples(store, method, run_frame)
        if mine is not None:
            mine = mine[mine["model"].isin(shown)]
        published = [] if method.published is None else _published(method.name)
        drawn = method.figures(doc, shown) if figures and method.figures is not None and shown else {}
        sections.append(MethodSection(
            name=method.name, label=method.label, headlines=_headlines(method, doc, shown),
            counts=[{"model": m, **c} for m in shown for c in doc["models"][m].get("counts", [])],
            published=published, design=_design(mine) if mine is not None and len(mine) else {},
            evidence=_evidence(mine, shown) if mine is not None and len(mine) else [],
            evidence_totals={} if mine is None else _scored(mine)["model"].value_counts().astype(int).to_dict(),
            figures={name: fig.to_json() for name, fig in drawn.items()}))
    tables = {"runs": store.table("runs")[lambda f: f["run_id"].isin(kept)]}
    for name in sorted(set(store.table_names()) - NOT_RESULTS - set(tables)):  # every method table, those a report
        frame = store.table(name)                                               # reads beside its main ones included
        tables[name] = frame[frame["run_id"].isin(kept)] if "run_id" in frame else frame
    manifest = Manifest(
        rolescope_version=code_version(), commit=code_commit(), created=_when(time.time()) or "",
        store=Path(store.path).name, store_sha256=file_sha256(Path(store.path)),
        options={"n_boot": n_boot, "chance_sims": chance, "evidence_per_model": EVIDENCE_PER_MODEL,
                 "evidence_seed": EVIDENCE_SEED, "models": sorted(chosen) if chosen else None,
                 "methods": [m.name for m in present], "runs": run_ids, "configurations": dict(configs or {})},
        runs=run_entries, models=_model_entries(tables["runs"], _usage(store)))
    scrubber = Scrubber()  # the packed tables are scrubbed as they are encoded
    tables_raw, reports_raw = tables_document(tables), document_bytes(scrubbed(reports, scrubber))
    manifest = manifest.model_copy(update={"tables_sha256": seal(tables_raw), "reports_sha256": seal(reports_raw)})
    return ReportContents(manifest=scrubbed(manifest.model_dump(), scrubber),
                          methods=scrubbed([s.model_dump() for s in sections], scrubber),
                          reports=pack_bytes(reports_raw), tables=pack_bytes(tables_raw))


def _method_samples(store: Any, method: Any, runs: pd.DataFrame) -> pd.DataFrame | None:
    """The replies behind ``method``'s numbers: its samples (``Method.samples``) of its runs among ``runs``; a
    composite's are its parts' replies, as its samples hook gives them."""
    run_ids = runs.loc[runs["method"] == method.name, "run_id"].tolist()
    if method.samples is None or not run_ids:
        return None
    frame = method.samples(store, run_ids)
    return frame.drop_duplicates("sample_id") if len(frame) else None


def _published(method: str) -> list[dict[str, Any]]:
    from analysis.published import published_rows

    rows = published_rows(method)
    return json.loads(rows.drop(columns=["method"]).to_json(orient="records"))


def code_version() -> str:
    """RoleScope's version (``analysis.__version__``)."""
    from analysis import __version__

    return __version__
