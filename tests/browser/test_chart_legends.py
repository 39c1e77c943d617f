"""Chart legends in Debian Chromium (issue 60): on pages with multi-trace charts, at a 1400 and a 1000 px wide window,
every drawn legend lies inside its chart's canvas, clear of the chart's toolbar (plotly.js' modebar, shown over the top
right corner on hover), and unscrolled; the PNG the toolbar's camera button downloads holds the legend.

The fixture store's server (``fixture_store_env``). The layout rule itself: ``tests/app/test_chart_legends.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.harness import (CHROMIUM, AppServer, browser_tab, exceptions, fixture_store_env, goto, repaint,
                                   title, wait_idle)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"{CHROMIUM} is missing: install Debian's browser with `apt-get install -y chromium` (as root)"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts/legends"
#: Pages whose charts have legends: Compare (the pages' shared figures and the sections it builds itself), and two
#: method pages whose legends sat under the toolbar (a two-plot figure, a grouped bar chart).
PAGES = {"compare": "Compare two models", "trust": "Trust game", "mbti": "MBTI assessment"}
WIDTHS = (1400, 1000)

#: The charts drawn where they can be seen (one in a closed tab or expander is not).
SHOWN = """[...document.querySelectorAll('.js-plotly-plot')].filter((gd) => gd.checkVisibility())"""
#: Per shown chart, the boxes, in page pixels, of its canvas (the main svg), its toolbar (laid out while hidden, so no
#: hover is needed) and its legend (none when it draws no legend), and plotly.js' legend heights: all of it
#: (``_height``) and what is shown (``_effHeight``, less when it scrolls).
CHARTS = """() => SHOWN.map((gd) => {
    const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
                          return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
    const legend = gd._fullLayout.legend;
    return {svg: box(gd.querySelector('svg.main-svg')), modebar: box(gd.querySelector('.modebar')),
            legend: box(gd.querySelector('g.legend')), width: gd._fullLayout.width, height: gd._fullLayout.height,
            shown: legend ? legend._effHeight : null, whole: legend ? legend._height : null};
  })""".replace("SHOWN", SHOWN)
#: True once every chart of the page is drawn (Streamlit mounts a chart's frame, then plotly.js draws in it), one at
#: least is shown, and each shown one is laid out at its container's width (after the page opened or the window was
#: resized).
DRAWN = """() => { const shown = SHOWN;
  const count = (selector) => document.querySelectorAll(selector).length;
  return shown.length > 0 && count('.js-plotly-plot') === count('[data-testid="stPlotlyChart"]')
    && shown.every((gd) => gd._fullLayout && Math.abs(gd._fullLayout.width - gd.getBoundingClientRect().width) < 2); }
""".replace("SHOWN", SHOWN)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    base = tmp_path_factory.mktemp("browser-legends")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    app = AppServer(fixture_store_env(base), ARTIFACTS / "server.log")
    app.start()
    yield app
    app.stop()


@pytest.fixture(scope="module")
def page(server: AppServer) -> Iterator[Any]:
    with browser_tab((WIDTHS[0], 1000)) as tab:
        yield tab


def _inside(inner: dict, outer: dict, slack: float = 1.0) -> bool:
    return (inner["left"] >= outer["left"] - slack and inner["top"] >= outer["top"] - slack
            and inner["right"] <= outer["right"] + slack and inner["bottom"] <= outer["bottom"] + slack)


def _overlap(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def _legend_faults(charts: list[dict]) -> list[str]:
    """What is wrong with each drawn legend: outside its canvas, under the toolbar, or scrolled."""
    faults = []
    for i, chart in enumerate(charts):
        legend = chart["legend"]
        if legend is None:
            continue
        if not _inside(legend, chart["svg"]):
            faults.append(f"chart {i}: legend {legend} outside its canvas {chart['svg']}")
        if chart["modebar"] and _overlap(legend, chart["modebar"]):
            faults.append(f"chart {i}: legend {legend} under the toolbar {chart['modebar']}")
        if chart["shown"] < chart["whole"]:
            faults.append(f"chart {i}: legend scrolls ({chart['shown']} of {chart['whole']} px shown)")
    return faults


@pytest.mark.parametrize("path", list(PAGES))
def test_legends_lie_inside_their_charts_clear_of_the_toolbar(server, page, path):
    goto(page, f"{server.url}/{path}")
    assert title(page) == PAGES[path] and exceptions(page) == []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_function(DRAWN, polling=100)
        repaint(page)
        charts = page.evaluate(CHARTS)
        assert any(c["legend"] for c in charts), (f"{path}: no legend drawn at {width} px", charts)
        assert _legend_faults(charts) == [], (path, width)
    page.set_viewport_size({"width": WIDTHS[0], "height": 1000})
    wait_idle(page)


def test_the_downloaded_png_holds_the_legend(server, page):
    """The camera button's PNG (3× the chart's size on screen) has the legend's text where the chart shows it."""
    from PIL import Image

    from app.ui import DOWNLOADS

    goto(page, f"{server.url}/compare")
    page.wait_for_function(DRAWN, polling=100)
    charts = page.evaluate(CHARTS)
    chart = next(c for c in charts if c["legend"])
    gd = page.locator(".js-plotly-plot >> visible=true").filter(has=page.locator("g.legend")).first
    gd.scroll_into_view_if_needed()
    gd.hover()
    with page.expect_download() as download:
        gd.locator('.modebar-btn[data-title="Download plot as a PNG"]').click()
    saved = ARTIFACTS / "legend-chart.png"
    download.value.save_as(saved)
    image = Image.open(saved).convert("L")
    scale = DOWNLOADS["PNG"]["scale"]
    assert image.size == (chart["width"] * scale, chart["height"] * scale)
    svg, legend = chart["svg"], chart["legend"]
    left, top = (legend["left"] - svg["left"]) * scale, (legend["top"] - svg["top"]) * scale
    right, bottom = (legend["right"] - svg["left"]) * scale, (legend["bottom"] - svg["top"]) * scale
    assert 0 <= left and right <= image.size[0] + scale and 0 <= top and bottom <= image.size[1] + scale
    crop = image.crop((int(left), int(top), int(right), int(bottom)))
    assert crop.getextrema()[0] < 160, "no legend text in the exported image where the chart shows its legend"
