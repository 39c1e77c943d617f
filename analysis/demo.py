"""The bundled demo store: every method run by the embedded model in two configurations.

``python -m analysis demo build`` (re)creates ``data/demo/rolescope-demo.db`` from the project's
authored data. Configurations (both SmolLM2-135M-Instruct, recorded with each run's plan):

- ``smollm2-greedy``: logprob option scoring, greedy decoding (temperature 0);
- ``smollm2-t07``: free-text answers sampled at temperature 0.7 with a fixed seed.

Run ids are fixed (``demo-<method>-<config>``), so an interrupted build resumes where it stopped
(finished calls are in the store's call cache). The build uses prefix reuse (llama.cpp ``cache_prompt``)
for the conversation methods, which cuts the prompt tokens processed about 5x, and runs one conversation
after another (``run_units``) so that its prefix stays in the server's single KV-cache slot. Replies do
not depend on what the cache held: two builds give identical tables (``tests/test_demo_build.py``); only
the server's ``cached_tokens`` accounting differs with the order of the two calls in flight. Sampling
is seeded per request. ``size="reduced"`` is the small campaign CI builds twice to check this.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Literal

from analysis.chance import DEFAULT_SIMS, NULL_TABLE
from analysis.demo_store import DEMO_ARCHIVE, DEMO_STORE, REPO_ROOT, pack, unpack
from analysis.errors import InputError
from analysis.llm.specs import ModelSpec, parse_model_spec
from analysis.runs.progress import ProgressTracker
from analysis.methods import create_run, execute_run
from analysis.runs.store import Store

Size = Literal["full", "reduced"]


@dataclass(frozen=True)
class DemoConfig:
    """One model configuration of the campaign: a model spec, its answer mode and generation params."""

    name: str
    answer_mode: Literal["logprob", "text"]
    params: dict[str, Any]
    model: str = "embedded"
    #: The campaign's parts this configuration runs (``PLANNERS`` keys); None: every one.
    methods: tuple[str, ...] | None = None
    #: Methods that offer structured answers (``--answer-format json``) get this format.
    answer_format: Literal["text", "json"] = "text"

    def covers(self, method: str) -> bool:
        return self.methods is None or method in self.methods

    def spec(self) -> ModelSpec:
        base = parse_model_spec(self.model)
        return base.model_copy(update={"name": self.name, "params": base.params | self.params})

    @property
    def embedded(self) -> bool:
        return self.model == "embedded"


CONFIGS = (
    DemoConfig("smollm2-greedy", "logprob", {"temperature": 0.0}),
    DemoConfig("smollm2-t07", "text", {"temperature": 0.7, "seed": 7}),
    # the trust game with structured answers: the embedded server constrains each reply to the answer's JSON schema, so
    # beliefs, forecasts and multi-round play reach every view of the Trust page (still a 135M model: near chance)
    # (the paper's temperature 0.05 samples: seeded per request, as smollm2-t07, so two builds give identical tables)
    DemoConfig("smollm2-json", "text", {"seed": 7}, methods=("trust-population", "trust-individual"),
               answer_format="json"),
)


def campaign_configs(models: Sequence[str], answer_mode: Literal["logprob", "text"] = "text") -> tuple[DemoConfig, ...]:
    """The demo campaign for other models (``demo build --model SPEC``): one configuration per spec, named
    as the spec names itself (``openai:gpt-4o-mini`` -> ``gpt-4o-mini``), with the spec's own params."""
    configs = tuple(DemoConfig(parse_model_spec(m).name, answer_mode, {}, m) for m in models)
    names = [c.name for c in configs]
    if len(set(names)) != len(names):
        raise InputError(f"--model: two specs share a display name ({', '.join(names)}); use named configs from models.toml")
    return configs


