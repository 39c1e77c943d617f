"""The page list (sections, titles, icons, URL paths) shared by ``app.py`` and the Overview's links."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st


REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class PageInfo:
    path: str
    title: str
    icon: str
    url: str
    section: str
    blurb: str
    method: str | None = None  # the method whose main page this is (its headline cards)


PAGES: tuple[PageInfo, ...] = (
    PageInfo("pages/overview.py", "Overview", ":material/home:", "overview", "",
             "What is loaded and each method's headline per model."),
    PageInfo("pages/leaderboard.py", "Values leaderboard", ":material/leaderboard:", "leaderboard", "Stick to Your Role!",
             "Cardinal / ordinal ranking of models, metric columns, diversity and sensitivity.", method="values"),
    PageInfo("pages/structure.py", "Value structure", ":material/donut_large:", "structure", "Stick to Your Role!",
             "MDS circumplex of the items, Stress, CFA fits and loadings, separability."),
    PageInfo("pages/stability.py", "Stability", ":material/compare_arrows:", "stability", "Stick to Your Role!",
             "Rank-order and ipsative stability across contexts, persona profiles."),
    PageInfo("pages/mbti.py", "MBTI", ":material/psychology:", "mbti", "Other methods",
             "Dimension scores, type, consistency / robustness / fairness, answer distributions.", method="mbti"),
    PageInfo("pages/trust.py", "Trust game", ":material/handshake:", "trust", "Other methods",
             "Belief vs behaviour per attribute, conditioning, forecasts vs play.", method="trust"),
    PageInfo("pages/personagym.py", "PersonaGym", ":material/theater_comedy:", "personagym", "Other methods",
             "Task scores and PersonaScore, per-persona questions, answers and grades.", method="personagym"),
    PageInfo("pages/compare.py", "Compare two models", ":material/difference:", "compare", "Tools",
             "Headlines side by side with paired bootstrap CIs, largest gaps, overlaid plots."),
    PageInfo("pages/run.py", "Run", ":material/play_circle:", "run", "Tools",
             "Start, watch, cancel and resume a values or MBTI run."),
    PageInfo("pages/data.py", "Data", ":material/table_view:", "data", "Tools",
             "Browse personas, contexts, instruments, every sample; import and export."),
)


def visible_pages() -> list[PageInfo]:
    """Pages whose script exists."""
    return [p for p in PAGES if (REPO_ROOT / p.path).exists()]


def navigation() -> Any:
    sections: dict[str, list[st.Page]] = {}
    for info in visible_pages():
        sections.setdefault(info.section, []).append(
            st.Page(info.path, title=info.title, icon=info.icon, url_path=info.url, default=info.url == "overview"))
    return st.navigation(sections)
