"""One self-contained HTML file of a store's results: ``python -m analysis report --store S --out report.html``, and
the dashboard's "Download report" buttons.

- ``contents``: what the file holds, gathered from the store (pydantic ``ReportContents``): the manifest, each method's
  headlines with their chance verdicts, counts, published comparators, design, evidence and figures, the reports as
  ``metrics --json`` prints them, and the store's result tables;
- ``html``: the page (Plotly's JavaScript inlined once; opens from ``file://`` with no network);
- ``restore``: ``python -m analysis import rolescope-report report.html`` reads the tables back into a store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis.report_file.contents import ReportContents, gather


def plotly_js() -> str:
    """Plotly's JavaScript bundle as the installed plotly package ships it (no CDN)."""
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def report_html(store: Any, *, models: list[str] | None = None, methods: list[str] | None = None,
                runs: list[str] | None = None, figures: bool = True,
                configs: dict[str, Any] | None = None, **options: int) -> str:
    """The report file's text for ``store`` (``contents.gather``, the results table for the paper of the same
    methods, models and options, then ``html.render``); ``options``: ``n_boot`` and ``chance`` of ``gather``."""
    from analysis.report_file.html import render
    from analysis.results_table import results_table

    contents = gather(store, models=models, methods=methods, runs=runs, figures=figures, configs=configs, **options)
    table = results_table(store, models=models, methods=[s.name for s in contents.methods], configs=configs,
                          **options)  # the reports gather read, read again from their cache
    return render(contents.model_copy(update={"results": table.model_dump()}), plotly_js())


__all__ = ["ReportContents", "gather", "plotly_js", "report_html"]
