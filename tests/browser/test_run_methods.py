"""Every method run from the Run page on the embedded model, in Debian Chromium: live progress, then the result on
that method's page; and one A/B pair (two named configurations of the embedded model) that lands on Compare.

Sizes are the smallest that make every call kind of a method (~10-40 s each on the embedded model here). The
server reads the synthetic fixture store as its demo and writes runs to a fresh user store.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analysis import methods
from analysis.runs.store import Store
from analysis.samples import scorable
from tests.browser.harness import (CHROMIUM, RUN_TIMEOUT_MS, AppServer, browser_tab, dismiss_runs, exceptions,
                                   fixture_store_env, goto, title, wait_idle, wait_title)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"{CHROMIUM} is missing: install Debian's browser with `apt-get install -y chromium` (as root)"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts/run-methods"
RESULT_TITLES = {"values": "Leaderboard", "mbti": "MBTI assessment", "trust": "Trust game",
                 "personagym": "PersonaGym"}
#: A table every tiny run fills. PersonaGym: one row per task and persona, asked or not (the 135M model often picks
#: no environment for a persona, and then no question is asked: stored with its reason, never invented).
ANSWER_TABLES = {"values": "values_answers", "mbti": "mbti_answers", "trust": "trust_rounds",
                 "personagym": "personagym_questions"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    base = tmp_path_factory.mktemp("browser-run")
    env = fixture_store_env(base, ROLESCOPE_CHANCE_SIMS="20")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    app = AppServer(env, ARTIFACTS / "server.log")
    app.start()
    yield app
    app.stop()


@pytest.fixture(scope="module")
def page(server: AppServer) -> Iterator[Any]:
    with browser_tab((1400, 1000)) as tab:
        yield tab


def _number(page: Any, label: str, value: int) -> None:
    box = page.locator('[data-testid="stMain"]').get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    wait_idle(page)


def _select(page: Any, label: str, option: str) -> None:
    page.locator('[data-testid="stMain"]').get_by_label(label, exact=True).click()
    page.get_by_role("option", name=option).first.click()
    wait_idle(page)


def _tiny(page: Any, method: str) -> None:
    """The smallest plan of each method that still makes each of its call kinds."""
    if method == "values":
        _number(page, "Personas", 1)
        _number(page, "Items (0 = all)", 2)
    elif method == "mbti":
        _number(page, "Testings", 1)
        _number(page, "Statements (0 = all 60)", 2)
        # the protocol's unlimited replies can run to ~3k tokens, and the next statement's prompt carries them: past
        # the embedded model's 4k context that call fails (HTTP 400, stored as a failure), so the tiny run caps them
        _number(page, "Max tokens per reply (0 = no limit, the protocol)", 200)
    elif method == "trust":
        _select(page, "Level", "individual")
        _number(page, "Personas", 1)
        _number(page, "Rounds", 1)
    else:
        _number(page, "Environments per persona (cap)", 1)
        _number(page, "Max tokens per call", 160)


ENDED = re.compile("Run completed|Nothing to score|Run failed|Run cancelled")  # a run's outcome box


def _calls_planned(page: Any, suffix: str = "") -> int:
    metric = page.locator('[data-testid="stMetric"]').filter(has_text=f"LLM calls{suffix}").first.inner_text()
    return int(metric.splitlines()[-1].replace(",", ""))


#: Records in ``window.__rolescopeProgress`` each text the first progress bar shows ("3 of 8 calls"), as the page
#: draws it (a MutationObserver: every change is seen, however fast or slow the run).
WATCH_PROGRESS = """() => {
  const seen = window.__rolescopeProgress = [];
  const note = () => {
    const bar = document.querySelector('[data-testid="stProgress"]');
    const text = bar === null ? '' : bar.innerText.trim();
    if (text && seen[seen.length - 1] !== text) seen.push(text);
  };
  note();
  new MutationObserver(note).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""
OUTCOME = ('[data-testid="stAlertContentSuccess"], [data-testid="stAlertContentError"], '
           '[data-testid="stAlertContentWarning"]')


def _watch_progress(page: Any) -> list[str]:
    """Progress texts seen while the run executes ("3 of 8 calls"), until its outcome box appears."""
    page.evaluate(WATCH_PROGRESS)
    page.locator(OUTCOME).filter(has_text=ENDED).first.wait_for(timeout=RUN_TIMEOUT_MS)
    return page.evaluate("window.__rolescopeProgress")


@pytest.mark.parametrize("method", ["values", "mbti", "trust", "personagym"])
def test_each_method_runs_from_the_run_page(server, page, method):
    """Start a tiny embedded run, watch its progress bar move, see it complete, open its results page."""
    goto(page, f"{server.url}/run?method={method}" + ("&run_contexts=no_conv" if method == "values" else ""))
    dismiss_runs(page)
    assert title(page) == "Run" and exceptions(page) == []
    _tiny(page, method)
    planned = _calls_planned(page)
    assert planned >= 1
    page.get_by_role("button", name="Start run").click()
    page.get_by_text(re.compile("^Current run")).wait_for()
    seen = _watch_progress(page)
    page.screenshot(path=str(ARTIFACTS / f"{method}-finished.png"))
    shown = page.locator('[data-testid="stMain"]').inner_text()
    assert any(re.match(r"\d+ of \d+ planned calls done", s) for s in seen), (seen, shown)  # the live bar, while it ran
    with Store(server.env["ROLESCOPE_STORE"], read_only=True) as store:
        run = store.runs().query("method == @method").iloc[0]
        assert run["status"] == "completed" and int(run["n_failed"] or 0) == 0
        assert len(store.table(ANSWER_TABLES[method], [run["run_id"]])) >= 1
        scored, valid = scorable(methods.get(method).samples(store, [run["run_id"]]))
    main = page.locator('[data-testid="stMain"]')
    if valid == 0:  # the 135M model's replies held nothing to score: said in red, no results link, its samples
        assert main.locator('[data-testid="stAlertContentError"]').filter(has_text="Nothing to score").count() == 1
        assert main.get_by_role("button", name="Show the results").count() == 0
        main.get_by_role("link", name="Its samples").click()
        wait_idle(page)
        assert title(page) == "Samples" and exceptions(page) == []
        return
    assert main.locator(
        '[data-testid="stAlertContentSuccess"], [data-testid="stAlertContentWarning"]').filter(
        has_text="Run completed").count() == 1, main.inner_text()
    page.get_by_role("button", name="Show the results").click()
    wait_title(page, RESULT_TITLES[method])
    assert title(page) == RESULT_TITLES[method]
    page.locator('[data-testid="stMain"]').get_by_text("embedded").first.wait_for()  # the run's model
    wait_idle(page)
    assert exceptions(page) == []
    page.screenshot(path=str(ARTIFACTS / f"{method}-results.png"))


def test_a_b_pair_lands_on_compare(server, page):
    """Values on smollm2-greedy (A) and smollm2-t07 (B), both embedded configurations from models.toml: two live
    panels, both complete, and the pair's button opens Compare on the two."""
    from playwright.sync_api import expect

    goto(page, f"{server.url}/run?method=values&run_model=smollm2-greedy&run_ab=1&run_model_b=smollm2-t07"
               "&run_contexts=no_conv")
    dismiss_runs(page)
    _number(page, "Personas", 3)
    _number(page, "Items (0 = all)", 2)
    assert _calls_planned(page, " · smollm2-greedy") == _calls_planned(page, " · smollm2-t07") == 6
    page.get_by_role("button", name="Run on A and B").click()
    page.get_by_text("Current runs").wait_for()
    page.locator('[data-testid="stProgress"]').nth(1).wait_for()  # one live panel per model (drawn by fragments)
    compare = page.get_by_role("button", name="Compare smollm2-greedy and smollm2-t07")
    compare.wait_for(timeout=RUN_TIMEOUT_MS)
    # an element of an earlier script run stays on screen, marked data-stale, until the new run replaces it: count the
    # current ones only, once the app is idle (under load a panel's old and new outcome were both counted: 3, not 2)
    outcomes = page.locator('[data-testid="stMain"] [data-testid="stElementContainer"]:not([data-stale="true"]) '
                            '[data-testid^="stAlertContent"]').filter(has_text=ENDED)
    expect(outcomes).to_have_count(2)  # each panel is a fragment redrawn on its own: the second can lag the button
    wait_idle(page)
    assert outcomes.count() == 2, page.locator('[data-testid="stMain"]').inner_text()
    compare.click()
    wait_idle(page)
    assert title(page) == "Compare two models" and exceptions(page) == []
    main = page.locator('[data-testid="stMain"]')
    assert "smollm2-greedy" in main.get_by_label("Model A", exact=True).input_value()
    assert "smollm2-t07" in main.get_by_label("Model B", exact=True).input_value()
    page.screenshot(path=str(ARTIFACTS / "pair-compare.png"))