SIZES: dict[str, dict[str, Any]] = {
    "full": {"values_personas": 20, "values_items": None, "values_contexts": ["no_conv", "topics_a", "topics_b", "chess"],
             "mbti_subjects": ["People", "Men", "Women", "Boys", "Girls", "Doctors", "Teachers", "Software engineers"],
             "mbti_testings": 5, "mbti_statements": 8, "trust_personas": 30, "trust_individual_personas": 2,
             "trust_attributes": None,  # the paper's Table 3 attributes (nine, test split of Table 5)
             "pg_personas": 5, "pg_questions": 2,
             # the method's default is the reference's 3000 tokens for every call; the 135M model loops to any limit
             "pg_limits": {"selection_max_tokens": 400, "question_max_tokens": 800, "examples_max_tokens": 400,
                           "grade_max_tokens": 200},
             # IPIP-NEO-120 (all items: norms) and RoleScope's short form (MTMM) to 9 shaped personas
             "inventory_domains": ["E", "A", "N"], "inventory_levels": [1, 5, 9], "inventory_items": None,
             # one persona set through values (PVQ, no_conv), IPIP-NEO-120, the trust game and PersonaGym
             # (IPIP-NEO-120's first 60 items: every facet twice; the whole PVQ)
             "cross_personas": 16, "cross_items": None, "cross_inventory_items": 60, "cross_rounds": 3},
    "reduced": {"values_personas": 2, "values_items": 6, "values_contexts": ["no_conv", "topics_b"],
                "mbti_subjects": ["Men", "Women"], "mbti_testings": 2, "mbti_statements": 4, "trust_personas": 3,
                "trust_individual_personas": 1, "trust_attributes": ["age", "us_citizenship"], "pg_personas": 1, "pg_questions": 1,
                "pg_limits": {"selection_max_tokens": 300, "question_max_tokens": 600, "examples_max_tokens": 300,
                              "grade_max_tokens": 120},
                "inventory_domains": ["E"], "inventory_levels": [1, 5, 9], "inventory_items": 6,
                # the fewest personas a correlation needs; PersonaGym left out (its reduced run above exercises it)
                "cross_personas": 5, "cross_items": 6, "cross_inventory_items": 6, "cross_rounds": 1,
                "cross_methods": ["values", "inventory", "trust"]},
}
# Reply lengths: a 135M model rambles to any limit, and generated tokens are most of the build's time
# (~80 tokens/s on this 2-core box). A number or an option comes first when it comes at all.
MBTI_TEXT_TOKENS = 24
TRUST_TOKENS = {"belief": 300, "action": 200, "forecast": 300, "round": 160}
PG_ANSWER_TOKENS = 160
INVENTORY_TEXT_TOKENS = 8


def _inventory_plan(config: DemoConfig, size: dict[str, Any], inventory: str = "ipip-neo-120") -> dict[str, Any]:
    from analysis.methods.inventory.options import InventoryOptions
    from analysis.methods.inventory.plan import build_plan

    options = InventoryOptions(inventory=inventory, domains=size["inventory_domains"], levels=size["inventory_levels"],
                               biographies=1, limit_items=size["inventory_items"], answer_mode=config.answer_mode,
                               max_tokens=INVENTORY_TEXT_TOKENS, prefix_reuse=True)
    return build_plan(options, config.spec()).model_dump()


def _values_plan(config: DemoConfig, size: dict[str, Any]) -> dict[str, Any]:
    from analysis.methods.values.method import build_values_plan

    plan = build_values_plan(
        config.spec(), contexts=size["values_contexts"], limit_personas=size["values_personas"],
        limit_items=size["values_items"], answer_mode=config.answer_mode, seed=0, prefix_reuse=True,
    )
    return plan.model_dump()


def _mbti_plan(config: DemoConfig, size: dict[str, Any]) -> dict[str, Any]:
    from analysis.methods.mbti.method import build_mbti_plan

    # 8 statements (every dimension) fit the embedded history window (10):
    # each call extends the previous call's cached prefix
    return build_mbti_plan(
        config.spec(), subjects=size["mbti_subjects"], testings=size["mbti_testings"], order="both",
        limit_statements=size["mbti_statements"], answer_mode=config.answer_mode, seed=0,
        text_max_tokens=MBTI_TEXT_TOKENS, prefix_reuse=True,
    ).model_dump()


def _trust_population_plan(config: DemoConfig, size: dict[str, Any]) -> dict[str, Any]:
    from analysis.methods.trust.method import build_trust_plan

    return build_trust_plan(config.spec(), level="population", conditioning="self", max_tokens=TRUST_TOKENS,
                            attributes=size["trust_attributes"], limit_personas=size["trust_personas"], seed=0,
                            answer_format=config.answer_format).model_dump()


def _trust_individual_plan(config: DemoConfig, size: dict[str, Any]) -> dict[str, Any]:
    from analysis.methods.trust.method import build_trust_plan

    return build_trust_plan(config.spec(), level="individual", rounds=6, archetypes=(1, 3, 5), max_tokens=TRUST_TOKENS,
                            limit_personas=size["trust_individual_personas"], seed=0, prefix_reuse=True,
                            answer_format=config.answer_format).model_dump()


