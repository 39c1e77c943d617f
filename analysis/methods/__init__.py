"""The registry of methods: one folder each under ``analysis/methods/``, found without importing it.

``names()`` lists the folders that hold a ``method.py``; ``get(name)`` imports that module on first use and returns
its ``METHOD`` (``analysis.methods.base.Method``). Shared code loops over ``all_methods()`` and never names a method.
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from analysis.errors import InputError

if TYPE_CHECKING:  # the registry itself stays import-light: start-up lists methods without importing them
    from analysis.llm.specs import ModelSpec
    from analysis.methods.base import Method
    from analysis.runs.runner import RunSummary
    from analysis.runs.store import Store

FOLDER = Path(__file__).resolve().parent


@cache
def names() -> tuple[str, ...]:
    """Every method folder's name (a folder with ``method.py``), alphabetically."""
    return tuple(sorted(p.parent.name for p in FOLDER.glob("*/method.py")))


@cache
def get(name: str) -> Method:
    """The method ``name`` (imported now if it was not yet); a dash may stand for an underscore (``cross-method``).
    Unknown names are an ``InputError`` listing the known."""
    name = name.replace("-", "_")
    if name not in names():
        raise InputError(f"method '{name}' is not available; known: {', '.join(names())}")
    method = importlib.import_module(f"{__name__}.{name}.method").METHOD
    if method.name != name:
        raise RuntimeError(f"{FOLDER / name / 'method.py'} exports METHOD named '{method.name}'")
    return method


def all_methods() -> list[Method]:
    """Every method, in display order."""
    return sorted((get(n) for n in names()), key=lambda m: (m.order, m.name))


def source_paths(name: str) -> tuple[str, ...]:
    """What a report of ``name`` depends on (``analysis.report_cache.code_fingerprint``): the method's folder and the
    shared modules it declares (``Method.source_paths``); all of ``analysis`` for a name that is no method."""
    return get(name).source_paths if name in names() else ("analysis",)


def family(method: str, name: str | None = None) -> Any:
    """The comparability family ``name`` of ``method`` (``analysis.runs.comparable.Family``; default its first)."""
    families = get(method).families
    return next(f for f in families if name in (None, f.name))


def create_run(store: Store, method: str, spec: ModelSpec, plan: dict[str, Any], run_id: str | None = None) -> str:
    """``analysis.runs.runner.create_run`` with the method looked up by name."""
    from analysis.runs.runner import create_run as create

    return create(store, get(method), spec, plan, run_id)


def execute_run(store: Store, run_id: str, **kwargs: Any) -> RunSummary:
    """``analysis.runs.runner.execute_run`` handed the stored run's method."""
    from analysis.runs.runner import execute_run as execute

    return execute(store, run_id, method=get(store.get_run(run_id)["method"]), **kwargs)


async def execute_run_async(store: Store, run_id: str, **kwargs: Any) -> RunSummary:
    from analysis.runs.runner import execute_run_async as execute

    return await execute(store, run_id, method=get(store.get_run(run_id)["method"]), **kwargs)
