"""The page list (sections, titles, icons, URL paths): the shared pages of ``app/pages/`` around every method's own
pages (``app.methods.views()``), used by ``app.py``'s navigation, the Overview's links and the Run page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from app.methods import views
from app.methods.base import PageInfo

REPO_ROOT = Path(__file__).resolve().parents[1]

TOP: tuple[PageInfo, ...] = (
    PageInfo("app/pages/overview.py", "Overview", ":material/home:", "overview", "",
             "What is loaded and each method's headline per model."),
    PageInfo("app/pages/leaderboard.py", "Leaderboard", ":material/leaderboard:", "leaderboard", "",
             "Every method's models ranked: the Stick to Your Role! Cardinal / Ordinal board, each headline elsewhere."),
)
TOOLS: tuple[PageInfo, ...] = (
    PageInfo("app/pages/compare.py", "Compare two models", ":material/difference:", "compare", "Tools",
             "Headlines side by side with paired bootstrap CIs, largest gaps, overlaid plots."),
    PageInfo("app/pages/run.py", "Run", ":material/play_circle:", "run", "Tools",
             "Start, watch, cancel and resume a run of any method."),
    PageInfo("app/pages/samples.py", "Samples", ":material/list_alt:", "samples", "Tools",
             "Every reply: filter, search, open one in full, A vs B, a prompt × model matrix, export; tag runs."),
    PageInfo("app/pages/data.py", "Data", ":material/table_view:", "data", "Tools",
             "Browse personas, contexts, instruments, every sample; import and export."),
)


def pages() -> list[PageInfo]:
    """Every page, in navigation order."""
    return [*TOP, *(p for v in views() for p in v.pages), *TOOLS]


def page(url: str) -> PageInfo:
    """The page with URL path ``url``."""
    return next(p for p in pages() if p.url == url)


def navigation() -> Any:
    sections: dict[str, list[st.Page]] = {}
    for info in pages():
        sections.setdefault(info.section, []).append(
            st.Page(info.path, title=info.title, icon=info.icon, url_path=info.url,
                    default=info.url == "overview"))
    return st.navigation(sections)
