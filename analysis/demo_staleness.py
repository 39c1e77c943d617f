"""Which runs of the bundled demo were asked with an older prompt: the plan today's campaign builds for a demo run
(``analysis.demo.demo_parts``, each configuration of ``analysis.demo.CONFIGS``) compared with the plan the store holds.

A run's plan fixes every message it sends (personas, contexts, items, options, protocol), so a plan that differs from
today's is a run whose prompts today's code would not send (e.g. persona descriptions rewritten since the build). The
dashboard says so beside such a run's model, and ``tests/test_demo_staleness.py`` fails on it until the demo is rebuilt
(``python -m analysis demo build``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from analysis.llm.specs import BATCH_LIMITS

#: Model-spec fields a plan may carry that change no request sent (prices, how batches are cut): a difference only
#: there is not stale.
NOT_SENT = frozenset({"batch_price_factor", "price_input_per_mtok", "price_output_per_mtok", *BATCH_LIMITS})


def plan_differences(stored: Any, today: Any, path: str = "") -> list[str]:
    """Paths (``personas[].description``) where ``stored`` and ``today`` differ, list positions collapsed to ``[]``."""
    if isinstance(stored, dict) and isinstance(today, dict):
        out: list[str] = []
        for key in sorted(set(stored) | set(today)):
            if key in NOT_SENT:
                continue
            where = f"{path}.{key}" if path else key
            if key not in stored or key not in today:
                out.append(where)
            else:
                out += plan_differences(stored[key], today[key], where)
        return out
    if isinstance(stored, list) and isinstance(today, list):
        if len(stored) != len(today):
            return [f"{path} ({len(stored)} entries, today {len(today)})"]
        return [d for a, b in zip(stored, today) for d in plan_differences(a, b, f"{path}[]")]
    return [] if stored == today else [path]


def stale_runs(stored_plans: Mapping[str, Mapping[str, Any]], configs: Sequence[Any], parts: Mapping[str, Any],
               size: str = "full") -> dict[str, str]:
    """Demo run id -> why it is stale (the plan fields that differ from today's), for every demo run among
    ``stored_plans`` (run id -> its stored plan) whose plan is not what today's campaign builds (``configs``: the
    demo's configurations, ``parts``: its parts by name: ``analysis.demo.CONFIGS``, ``demo_parts()``)."""
    out: dict[str, str] = {}
    for config in configs:
        for name, part in parts.items():
            if part.needs is not None or not config.covers(part):
                continue
            run_id = config.run_id(name)
            if run_id not in stored_plans:
                continue
            today = json.loads(json.dumps(part.plan(config, size)))
            differences = sorted(dict.fromkeys(plan_differences(stored_plans[run_id], today)))
            if differences:
                shown = ", ".join(differences[:4]) + (f" and {len(differences) - 4} more" if len(differences) > 4 else "")
                out[run_id] = f"asked with an older prompt: its plan differs from today's in {shown}"
    return out


def store_stale_runs(store: Any, configs: Sequence[Any], parts: Mapping[str, Any], size: str = "full") -> dict[str, str]:
    """``stale_runs`` of a store's demo runs (an ``analysis.runs.store.Store``)."""
    frame = store.frame("SELECT run_id, plan FROM runs WHERE run_id LIKE 'demo-%' AND status != 'imported'")
    return stale_runs({r: json.loads(p) for r, p in zip(frame["run_id"], frame["plan"])}, configs, parts, size)


#: The ``meta`` key under which the bundled demo lists its runs asked with an older prompt.
STALE_KEY = "demo_stale_runs"


def recorded_stale_runs(store: Any) -> dict[str, str] | None:
    """What ``analysis.demo.record_stale_runs`` wrote in the store's ``meta`` (None: a store that never recorded it)."""
    value = store.get_meta(STALE_KEY)
    return None if value is None else json.loads(value)
