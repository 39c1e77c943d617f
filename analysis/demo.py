"""The bundled demo store: every method run by the embedded model in two configurations.

``python -m analysis demo build`` (re)creates ``data/demo/rolescope-demo.db`` from the project's
authored data. Configurations (both SmolLM2-135M-Instruct, recorded with each run's plan):

- ``smollm2-greedy``: logprob option scoring, greedy decoding (temperature 0);
- ``smollm2-t07``: free-text answers sampled at temperature 0.7 with a fixed seed.

Run ids are fixed (``demo-<method>-<config>``), so an interrupted build resumes where it stopped
(finished calls are in the store's call cache). The build uses prefix reuse (llama.cpp ``cache_prompt``)
for the conversation methods, which cuts the prompt tokens processed about 5x, and runs one conversation
after another (``run_units``) so that its prefix stays in the server's single KV-cache slot. Two builds of
the same campaign in the same order give identical tables (``tests/test_demo_build.py``): a run with prefix reuse
sends one call at a time (``execute_run_async``), since llama.cpp's numbers for a prompt depend on the prefix its slot
held before, and two calls in flight reach it in either order. Sampling is seeded per request, but a
sampled reply under prefix reuse can depend on what the cache held before: a build that ran only some of the parts
gave other conversation turns at temperature 0.7. ``size="reduced"`` is the small campaign CI builds twice to check this.
"""

from __future__ import annotations

import importlib
import json
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from analysis.chance import DEFAULT_SIMS, NULL_TABLE
from analysis.demo_config import SIZE_NAMES, DemoConfig, DemoPart, Size
from analysis.demo_store import DEMO_ARCHIVE, DEMO_STORE, REPO_ROOT, pack, unpack
from analysis.errors import InputError
from analysis.llm.specs import parse_model_spec
from analysis.runs.progress import ProgressTracker
from analysis.methods import create_run, execute_run
from analysis.runs.store import Store

def demo_parts() -> dict[str, DemoPart]:
    """Every part of the campaign, by name: each registered method's ``PARTS`` (``analysis/methods/<m>/demo.py``),
    in the registry's order."""
    from analysis import methods

    parts: dict[str, DemoPart] = {}
    for method in methods.all_methods():
        module = _demo_module(method.name)
        parts |= {part.name: part for part in getattr(module, "PARTS", ())}
    return parts


def _demo_module(method: str) -> Any:
    """``analysis/methods/<method>/demo.py``, or None for a method with no part in the demo."""
    name = f"analysis.methods.{method}.demo"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return None


CONFIGS = (
    DemoConfig("smollm2-greedy", "logprob", {"temperature": 0.0}),
    DemoConfig("smollm2-t07", "text", {"temperature": 0.7, "seed": 7}),
    # the trust game with structured answers: the embedded server constrains each reply to the answer's JSON schema, so
    # beliefs, forecasts and multi-round play reach every view of the Trust page (still a 135M model: near chance)
    # (the paper's temperature 0.05 samples: seeded per request, as smollm2-t07, so two builds give identical tables)
    DemoConfig("smollm2-json", "text", {"seed": 7}, structured_only=True, answer_format="json"),
)


def campaign_configs(models: Sequence[str], answer_mode: Literal["logprob", "text"] = "text") -> tuple[DemoConfig, ...]:
    """The demo campaign for other models (``demo build --model SPEC``): one configuration per spec, named
    as the spec names itself (``openai:gpt-4o-mini`` -> ``gpt-4o-mini``), with the spec's own params."""
    configs = tuple(DemoConfig(parse_model_spec(m).name, answer_mode, {}, m) for m in models)
    names = [c.name for c in configs]
    if len(set(names)) != len(names):
        raise InputError(f"--model: two specs share a display name ({', '.join(names)}); use named configs from models.toml")
    return configs


