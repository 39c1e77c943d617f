"""A small synthetic store for the app tests, the browser suite and the app bench.

Two models (named like the demo's two embedded configurations), each with every registered method's answers: each
method writes its own (``fixture_answers(store, model, seed)`` in its test package, ``tests/methods/<m>/``, or
its ``fixture.py``), in the
order of their ``FIXTURE_SEED``. A few answers are invalid and a few have their call stored, so the per-sample
drill-down has full messages to show. The tiny store holds one embedded run's worth of the methods that give one
(``tiny_answers(store)``).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from analysis import methods as registry
from analysis.runs.store import Store

MODELS = ("smollm2-greedy", "smollm2-t07")


def _test_package(method: str) -> ModuleType:
    return importlib.import_module(f"tests.methods.{method}")


def _fixture_module(method: str) -> ModuleType:
    """Where the method's fixture answers are: its test package's ``fixture.py`` when it has one, else the package."""
    try:
        return importlib.import_module(f"tests.methods.{method}.fixture")
    except ModuleNotFoundError as exc:
        if exc.name != f"tests.methods.{method}.fixture":
            raise
        return _test_package(method)


def build_fixture_store(path: str | Path, *, methods: tuple[str, ...] | None = None) -> Path:
    """Write the fixture store at ``path`` (a new file) and return its path: every registered method's answers
    (``methods`` only, when given), model k's seeded with k + the method's ``FIXTURE_SEED``."""
    chosen = tuple(registry.names()) if methods is None else methods
    ordered = sorted(chosen, key=lambda m: _test_package(m).FIXTURE_SEED)
    path = Path(path)
    with Store(path) as store:
        for k, model in enumerate(MODELS):
            for method in ordered:
                _fixture_module(method).fixture_answers(store, model, seed=k + _test_package(method).FIXTURE_SEED)
    return path


def build_tiny_store(path: str | Path) -> Path:
    """One embedded run's worth of data of each method that gives one (values: 2 personas x no_conv x 5 items; MBTI:
    People x 1 testing x 5 statements)."""
    path = Path(path)
    with Store(path) as store:
        for method in registry.names():
            tiny = getattr(_fixture_module(method), "tiny_answers", None)
            if tiny is not None:
                tiny(store)
    return path


def add_real_models(path: str | Path) -> list[str]:
    """Add to the store at ``path`` the published answers of real models that methods' fixtures offer
    (``real_answers(store)`` in a method's ``fixture.py``: imported numbers only, from ``../shared/anchors``); returns
    the methods that added some (none when the anchors copy is absent)."""
    added = []
    with Store(Path(path)) as store:
        for method in registry.names():
            real = getattr(_fixture_module(method), "real_answers", None)
            if real is not None and real(store):
                added.append(method)
    return added


if __name__ == "__main__":
    import sys

    print(build_fixture_store(sys.argv[1]))
