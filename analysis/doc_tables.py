"""Tables of numbers in the docs, generated from the reports rather than copied (``python -m analysis docs``).

A doc marks a generated table with two comments around it::

    <!-- generated: trust.agent_trust_readers -->
    | model | … |
    <!-- /generated -->

``trust.agent_trust_readers`` names the function ``agent_trust_readers`` of ``analysis/methods/trust/doc_tables.py``
(each method keeps its own: shared code never names a method), called with that method's report of the bundled demo
store (``Method.cached_report`` with the options ``demo build`` precomputes, so a rebuilt demo computes nothing here)
and returning the Markdown between the markers. ``python -m analysis docs`` rewrites every block;
``python -m analysis docs --check`` (and ``tests/test_doc_tables.py``) fails on a block that is not what the reports
give today.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from analysis.errors import InputError

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"(<!-- generated: (?P<name>[a-z_]+\.[a-z_0-9]+) -->\n)(?P<body>.*?)(<!-- /generated -->)", re.S)


def generator(name: str) -> tuple[str, Callable[[Mapping[str, Any]], str]]:
    """``method.function`` -> (method, the function of ``analysis/methods/<method>/doc_tables.py``)."""
    method, function = name.split(".", 1)
    try:
        module = importlib.import_module(f"analysis.methods.{method}.doc_tables")
    except ModuleNotFoundError:
        raise InputError(f"generated table '{name}': no analysis/methods/{method}/doc_tables.py") from None
    found = getattr(module, function, None)
    if not callable(found):
        raise InputError(f"generated table '{name}': no function {function} in analysis/methods/{method}/doc_tables.py")
    return method, found


def render(text: str, report: Callable[[str], Mapping[str, Any]]) -> str:
    """``text`` with every generated block rewritten from ``report(method)``."""
    def fill(m: re.Match[str]) -> str:
        method, make = generator(m.group("name"))
        body = make(report(method)).rstrip("\n") + "\n"
        return m.group(1) + body + m.group(4)

    return BLOCK.sub(fill, text)


def demo_reports(store: Any) -> Callable[[str], Mapping[str, Any]]:
    """method -> its report of ``store`` with the bundled demo's precomputed options (memoised)."""
    from analysis import methods
    from analysis.chance import DEFAULT_SIMS
    from analysis.demo import DASHBOARD_BOOT

    seen: dict[str, Mapping[str, Any]] = {}

    def report(method: str) -> Mapping[str, Any]:
        if method not in seen:
            seen[method] = methods.get(method).cached_report(store, n_boot=DASHBOARD_BOOT, chance=DEFAULT_SIMS)
        return seen[method]

    return report


def stale_docs(store: Any, docs: Path = DOCS) -> dict[Path, str]:
    """Every doc whose generated blocks differ from what the reports give today: path -> its text as it should be."""
    report = demo_reports(store)
    out = {}
    for path in sorted(docs.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if BLOCK.search(text) and (new := render(text, report)) != text:
            out[path] = new
    return out


def fmt(x: float | None, digits: int = 2) -> str:
    """A number for a doc table: fixed ``digits``, "—" when undefined."""
    return "—" if x is None else f"{x:.{digits}f}"


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])