def _personagym_plan(config: DemoConfig, size: dict[str, Any]) -> dict[str, Any]:
    from analysis.methods.personagym.method import build_personagym_plan

    return build_personagym_plan(config.spec(), personas=size["pg_personas"], questions_per_task=size["pg_questions"],
                                 evaluators=[parse_model_spec("embedded")] if config.embedded else None,
                                 grade_without_examples=True, seed=0,
                                 answer_max_tokens=PG_ANSWER_TOKENS, **size["pg_limits"]).model_dump()


def _cross_method_plan(config: DemoConfig, size: dict[str, Any]) -> dict[str, Any]:
    """The cross-method campaign: the first personas of the bundled set through every method that takes them, each
    on its protocol with the demo's reply caps (the inventory in the paper's ascending order only)."""
    from analysis.methods.cross_method.options import CrossMethodOptions
    from analysis.methods.cross_method.plan import build_plan

    items = [f"values.limit_items={size['cross_items']}"] if size["cross_items"] else []
    items += [f"inventory.limit_items={size['cross_inventory_items']}"] if size["cross_inventory_items"] else []
    settings = [
        f"values.answer_mode={config.answer_mode}", "values.prefix_reuse=true",
        f"inventory.answer_mode={config.answer_mode}", "inventory.order=ascending",
        f"inventory.max_tokens={INVENTORY_TEXT_TOKENS}", "inventory.prefix_reuse=true",
        f"trust.rounds={size['cross_rounds']}", "trust.archetypes=1+3+5", f"trust.max_tokens={TRUST_TOKENS['action']}",
        "trust.prefix_reuse=true",
        "personagym.questions_per_task=1", f"personagym.max_tokens={PG_ANSWER_TOKENS}",
        f"personagym.call_max_tokens={size['pg_limits']['selection_max_tokens']}",
        *(["personagym.evaluators=embedded"] if config.embedded else []), *items,
    ]
    methods = size.get("cross_methods")
    if methods:
        settings = [s for s in settings if s.split(".", 1)[0] in methods]
    options = CrossMethodOptions(personas=str(size["cross_personas"]), methods=methods, set=settings)
    return build_plan(options, config.spec()).model_dump()


def _values_svs_plan(config: DemoConfig, size: dict[str, Any], svs: str | Path) -> dict[str, Any]:
    """no_conv on the SVS procedure (the instrument comes from the user: it is not bundled)."""
    from analysis.methods.values.method import build_values_plan

    plan = build_values_plan(config.spec(), contexts=["no_conv"], instrument=svs, limit_personas=size["values_personas"],
                             limit_items=size["values_items"], answer_mode=config.answer_mode, seed=0, prefix_reuse=True)
    return plan.model_dump()


PLANNERS: dict[str, Callable[[DemoConfig, dict[str, Any]], dict[str, Any]]] = {
    "mbti": _mbti_plan,
    "trust-population": _trust_population_plan,
    "trust-individual": _trust_individual_plan,
    "personagym": _personagym_plan,
    "values": _values_plan,
    "inventory": _inventory_plan,
    "inventory-mini": partial(_inventory_plan, inventory="rolescope-mini"),
    "cross-method": _cross_method_plan,
}
#: Campaigns whose runs are dated before every other run of the demo: their parts are runs of the other methods, and
#: each method's page opens on its model's newest configuration, which should stay the method's own demo campaign.
DATED_FIRST = ("cross-method",)
METHOD_OF = {"cross-method": "cross_method", "trust-population": "trust", "trust-individual": "trust", "values-svs": "values", "inventory-mini": "inventory"}


