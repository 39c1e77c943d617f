"""The bundled demo store: every method run by the embedded model in two configurations.

``python -m analysis demo build`` (re)creates ``data/demo/rolescope-demo.db`` from the project's
authored data. Configurations (both SmolLM2-135M-Instruct, recorded with each run's plan):

- ``smollm2-greedy``: logprob option scoring, greedy decoding (temperature 0);
- ``smollm2-t07``: free-text answers sampled at temperature 0.7 with a fixed seed.

Run ids are fixed (``demo-<method>-<config>``), so an interrupted build resumes where it stopped
(finished calls are in the store's call cache) and a rebuild is deterministic: the embedded server
repeats bit-identical replies with prefix reuse off, and sampling is seeded per request.
``size="reduced"`` is the small campaign CI builds twice to check determinism.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from analysis.llm.specs import ModelSpec, parse_model_spec
from analysis.runs.progress import ProgressTracker
from analysis.runs.runner import create_run, execute_run
from analysis.runs.store import Store

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO_STORE = REPO_ROOT / "data/demo/rolescope-demo.db"
Size = Literal["full", "reduced"]


@dataclass(frozen=True)
class DemoConfig:
    name: str
    answer_mode: Literal["logprob", "text"]
    params: dict[str, Any]

    def spec(self) -> ModelSpec:
        return parse_model_spec("embedded").model_copy(update={"name": self.name, "params": self.params})


CONFIGS = (
    DemoConfig("smollm2-greedy", "logprob", {"temperature": 0.0}),
    DemoConfig("smollm2-t07", "text", {"temperature": 0.7, "seed": 7}),
)

SIZES: dict[str, dict[str, Any]] = {
    "full": {"values_personas": 20, "values_items": None, "values_contexts": ["no_conv", "topics_a", "topics_b", "chess"],
             "mbti_subjects": ["People", "Men", "Women", "Boys", "Girls", "Doctors", "Teachers", "Software engineers"],
             "mbti_testings": 5, "mbti_statements": 20, "trust_personas": 30, "trust_individual_personas": 2,
             "pg_personas": 5, "pg_questions": 2},
    "reduced": {"values_personas": 3, "values_items": 10, "values_contexts": ["no_conv", "topics_b"],
                "mbti_subjects": ["Men", "Women"], "mbti_testings": 2, "mbti_statements": 5, "trust_personas": 4,
                "trust_individual_personas": 1, "pg_personas": 1, "pg_questions": 1},
}


def _values_plan(config: DemoConfig, size: dict[str, Any]) -> dict[str, Any]:
    from analysis.values.method import build_values_plan

    return build_values_plan(
        config.spec(), contexts=size["values_contexts"], limit_personas=size["values_personas"],
        limit_items=size["values_items"], messages=3, answer_mode=config.answer_mode, seed=0,
    ).model_dump()


def _mbti_plan(config: DemoConfig, size: dict[str, Any]) -> dict[str, Any]:
    from analysis.mbti.method import build_mbti_plan

    return build_mbti_plan(
        config.spec(), subjects=size["mbti_subjects"], testings=size["mbti_testings"], order="both",
        limit_statements=size["mbti_statements"], answer_mode=config.answer_mode, seed=0,
    ).model_dump()


def _trust_population_plan(config: DemoConfig, size: dict[str, Any]) -> dict[str, Any]:
    from analysis.trust.method import build_trust_plan

    return build_trust_plan(config.spec(), level="population", conditioning="self",
                            limit_personas=size["trust_personas"], seed=0).model_dump()


def _trust_individual_plan(config: DemoConfig, size: dict[str, Any]) -> dict[str, Any]:
    from analysis.trust.method import build_trust_plan

    return build_trust_plan(config.spec(), level="individual", rounds=6, archetypes=(1, 3, 5),
                            limit_personas=size["trust_individual_personas"], seed=0).model_dump()


def _personagym_plan(config: DemoConfig, size: dict[str, Any]) -> dict[str, Any]:
    from analysis.personagym.method import build_personagym_plan

    return build_personagym_plan(config.spec(), personas=size["pg_personas"], questions_per_task=size["pg_questions"],
                                 evaluators=[parse_model_spec("embedded")], grade_without_examples=True, seed=0).model_dump()


PLANNERS: dict[str, Callable[[DemoConfig, dict[str, Any]], dict[str, Any]]] = {
    "values": _values_plan,
    "mbti": _mbti_plan,
    "trust-population": _trust_population_plan,
    "trust-individual": _trust_individual_plan,
    "personagym": _personagym_plan,
}
METHOD_OF = {"trust-population": "trust", "trust-individual": "trust"}


def build_demo(store_path: Path = DEMO_STORE, size: Size = "full", methods: list[str] | None = None,
               concurrency: int = 2, log: Callable[[str], None] = lambda m: print(m, file=sys.stderr)) -> list[str]:
    """Create or resume every demo run; returns the run ids. Prints one progress line per run."""
    run_ids = []
    with Store(store_path) as store:
        for method in methods or list(PLANNERS):
            for config in CONFIGS:
                run_id = f"demo-{method}-{config.name}"
                if store.query_one("SELECT status FROM runs WHERE run_id=?", (run_id,)) is None:
                    create_run(store, METHOD_OF.get(method, method), config.spec(), PLANNERS[method](config, SIZES[size]), run_id)
                elif store.get_run(run_id)["status"] == "completed":
                    log(f"{run_id}: already complete")
                    run_ids.append(run_id)
                    continue
                tracker = ProgressTracker()
                tracker.subscribe(_line_logger(run_id, log))
                summary = execute_run(store, run_id, concurrency=concurrency, progress=tracker)
                log(f"{run_id}: {summary.status}, {summary.done}/{summary.total} calls, {summary.seconds:.0f}s")
                run_ids.append(run_id)
    finalize(store_path)
    return run_ids


def _line_logger(run_id: str, log: Callable[[str], None]) -> Callable[[Any], None]:
    step = {"next": 0.0}

    def on_event(ev: Any) -> None:
        if ev.total and ev.fraction >= step["next"]:
            log(f"{run_id}: {ev.done}/{ev.total} calls ({ev.cached} cached, {ev.failed} failed)")
            step["next"] = ev.fraction + 0.1

    return on_event


def finalize(store_path: Path) -> None:
    """Checkpoint the WAL into the file and switch to rollback journal, so the file alone is the store."""
    conn = sqlite3.connect(store_path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("VACUUM")
    finally:
        conn.close()