def build_demo(store_path: Path = DEMO_STORE, size: Size = "full", methods: list[str] | None = None,
               concurrency: int = 2, log: Callable[[str], None] = lambda m: print(m, file=sys.stderr),
               configs: Sequence[DemoConfig] = CONFIGS, cancel: threading.Event | None = None,
               svs: str | Path | None = None, rederive: bool = False, chance_sims: int | None = None,
               imports: Path | None | Literal[False] = None) -> list[str]:
    """Create or resume every run of the campaign; returns the run ids. Prints progress lines on ``log``.
    ``rederive``: replace every run and run it again from the call cache, so its tables are parsed anew from the
    stored replies (a run's later requests may depend on what was parsed: those not made before are sent).
    ``cancel`` (Ctrl-C in the CLI) stops the current run gracefully and skips the rest; the store is still finalized.
    ``svs``: an SVS instrument (folder or hf:// path) adds the parts that need it (``DemoPart.needs``), one run per
    configuration.
    ``chance_sims``: simulations per null model of the reports and chance bands computed into the store as the
    dashboard asks for them (``precompute_reports``; default: the dashboard's ``analysis.chance.DEFAULT_SIMS`` for the
    bundled demo, none for other stores).
    ``imports``: a folder of the public sources of real models' answers that methods import, numbers only
    (``Method.bundled_imports``; default: the anchors copy for the bundled demo, none for other stores; False: none)."""
    given = {"svs": svs}
    every = demo_parts()
    parts = {name: part for name, part in every.items() if part.needs is None or given.get(part.needs) is not None}
    unknown = sorted(set(methods or []) - set(parts))
    if unknown:
        hints = [f"{n} needs --{every[n].needs} PATH" for n in unknown if n in every]
        hint = f" ({'; '.join(hints)})" if hints else ""
        raise InputError(f"--methods: unknown {', '.join(unknown)}; choose from {', '.join(parts)}{hint}")
    if _is_bundled(store_path) and not store_path.exists() and DEMO_ARCHIVE.exists():
        unpack(DEMO_ARCHIVE, store_path)  # resume from the committed demo, not from nothing
    run_ids = []
    with Store(store_path) as store:
        for config in configs:  # one configuration complete before the other
            for name in methods or [n for n, p in parts.items() if p.needs is None]:
                part = parts[name]
                if not config.covers(part):
                    continue
                run_id = config.run_id(name)
                plan = part.plan(config, size, **({part.needs: given[part.needs]} if part.needs else {}))
                existing = store.query_one("SELECT plan, status FROM runs WHERE run_id=?", (run_id,))
                if existing is not None and json.loads(existing["plan"]) != json.loads(json.dumps(plan)):
                    log(f"{run_id}: the campaign's plan changed; replacing the run (stored calls are reused)")
                    store.delete_run(run_id)
                    existing = None
                elif existing is not None and rederive:
                    log(f"{run_id}: re-deriving its tables from the stored replies")
                    store.delete_run(run_id)
                    existing = None
                if existing is None:
                    create_run(store, part.method, config.spec(), plan, run_id)
                elif existing["status"] == "completed":
                    log(f"{run_id}: already complete")
                    run_ids.append(run_id)
                    if part.dated_first:
                        date_first(store, run_id)
                    continue
                tracker = ProgressTracker()
                tracker.subscribe(_line_logger(run_id, log))
                summary = execute_run(store, run_id, concurrency=concurrency, progress=tracker, cancel=cancel)
                log(f"{run_id}: {summary.status}, {summary.done}/{summary.total} calls, {summary.seconds:.0f}s")
                run_ids.append(run_id)
                if part.dated_first:
                    date_first(store, run_id)
                if cancel is not None and cancel.is_set():
                    log("demo build interrupted; run it again to resume")
                    break
            else:
                continue
            break
    if imports is None and _is_bundled(store_path):
        imports = ANCHORS
    if imports and not (cancel is not None and cancel.is_set()):
        run_ids += import_published(store_path, Path(imports), log)
    sims = (DEFAULT_SIMS if _is_bundled(store_path) else 0) if chance_sims is None else chance_sims
    compact(store_path)
    if sims > 0 and not (cancel is not None and cancel.is_set()):
        precompute_reports(store_path, sims, log)
    finalize(store_path)
    return run_ids


