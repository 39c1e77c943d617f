"""Status marks read as text in a browser without an emoji font (issue 60, item 2): Debian Chromium started on a
fontconfig holding DejaVu only, where ✅, ⚠️, 📥, ❌ or ⏳ draw as empty boxes. Every mark must still say what it means
in words (and a colour): the Run plan's "ok" / "cannot show", each headline card's chance verdict, a link's "Not here".

The server reads the synthetic fixture store as its demo. The test first proves its premise: ``fc-list`` on that
configuration lists no emoji font, and an emoji drawn on a canvas in the browser has no colour.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.ui import CARD_VERDICTS
from tests.browser.harness import (CHROMIUM, CHROMIUM_ARGS, AppServer, exceptions, fixture_store_env, goto, track,
                                   wait_idle)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"{CHROMIUM} is missing: install Debian's browser with `apt-get install -y chromium` (as root)"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts/no-emoji-font"
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
#: Emoji and pictographic symbols (and the joiners and variation selector that build emoji): what a browser without an
#: emoji font may draw as an empty box.
EMOJI = re.compile("[\u2190-\u21ff\u2300-\u23ff\u2460-\u24ff\u25a0-\u27bf\u2900-\u297f\u2b00-\u2bff\u3030\u303d"
                   "\u3297\u3299\U0001f000-\U0001faff\ufe0e\ufe0f\u200d\u20e3]")
#: Elements whose text can carry a status: alerts, captions, toasts, headline cards' deltas, coloured markdown.
STATUS = ('[data-testid="stMain"] [data-testid="stAlert"], [data-testid="stMain"] [data-testid="stCaptionContainer"], '
          '[data-testid="stToast"], [data-testid="stMetricDelta"], [data-testid="stMain"] .stMarkdownColoredText')
PLAN = '[data-testid="stMain"] [data-testid="stMarkdownContainer"]:has-text("This run can show")'
#: The colours on a canvas where an emoji is drawn: a colour emoji font paints its glyphs in colour.
COLOURED_PIXELS = """(text) => { const c = document.createElement('canvas'); c.width = 400; c.height = 60;
  const g = c.getContext('2d'); g.fillStyle = '#000'; g.font = '40px sans-serif'; g.fillText(text, 4, 48);
  const d = g.getImageData(0, 0, c.width, c.height).data; let n = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i + 3] && (d[i] !== d[i + 1] || d[i + 1] !== d[i + 2])) n++;
  return n; }"""


def reads_as_text(text: str) -> bool:
    """Whether ``text`` still holds a letter once every emoji and pictographic symbol is taken out."""
    return any(ch.isalpha() for ch in EMOJI.sub("", text))


def test_reads_as_text_tells_a_word_from_a_glyph() -> None:
    assert reads_as_text("✅ ok") and reads_as_text("cannot show") and reads_as_text("⚠️ Not here")
    assert not reads_as_text("✅") and not reads_as_text("⚠️ ") and not reads_as_text("📥 ❌ ⏳ ✓ ✗ 3/10")


@pytest.fixture(scope="module")
def fonts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a fontconfig that knows DejaVu only (no emoji font, no system configuration)."""
    base = tmp_path_factory.mktemp("fonts")
    conf = base / "fonts.conf"
    conf.write_text('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<fontconfig>\n'
                    f"  <dir>{DEJAVU}</dir>\n  <cachedir>{base / 'cache'}</cachedir>\n</fontconfig>\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FONTCONFIG")}
    return env | {"FONTCONFIG_FILE": str(conf)}


@pytest.mark.skipif(not DEJAVU.is_dir() or shutil.which("fc-list") is None,
                    reason="needs fonts-dejavu-core and fontconfig's fc-list")
