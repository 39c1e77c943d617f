"""The page list (sections, titles, icons, URL paths): the shared pages of the top-level ``pages/`` around every
method's own pages (``app.methods.views()``), used by ``app/main.py``'s navigation, the Overview's links and the Run
page. Links and switches name a page by its ``PageInfo.script`` (an absolute path: Streamlit resolves a relative one
against ``app/``, the entry script's folder)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from app.methods import views
from app.methods.base import PageInfo

#: The default page: Streamlit serves it at the root URL (``/``), not at ``/overview``.
HOME = "overview"

TOP: tuple[PageInfo, ...] = (
    PageInfo("pages/overview.py", "Overview", ":material/home:", "overview", "",
             "What is loaded and each method's headline per model.", heading="RoleScope"),
    PageInfo("pages/leaderboard.py", "Leaderboard", ":material/leaderboard:", "leaderboard", "",
             "Every method's models ranked: a method's own board where it has one, else its headlines."),
)
TOOLS: tuple[PageInfo, ...] = (
    PageInfo("pages/compare.py", "Compare two models", ":material/difference:", "compare", "Tools",
             "Headlines side by side with paired bootstrap CIs, largest gaps, overlaid plots."),
    PageInfo("pages/run.py", "Run", ":material/play_circle:", "run", "Tools",
             "Start, watch, cancel and resume a run of any method."),
    PageInfo("pages/samples.py", "Samples", ":material/list_alt:", "samples", "Tools",
             "Every reply: filter, search, open one in full, A vs B, a prompt × model matrix, export; tag runs."),
    PageInfo("pages/data.py", "Data", ":material/table_view:", "data", "Tools",
             "Browse personas, contexts, instruments, every sample; import and export."),
)


def pages() -> list[PageInfo]:
    """Every page, in navigation order."""
    return [*TOP, *(p for v in views() for p in v.pages), *TOOLS]


def page(url: str) -> PageInfo:
    """The page with URL path ``url``."""
    return next(p for p in pages() if p.url == url)


def navigation() -> tuple[Any, PageInfo]:
    """``st.navigation`` over every page: the page to run and its ``PageInfo``."""
    sections: dict[str, list[st.Page]] = {}
    made: list[tuple[Any, PageInfo]] = []
    for info in pages():
        made.append((st.Page(info.script, title=info.title, icon=info.icon, url_path=info.url,
                             default=info.url == HOME), info))
        sections.setdefault(info.section, []).append(made[-1][0])
    chosen = st.navigation(sections, expanded=True)  # every page listed: no "View N more" hiding Run, Samples, Data
    return chosen, next(info for made_page, info in made if made_page is chosen)
