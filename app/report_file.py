"""The "Download report" button of the Overview, Compare and every method page: the report file
(``analysis.report_file``) of what the page shows, with each method's figures (``Method.figures``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the CLI's ``report`` imports ``figures`` without Streamlit
    from app.stores import StoreRef


def report_bytes(ref: StoreRef, *, models: Sequence[str] | None = None, methods: Sequence[str] | None = None) -> bytes:
    """The report file of ``ref``'s store for these models and methods (all when None), as UTF-8 bytes: each method's
    numbers under the configurations picked in the sidebar and with the dashboard's resamples and null draws
    (``app.data.N_BOOT``, ``CHANCE_SIMS``), as the pages show them."""
    from analysis.report_file import report_html

    from analysis import methods as registry
    from app.data import CHANCE_SIMS, N_BOOT

    configs = {m.name: ref.chosen(m.name) for m in registry.all_methods() if ref.chosen(m.name)}
    return report_html(ref.store, models=list(models) if models else None, methods=list(methods) if methods else None,
                       configs=configs or None, n_boot=N_BOOT, chance=CHANCE_SIMS).encode("utf-8")


def file_name(ref: StoreRef, methods: Sequence[str] | None) -> str:
    """``rolescope-report-<store>-<methods or "all">.html``."""
    from pathlib import Path

    stem = "".join(c if c.isalnum() else "-" for c in Path(ref.name).stem.lower()).strip("-") or "store"
    return f"rolescope-report-{stem}-{'-'.join(methods) if methods else 'all'}.html".replace("_", "-")


def download_button(ref: StoreRef, *, models: Sequence[str] | None = None, methods: Sequence[str] | None = None,
                    key: str, container: Any = None) -> None:
    """A button that builds the report file when clicked (a few seconds; nothing is built before) and downloads it."""
    import streamlit as st

    where = container if container is not None else st
    where.download_button(
        "Download report", lambda: report_bytes(ref, models=models, methods=methods),
        file_name=file_name(ref, methods), mime="text/html", key=key, icon=":material/description:",
        on_click="ignore",
        help="One HTML file that opens offline: the headlines shown here with their chance bands and reasons, the "
             "figures, the design, the replies behind the numbers and the tables they come from "
             "(`python -m analysis import rolescope-report FILE` reads it back).")