def refresh_reports(store_path: Path = DEMO_STORE, chance_sims: int = DEFAULT_SIMS,
                    log: Callable[[str], None] = lambda m: print(m, file=sys.stderr)) -> None:
    """Compute the dashboard's default reports into the demo store again and pack it (``demo reports``), without
    running the campaign: after a change under ``analysis/`` made the shipped ones stale. No model call."""
    if _is_bundled(store_path) and not store_path.exists() and DEMO_ARCHIVE.exists():
        unpack(DEMO_ARCHIVE, store_path)
    if not store_path.exists():
        raise InputError(f"demo reports: {store_path} not found (build it: python -m analysis demo build)")
    compact(store_path)
    precompute_reports(store_path, chance_sims, log)
    finalize(store_path)


#: Where the public sources of real models' answers are found by default: the anchors copy beside the repository.
ANCHORS = REPO_ROOT.parent / "shared" / "anchors"


def import_published(store_path: Path, folder: Path, log: Callable[[str], None]) -> list[str]:
    """Import, numbers only, every public source a method declares (``Method.bundled_imports``) found under
    ``folder``; a source not there is skipped and said. Importing twice stores nothing twice."""
    from analysis import methods

    run_ids: list[str] = []
    with Store(store_path) as store:
        if _is_bundled(store_path):
            # the bundled demo's imported runs all come from here: drop them and import afresh, so that a reader or an
            # importer changed since is what the demo shows (an import whose run id is stored already is skipped, and
            # its rows would stay those of older code: tests/test_demo_staleness.py)
            for run_id in store.frame("SELECT run_id FROM runs WHERE status = 'imported'")["run_id"]:
                store.delete_run(run_id)
        for method in methods.all_methods():
            for source in method.bundled_imports:
                path = folder / source.folder
                if not path.is_dir():
                    log(f"import {source.kind}: {path} not found; not imported")
                    continue
                got = source.load(store, path)
                log(f"import {source.kind}: {len(got)} run(s) of real models' answers, numbers only")
                run_ids += got
    return run_ids


def date_first(store: Store, run_id: str) -> None:
    """Date ``run_id`` and the runs it made (``<run_id>-<part>``) one second before the store's oldest other run."""
    oldest = store.query_one("SELECT MIN(created_at) AS t FROM runs WHERE run_id != ? AND run_id NOT LIKE ?",
                             (run_id, f"{run_id}-%"))
    if oldest and oldest["t"] is not None:
        store.redate_run(run_id, float(oldest["t"]) - 1.0, with_parts=True)


#: Bootstrap resamples of the reports the dashboard asks for by default (``app.data.N_BOOT``, ``ROLESCOPE_N_BOOT``).
DASHBOARD_BOOT = 1000


def precompute_reports(store_path: Path, n_sims: int, log: Callable[[str], None], n_boot: int = DASHBOARD_BOOT) -> None:
    """Compute every method's report and chance bands as the dashboard asks for them by default (``n_boot``
    resamples, ``n_sims`` draws per null, each model's latest configuration), the document ``metrics --json`` and a
    report file read with the same options, and what a method's pages read beyond
    them (``precompute(store, n_sims, n_boot=...)`` in its ``demo.py``), into the store's own report table
    (``analysis.report_cache``): the bundled demo ships with them, so a first visit computes nothing. Reports and
    draws of older code or options are dropped first (they are never read again)."""
    from analysis import methods
    from analysis.report_cache import REPORT_TABLE

    with Store(store_path) as store:
        store.clear(NULL_TABLE.name)
        store.clear(REPORT_TABLE.name)
        record_stale_runs(store, log)
        for method in methods.all_methods():
            started = time.monotonic()
            # the document the pages read, `metrics --json` prints and a report file embeds, chance bands included
            method.cached_report(store, n_boot=n_boot, chance=n_sims)
            extra = getattr(_demo_module(method.name), "precompute", None)
            if extra is not None:
                extra(store, n_sims, n_boot=n_boot)
            log(f"reports: {method.name} (chance: {n_sims} draws per null) in {time.monotonic() - started:.0f}s")


