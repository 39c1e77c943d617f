"""No import cycle among RoleScope's modules: the imports of ``analysis`` and ``app`` form a DAG, both those at module
level (leaving out ``TYPE_CHECKING`` blocks: a cycle there fails at import time) and every import, inside functions
and ``TYPE_CHECKING`` blocks included (a cycle there is a tangle of modules that need each other, even if it never
fails: the function or constant both sides need belongs in a module below them)."""

from __future__ import annotations

import ast
from pathlib import Path

from graphlib import CycleError, TopologicalSorter

REPO = Path(__file__).resolve().parents[1]


def _module(path: Path) -> str:
    name = ".".join(path.relative_to(REPO).with_suffix("").parts)
    return name.removesuffix(".__init__")


def _targets(node: ast.AST) -> list[str]:
    """The modules an import statement names (``from m import x`` names ``m`` and, if it is a module, ``m.x``)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    return []


def import_graph(*, inline: bool = False) -> dict[str, set[str]]:
    """module -> the modules of ``analysis`` and ``app`` it imports at module level; with ``inline``, every import
    anywhere in the module (``ast.walk``: function bodies and ``TYPE_CHECKING`` blocks too)."""
    paths = {_module(p): p for root in ("analysis", "app") for p in (REPO / root).rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if inline:
            statements = list(ast.walk(tree))
        else:
            statements = []
            for node in tree.body:
                if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                    continue
                statements += node.body if isinstance(node, (ast.If, ast.Try)) else [node]
        for imp in statements:
            graph[name] |= {t for t in _targets(imp) if t in paths and t != name}
    return graph


def _assert_acyclic(graph: dict[str, set[str]]) -> None:
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        raise AssertionError(f"import cycle: {' -> '.join(exc.args[1])}") from None


def test_module_level_imports_have_no_cycle() -> None:
    graph = import_graph()
    assert sum(map(len, graph.values())) > 100  # the graph was read
    _assert_acyclic(graph)


def test_no_import_cycle_inline_imports_included() -> None:
    """Every import counts, those inside functions too: a module's function that imports the module importing it
    (``method.py`` <-> ``cli.py``) is a cycle. What both need moves to a module neither imports back (``plan.py``)."""
    graph = import_graph(inline=True)
    module_level = import_graph()
    assert all(module_level[m] <= graph[m] for m in graph)  # a superset of the module-level graph
    assert sum(map(len, graph.values())) > sum(map(len, module_level.values()))  # the inline imports were read
    _assert_acyclic(graph)


def test_the_run_engine_imports_nothing_above_it() -> None:
    """``analysis/runs/`` (store, runner, executor, progress, outcome) is the bottom layer under the methods: no import
    of it, inline ones included, reaches the registry, a method or any module outside ``runs``, ``llm`` and
    ``errors`` (the run engine is handed its method by the caller: ``analysis.methods.create_run``), but for the leaves
    ``importers.files`` and ``cli_types`` (the Ray driver's options)."""
    allowed = ("analysis.runs", "analysis.llm", "analysis.errors", "analysis.importers.files", "analysis.cli_types")
    found = []
    for path in sorted((REPO / "analysis/runs").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                       else [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
            found += [f"{path.relative_to(REPO)}:{node.lineno} {m}" for m in modules
                      if m.startswith("analysis") and not m.startswith(allowed)]
    assert found == []


def test_the_library_imports_nothing_from_the_app() -> None:
    """``analysis/`` (the library and its CLI: ``figure``, ``report``, the report file) stands below the dashboard: no
    import in it, inline ones included, reaches ``app`` or ``pages``."""
    found = []
    for path in sorted((REPO / "analysis").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                       else [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
            found += [f"{path.relative_to(REPO)}:{node.lineno} {m}" for m in modules if m.split(".")[0] in ("app", "pages")]
    assert found == []