def build_demo(store_path: Path = DEMO_STORE, size: Size = "full", methods: list[str] | None = None,
               concurrency: int = 2, log: Callable[[str], None] = lambda m: print(m, file=sys.stderr),
               configs: Sequence[DemoConfig] = CONFIGS, cancel: threading.Event | None = None,
               svs: str | Path | None = None, rederive: bool = False, chance_sims: int | None = None,
               imports: Path | None | Literal[False] = None) -> list[str]:
    """Create or resume every run of the campaign; returns the run ids. Prints progress lines on ``log``.
    ``rederive``: replace every run and run it again from the call cache, so its tables are parsed anew from the
    stored replies (a run's later requests may depend on what was parsed: those not made before are sent).
    ``cancel`` (Ctrl-C in the CLI) stops the current run gracefully and skips the rest; the store is still finalized.
    ``svs``: an SVS instrument (folder or hf:// path) adds a ``values-svs`` run (no_conv) per configuration.
    ``chance_sims``: simulations per null model cached in the store for every page's chance bands (default: the
    dashboard's ``analysis.chance.DEFAULT_SIMS`` for the bundled demo, none for other stores).
    ``imports``: a folder of the public sources of real models' answers that methods import, numbers only
    (``Method.bundled_imports``; default: the anchors copy for the bundled demo, none for other stores; False: none)."""
    planners = dict(PLANNERS)
    if svs is not None:
        planners["values-svs"] = partial(_values_svs_plan, svs=svs)
    unknown = sorted(set(methods or []) - set(planners))
    if unknown:
        hint = " (values-svs needs --svs PATH)" if "values-svs" in unknown else ""
        raise InputError(f"--methods: unknown {', '.join(unknown)}; choose from {', '.join(planners)}{hint}")
    if _is_bundled(store_path) and not store_path.exists() and DEMO_ARCHIVE.exists():
        unpack(DEMO_ARCHIVE, store_path)  # resume from the committed demo, not from nothing
    run_ids = []
    with Store(store_path) as store:
        for config in configs:  # one configuration complete before the other
            for method in methods or list(planners):
                if not config.covers(method):
                    continue
                run_id = f"demo-{method}-{re.sub(r'[^A-Za-z0-9._-]+', '-', config.name)}"
                plan = planners[method](config, SIZES[size])
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
                    create_run(store, METHOD_OF.get(method, method), config.spec(), plan, run_id)
                elif existing["status"] == "completed":
                    log(f"{run_id}: already complete")
                    run_ids.append(run_id)
                    if method in DATED_FIRST:
                        date_first(store, run_id)
                    continue
                tracker = ProgressTracker()
                tracker.subscribe(_line_logger(run_id, log))
                summary = execute_run(store, run_id, concurrency=concurrency, progress=tracker, cancel=cancel)
                log(f"{run_id}: {summary.status}, {summary.done}/{summary.total} calls, {summary.seconds:.0f}s")
                run_ids.append(run_id)
                if method in DATED_FIRST:
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
    if sims > 0 and not (cancel is not None and cancel.is_set()):
        precompute_chance(store_path, sims, log)
    finalize(store_path)
    return run_ids


#: Where the public sources of real models' answers are found by default: the anchors copy beside the repository.
ANCHORS = REPO_ROOT.parent / "shared" / "anchors"


def import_published(store_path: Path, folder: Path, log: Callable[[str], None]) -> list[str]:
    """Import, numbers only, every public source a method declares (``Method.bundled_imports``) found under
    ``folder``; a source not there is skipped and said. Importing twice stores nothing twice."""
    from analysis import methods

    run_ids: list[str] = []
    with Store(store_path) as store:
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


def precompute_chance(store_path: Path, n_sims: int, log: Callable[[str], None]) -> None:
    """Simulate every null the pages show (``Method.chance`` of every method, and the CFA/separability nulls of every
    values context) so their draws are cached in the store: a first visit shows its bands at once."""
    from analysis import methods
    from analysis.methods.values.compare import values_fit_chance
    from analysis.methods.values.metrics import _context_keys, latest_answers, values_metrics

    with Store(store_path) as store:
        store.clear(NULL_TABLE.name)  # draws of an older design or simulation version are never read again
        for method in methods.all_methods():
            started = time.monotonic()
            method.chance(store, n_sims)
            log(f"chance: {method.name} nulls ({n_sims} draws each) in {time.monotonic() - started:.0f}s")
        metrics = values_metrics(store, n_boot=0)
        answers = latest_answers(store)
        started = time.monotonic()
        for model, group in (answers.groupby("model", sort=True) if len(answers) else []):
            for key in _context_keys(group).values():
                values_fit_chance(store, metrics, str(model), key, n_sims)
        log(f"chance: CFA and separability nulls of every context in {time.monotonic() - started:.0f}s")


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


def finalize(store_path: Path) -> None:
    """Checkpoint the WAL into the file and switch to rollback journal, so the file alone is the store;
    the bundled store is also packed into its committed archive (``analysis.demo_store``) and its metric documents
    are computed for a first visit without waiting (``python -m app.documents``, in its own process: the dashboard's
    code, which this package does not import)."""
    conn = sqlite3.connect(store_path)
    try:
        if _is_bundled(store_path):
            prune_unreferenced_calls(conn)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("VACUUM")
    finally:
        conn.close()
    if _is_bundled(store_path):
        pack(store_path, DEMO_ARCHIVE)
        env = {k: v for k, v in os.environ.items() if k not in ("ROLESCOPE_N_BOOT", "ROLESCOPE_CHANCE_SIMS")}
        subprocess.run([sys.executable, "-m", "app.documents", "--store", str(store_path)], cwd=REPO_ROOT, env=env,
                       check=True)