def test_the_fontconfig_has_no_emoji_font(fonts: dict[str, str]) -> None:
    listed = subprocess.run(["fc-list"], env=fonts, capture_output=True, text=True, check=True, timeout=120).stdout
    lines = listed.splitlines()
    assert lines and all(line.startswith(str(DEJAVU)) for line in lines), lines
    assert not [line for line in lines if re.search(r"emoji|color", line, re.I)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    app = AppServer(fixture_store_env(tmp_path_factory.mktemp("no-emoji-font"), ROLESCOPE_CHANCE_SIMS="20"),
                    ARTIFACTS / "server.log")
    app.start()
    yield app
    app.stop()


@pytest.fixture(scope="module")
def page(fonts: dict[str, str]) -> Iterator[Any]:
    """One tab of Debian Chromium started on the DejaVu-only fontconfig."""
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, env=fonts)
        try:
            context = track(browser.new_context(viewport={"width": 1400, "height": 1000}))
            yield context.new_page()
            context.close()
        finally:
            browser.close()


def _status_texts(page: Any) -> list[str]:
    """The visible text of every element that can carry a status mark."""
    return [t for t in page.locator(STATUS).all_inner_texts() if t.strip()]


def _assert_marks_read(page: Any, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    glyphs = [t for t in _status_texts(page) if not reads_as_text(t)]
    assert not glyphs, f"{name}: marks that are glyphs only: {glyphs}"
    assert exceptions(page) == []


def test_the_browser_draws_no_colour_emoji(server: AppServer, page: Any) -> None:
    goto(page, server.url)
    assert page.evaluate(COLOURED_PIXELS, "ABC") == 0
    assert page.evaluate(COLOURED_PIXELS, "✅ ⚠️ 📥 ❌ ⏳") == 0, "an emoji font drew a colour glyph"


@pytest.mark.parametrize("query, marks", [("?method=mbti", {"ok", "cannot show"}),
                                          ("?method=values&run_personas=1", {"cannot show"})],
                         ids=["mbti", "values-one-persona"])
def test_the_run_plan_says_ok_or_cannot_show_in_words(server: AppServer, page: Any, query: str, marks: set[str]) -> None:
    """Each analysis of the plan: its name, then "ok" (green) or "cannot show" (orange) and why."""
    goto(page, f"{server.url}/run{query}")
    plan = page.locator(PLAN).last
    plan.wait_for()
    shown = [t.strip() for t in plan.locator(".stMarkdownColoredText").all_inner_texts()]
    assert shown and set(shown) <= {"ok", "cannot show"} and marks <= set(shown), shown
    assert plan.inner_text().startswith("This run can show")
    _assert_marks_read(page, "run-" + re.sub(r"\W+", "-", query.strip("?")))


def test_headline_cards_carry_their_verdict_in_words(server: AppServer, page: Any) -> None:
    """Each headline card's delta is a chance verdict in words (``app.ui.CARD_VERDICTS``), not a glyph."""
    goto(page, f"{server.url}/inventory")
    page.wait_for_selector('[data-testid="stMetricDelta"] >> visible=true')
    deltas = [t.strip() for t in page.locator('[data-testid="stMetricDelta"]').all_inner_texts()]
    words = {text for text, _ in CARD_VERDICTS.values()}
    assert deltas and set(deltas) <= words, deltas
    cut = page.evaluate("() => Array.from(document.querySelectorAll('[data-testid=\"stMetricDelta\"] *'))"
                        ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)")
    assert cut == [], f"verdicts cut off: {cut}"
    _assert_marks_read(page, "inventory")


def test_a_link_to_a_model_the_page_lacks_says_not_here_in_words(server: AppServer, page: Any) -> None:
    goto(page, f"{server.url}/structure?model=gpt-4-nonexistent")
    said = page.locator('[data-testid="stMain"] [data-testid="stCaptionContainer"]').filter(has_text="Not here")
    said.first.wait_for()
    assert said.first.locator(".stMarkdownColoredText").inner_text().strip() == "Not here"
    wait_idle(page)
    _assert_marks_read(page, "not-here")