def record_stale_runs(store: Store, log: Callable[[str], None]) -> dict[str, str]:
    """List, in the store's ``meta``, the demo runs whose plan today's campaign would not build (their prompts are
    older than the code): the Overview shows them, and ``tests/test_demo_staleness.py`` fails when that list is not
    today's. Returns it."""
    from analysis.demo_staleness import STALE_KEY, store_stale_runs

    stale = store_stale_runs(store, CONFIGS, demo_parts())
    store.set_meta(STALE_KEY, json.dumps(stale, sort_keys=True))
    for run_id, why in stale.items():
        log(f"{run_id}: {why} (rebuild it: python -m analysis demo build)")
    return stale


def _line_logger(run_id: str, log: Callable[[str], None]) -> Callable[[Any], None]:
    step = {"next": 0.0}

    def on_event(ev: Any) -> None:
        if ev.total and ev.fraction >= step["next"]:
            log(f"{run_id}: {ev.done}/{ev.total} calls ({ev.cached} cached, {ev.failed} failed)")
            step["next"] = ev.fraction + 0.1

    return on_event


def _is_bundled(store_path: Path) -> bool:
    return store_path.resolve() == DEMO_STORE.resolve()


def prune_unreferenced_calls(conn: sqlite3.Connection) -> int:
    """Drop cached calls no run uses any more (a run replaced after a protocol change leaves its old calls behind);
    returns how many. Only for the bundled demo, whose runs are all its campaign's: a user's store keeps its cache."""
    cur = conn.execute("DELETE FROM calls WHERE cache_key NOT IN (SELECT cache_key FROM run_calls)")
    conn.commit()
    return cur.rowcount


#: Top logprobs the bundled demo keeps per generated token: the Samples page shows the first token's 10 likeliest.
KEPT_TOP_LOGPROBS = 10
_OPTION_TOKEN = re.compile(r"[A-Z0-9]")


def slim_logprobs(conn: sqlite3.Connection, keep: int = KEPT_TOP_LOGPROBS) -> int:
    """Keep, per generated token of each stored call, its ``keep`` likeliest tokens and every token a reader can read
    as an option (one letter A-Z or digit 0-9 once spaces, brackets and punctuation are stripped: what
    ``analysis.llm.options`` and the inventories' number reader look for), so every stored answer re-reads the same
    (``python -m analysis reread`` changes nothing) while the archive drops ~85 % of its logprob bytes. Bundled demo
    only: a user's store keeps what the endpoint returned. Returns the calls slimmed."""
    changed = 0
    for key, raw in conn.execute("SELECT cache_key, logprobs FROM calls WHERE logprobs IS NOT NULL").fetchall():
        positions = json.loads(raw)
        slim = [{t: lp for rank, (t, lp) in enumerate(sorted(top.items(), key=lambda kv: -kv[1]))
                 if rank < keep or _OPTION_TOKEN.fullmatch(t.strip().strip("().:*\"'[]"))} for top in positions]
        if slim != positions:
            conn.execute("UPDATE calls SET logprobs = ? WHERE cache_key = ?", (json.dumps(slim), key))
            changed += 1
    conn.commit()
    return changed


def compact(store_path: Path) -> None:
    """Drop what the bundled demo does not keep (calls no run uses, logprobs no reader reads) and VACUUM. Before the
    reports are computed: a report is keyed by the store's content
    (``analysis.report_cache.content_signature``: a hash of its rows), which pruning and slimming change."""
    conn = sqlite3.connect(store_path)
    try:
        if _is_bundled(store_path):
            prune_unreferenced_calls(conn)
            slim_logprobs(conn)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
    finally:
        conn.close()


def finalize(store_path: Path) -> None:
    """Checkpoint the WAL into the file and switch to rollback journal, so the file alone is the store;
    the bundled store is also packed into its committed archive (``analysis.demo_store``), its reports included."""
    conn = sqlite3.connect(store_path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")
    finally:
        conn.close()
    if _is_bundled(store_path):
        pack(store_path, DEMO_ARCHIVE)
