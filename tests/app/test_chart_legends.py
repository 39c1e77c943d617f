"""Chart legends (issue 60): a figure's legend sits in rows under its plot, inside the figure's own canvas
(``app.figures.LEGEND``), where the toolbar plotly.js draws over the top right corner cannot cover it and an exported
image holds all of it. The browser's view of it: ``tests/browser/test_chart_legends.py``."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import plotly.graph_objects as go
import pytest

from analysis.figures.style import BELOW_TOOLBAR, LEGEND, _style, legend_below
from analysis.methods import all_methods

CHROMIUM = Path("/usr/bin/chromium")
MODELS = ["smollm2-greedy", "smollm2-t07"]
#: An exported image this narrow wraps a legend of two long names or more onto several rows.
NARROW = 450


def _shows_legend(fig: go.Figure) -> bool:
    """Whether plotly.js draws ``fig``'s legend: ``showlegend`` set on, or unset with two traces or more in it."""
    if fig.layout.showlegend is not None:
        return bool(fig.layout.showlegend)
    return sum(trace.showlegend is not False for trace in fig.data) >= 2


def _placed_below(fig: go.Figure) -> bool:
    return all(fig.layout.legend[key] == value for key, value in LEGEND.items())


def _legend_figures(reports: dict[str, dict]) -> dict[str, go.Figure]:
    """Every method's figures on the fixture store that draw a legend, by '<method>:<figure name>'."""
    return {f"{m.name}:{name}": fig for m in all_methods() for name, fig in m.figures(reports[m.name], MODELS).items()
            if _shows_legend(fig)}


def test_legend_below_puts_the_legend_under_the_plot_in_the_canvas():
    """Horizontal rows from the plot's left edge, anchored at the bottom of the canvas (``yref`` "container": plotly.js
    reserves a bottom margin of the legend's height); the legend's other settings are kept."""
    fig = go.Figure([go.Bar(name=n, x=[1], y=[1]) for n in "ab"]).update_layout(legend={"title": "persona", "y": 1.02})
    assert legend_below(fig) is fig
    legend = fig.layout.legend
    assert (legend.orientation, legend.x, legend.xanchor) == ("h", 0, "left")
    assert (legend.yref, legend.y, legend.yanchor) == ("container", 0, "bottom")
    assert legend.title.text == "persona"
    assert fig.layout.margin.autoexpand is not False  # plotly.js may widen the margins for the legend and axis titles


def test_style_places_the_legend_and_keeps_titled_subplots_below_the_toolbar():
    fig = _style(go.Figure([go.Bar(name=n, x=[1], y=[1]) for n in "ab"]), height=300)
    assert _placed_below(fig) and fig.layout.margin.t == 20
    assert _style(go.Figure(), top=BELOW_TOOLBAR).layout.margin.t == BELOW_TOOLBAR


def test_every_methods_figure_with_a_legend_places_it_below(reports):
    """Each method's figures (the pages draw the same through their cached charts) with a legend: ``LEGEND``."""
    found = _legend_figures(reports)
    assert {name.split(":")[0] for name in found} >= {"values", "mbti", "trust", "personagym", "inventory", "cross_method"}
    misplaced = [name for name, fig in found.items() if not _placed_below(fig)]
    assert misplaced == []


def _box(pattern: str, svg: str) -> tuple[float, ...]:
    found = re.search(pattern, svg, re.S)
    assert found, pattern
    return tuple(float(v) for v in found.groups())


@pytest.mark.skipif(not CHROMIUM.exists() or importlib.util.find_spec("kaleido") is None,
                    reason=f"kaleido or {CHROMIUM} missing: no static export to check")
def test_an_exported_image_holds_the_whole_legend(reports, tmp_path):
    """One figure of each kind with a legend, written as SVG by kaleido at a narrow width and the figure's height (its
    legend wraps onto rows): the legend's box lies inside the image and nothing of it is scrolled away."""
    import plotly.io as pio

    from analysis.figures.export import use_system_chromium

    use_system_chromium()
    kinds: dict[str, go.Figure] = {}
    for name, fig in _legend_figures(reports).items():
        kinds.setdefault(":".join(name.split(":")[:2]), fig)
    paths = [tmp_path / f"{i}.svg" for i in range(len(kinds))]
    pio.write_images(list(kinds.values()), paths, width=NARROW, height=[fig.layout.height for fig in kinds.values()])
    for (name, fig), path in zip(kinds.items(), paths):
        svg = path.read_text()
        width, height = _box(r'<svg[^>]*?width="([\d.]+)" height="([\d.]+)"', svg)
        x, y = _box(r'<g class="legend"[^>]*?transform="translate\(([\d.-]+),\s*([\d.-]+)\)"', svg)
        w, h = _box(r'<g class="legend".*?<rect class="bg"[^>]*?width="([\d.]+)" height="([\d.]+)"', svg)
        assert (width, height) == (NARROW, fig.layout.height), name
        assert 0 <= x and x + w <= width + 0.5 and 0 <= y and y + h <= height + 0.5, (name, (x, y, w, h), (width, height))
        assert y > height / 2, (name, y)  # under the plot, away from the toolbar's top right corner
        scrollbar = _box(r'<g class="legend".*?<rect class="scrollbar"[^>]*?width="([\d.]+)" height="([\d.]+)"', svg)
        assert scrollbar[1] == 0, (name, "legend scrolls")
