"""What a method shows in the app (its VIEW): its pages, its run form and the sections it adds to the shared pages.

A view is declared in ``app/methods/<m>/__init__.py`` and stays import-light: every hook is a ``Hook``, a
``"module:function"`` reference imported on its first call, so the navigation is built at start-up without importing
pandas, plotly or the method's analysis code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from analysis.hooks import Hook  # noqa: F401 - views declare their hooks with it

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class PageInfo:
    """One page of the navigation: its script (relative to the repository), title, icon, URL path, section, a line
    on what it shows, and its heading (the page's h1, drawn by the entry script before anything slower; default: the
    title)."""

    path: str
    title: str
    icon: str
    url: str
    section: str
    blurb: str
    heading: str = ""

    @property
    def h1(self) -> str:
        return self.heading or self.title

    @property
    def script(self) -> str:
        """The script's absolute path: what ``st.Page``, ``st.page_link``, ``st.switch_page`` and
        ``AppTest.switch_page`` are given. Each resolves a relative path against the entry script's folder
        (``app/``), not the repository, so ``path`` is not given to them as it is."""
        return str(REPO_ROOT / self.path)


@dataclass(frozen=True)
class SampleTable:
    """A table of the method's samples on the Data page: its label and the columns offered as filters."""

    label: str
    filters: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportKind:
    """A file format the Data page imports: ``load(store, paths) -> (ok, lines)`` stores it (one run per file).
    ``folder_per_file``: every file goes to its own folder named by the user's label (the folder is what the importer
    reads as the label)."""

    key: str
    label: str
    extensions: tuple[str, ...]
    folder_hint: str
    load: Callable[[Any, list[Any]], tuple[bool, list[str]]]
    folder_per_file: bool = False
    file_name: str | None = None  # the name the importer expects (values: results.json)


class Pair(NamedTuple):
    """The two sides of the Compare page: model ``a`` of store ``ref_a`` and ``b`` of ``ref_b``, with their labels."""

    ref_a: Any
    a: str
    ref_b: Any
    b: str
    la: str
    lb: str


@dataclass(frozen=True)
class MethodView:
    """A method's part of the app (``app.methods.views()`` lists them; shared pages loop over them).

    - ``pages``: its own pages; ``home`` is the URL path of the page that shows its headlines (where a finished run's
      "Show the results" goes).
    - ``run_form()`` draws the Run page's options and returns ``build(spec) -> plan | list of plans`` (None while the
      options are incomplete).
    - ``leaderboard(ctx)``, ``compare(pair)``: its sections on the Leaderboard and Compare pages (optional; without a
      leaderboard section the Leaderboard ranks the method's headlines).
    - ``samples``, ``sample_detail(ref, table, row)``, ``inputs()``, ``imports``: what the Data page offers of it.
    - ``campaign_form(container)``: its part of a composite campaign's Run form (the cross-method campaign): draws its
      options in ``container`` and returns {option of its ``Options`` model: value}.
    - ``summary``: what the method asks of a persona, after whom, and what its headline numbers mean, in a researcher's
      words (Markdown, one or two sentences): the Overview lists every method with it.
    """

    name: str
    label: str
    order: int
    section: str
    pages: tuple[PageInfo, ...]
    run_form: Callable[[], Any]
    summary: str = ""
    home: str = ""
    leaderboard: Callable[[Any], None] | None = None
    compare: Callable[[Any], None] | None = None
    samples: Mapping[str, SampleTable] = field(default_factory=dict)
    sample_detail: Callable[[Any, str, Any], None] | None = None
    inputs: Callable[[], None] | None = None
    imports: tuple[ImportKind, ...] = ()
    campaign_form: Callable[[Any], dict[str, Any]] | None = None

    @property
    def home_url(self) -> str:
        return self.home or self.pages[0].url
