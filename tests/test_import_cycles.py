"""No import cycle among RoleScope's modules: the module-level imports of ``analysis`` and ``app`` form a DAG
(imports inside functions run later and are left out; so are ``TYPE_CHECKING`` blocks)."""

from __future__ import annotations

import ast
from pathlib import Path

from graphlib import CycleError, TopologicalSorter

REPO = Path(__file__).resolve().parents[1]


def _module(path: Path) -> str:
    name = ".".join(path.relative_to(REPO).with_suffix("").parts)
    return name.removesuffix(".__init__")


def import_graph() -> dict[str, set[str]]:
    """module -> the modules of ``analysis`` and ``app`` it imports at module level."""
    paths = {_module(p): p for root in ("analysis", "app") for p in (REPO / root).rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            for imp in (node.body if isinstance(node, (ast.If, ast.Try)) else [node]):
                if isinstance(imp, ast.Import):
                    targets = [a.name for a in imp.names]
                elif isinstance(imp, ast.ImportFrom) and imp.module and imp.level == 0:
                    targets = [imp.module, *(f"{imp.module}.{a.name}" for a in imp.names)]
                else:
                    continue
                graph[name] |= {t for t in targets if t in paths and t != name}
    return graph


def test_module_level_imports_have_no_cycle() -> None:
    graph = import_graph()
    assert sum(map(len, graph.values())) > 100  # the graph was read
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        raise AssertionError(f"import cycle: {' -> '.join(exc.args[1])}") from None


def test_the_run_engine_imports_nothing_above_it() -> None:
    """``analysis/runs/`` (store, runner, executor, progress, outcome) is the bottom layer under the methods: no import
    of it, inline ones included, reaches the registry, a method or any module outside ``runs``, ``llm`` and
    ``errors`` (the run engine is handed its method by the caller: ``analysis.methods.create_run``)."""
    allowed = ("analysis.runs", "analysis.llm", "analysis.errors", "analysis.importers.files")
    found = []
    for path in sorted((REPO / "analysis/runs").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                       else [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
            found += [f"{path.relative_to(REPO)}:{node.lineno} {m}" for m in modules
                      if m.startswith("analysis") and not m.startswith(allowed)]
    assert found == []
