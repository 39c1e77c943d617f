"""Start the dashboard (``app/main.py``) on 127.0.0.1 and drive it with Debian's Chromium through Playwright.

Shared by the browser suite (``tests/browser``) and ``bench/bench_app.py``. Never downloads a
browser: it launches ``/usr/bin/chromium`` (``CHROMIUM``) with a fresh, empty profile.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ENTRY = "app/main.py"  # the dashboard's entry script
CHROMIUM = os.environ.get("ROLESCOPE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
EXCEPTION = '[data-testid="stException"]'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class AppServer:
    """A Streamlit server process on 127.0.0.1:port with the given environment overrides."""

    def __init__(self, env: dict[str, str], log_path: Path, script: str = ENTRY):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = os.environ | env | {"PYTHONUNBUFFERED": "1"}
        self.log_path = log_path
        self.script = script
        self.proc: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0

    def start(self, timeout: float = 120.0) -> float:
        """Start the server; return seconds until its health endpoint answers."""
        # the entry script starts the way scripts/start.sh starts it; any other script with plain `streamlit run`
        launch = ["app.launch"] if self.script == ENTRY else ["streamlit", "run", self.script]
        cmd = [sys.executable, "-m", *launch, "--server.headless", "true", "--server.address",
               "127.0.0.1", "--server.port", str(self.port), "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none", "--global.developmentMode", "false"]
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("wb")
        self.started_at = time.perf_counter()
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.proc.returncode}; see {self.log_path}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as resp:
                    if resp.status == 200:
                        return time.perf_counter() - self.started_at
            except OSError:
                time.sleep(0.1)
        raise TimeoutError(f"streamlit did not answer on {self.url} within {timeout:.0f} s; see {self.log_path}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


@contextmanager
def app_server(env: dict[str, str], log_path: Path) -> Iterator[AppServer]:
    server = AppServer(env, log_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def fixture_store_env(base: Path, **extra: str) -> dict[str, str]:
    """Server environment on the synthetic fixture store (as its demo), a fresh user store, cache and uploads in
    ``base``."""
    from tests.app.fixture_store import build_fixture_store

    return {"ROLESCOPE_DEMO_STORE": str(build_fixture_store(base / "fixture.db")), "ROLESCOPE_STORE": str(base / "user.db"),
            "ROLESCOPE_CACHE_DIR": str(base / "cache"), "ROLESCOPE_N_BOOT": "200",
            "ROLESCOPE_UPLOAD_DIR": str(base / "uploads"), **extra}


@contextmanager
def browser_context(viewport: tuple[int, int] = (1400, 1000), profile: Path | None = None) -> Iterator[Any]:
    """A Playwright persistent context on Debian Chromium with a new, empty user-data-dir (or ``profile``,
    kept afterwards: a browser whose cache already holds the app's scripts)."""
    from playwright.sync_api import sync_playwright

    keep = profile is not None
    profile = str(profile) if keep else tempfile.mkdtemp(prefix="rolescope-chromium-")
    try:
        with sync_playwright() as pw:
            context = pw.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
                viewport={"width": viewport[0], "height": viewport[1]})
            try:
                yield context
            finally:
                context.close()
    finally:
        if not keep:
            shutil.rmtree(profile, ignore_errors=True)


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian Chromium launched once through Playwright (not persistent): each ``browser.new_context()`` is a fresh
    one, with no cookies, storage, cache or Streamlit session of another."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def browser_tab(viewport: tuple[int, int] = (1400, 1000), timeout_ms: float = 300_000) -> Iterator[Any]:
    """One page in a fresh ``browser_context`` with a generous default timeout (CI machines are shared)."""
    with browser_context(viewport) as context:
        tab = context.new_page()
        tab.set_default_timeout(timeout_ms)
        yield tab


def title(page: Any) -> str:
    """The page's title (its first heading in the main area)."""
    return page.locator('[data-testid="stMain"] h1').first.inner_text().strip()


IDLE = """() => { const app = document.querySelector('[data-testid="stApp"]');
                  return app && app.getAttribute('data-test-script-state') === 'notRunning'
                         && document.querySelector('[data-testid="stMain"] h1') !== null; }"""


def wait_idle(page: Any, timeout_ms: float = 120_000) -> None:
    """Wait until a page title is shown and the script run has finished, twice 300 ms apart (a first run
    on a fresh server reruns once, see ``app.ui._leave_pages_folder_mode``)."""
    page.wait_for_function(IDLE, timeout=timeout_ms, polling=50)
    page.wait_for_timeout(300)
    page.wait_for_function(IDLE, timeout=timeout_ms, polling=50)


def wait_title(page: Any, expected: str, timeout_ms: float = 120_000) -> None:
    """After a page switch: wait until the page's heading reads ``expected`` (the old page's heading stays shown until
    the new script run draws its own, and the app can look idle before that run starts), then ``wait_idle``."""
    page.wait_for_function("(t) => { const h = document.querySelector('[data-testid=\"stMain\"] h1');"
                           " return h !== null && h.innerText.trim() === t; }", arg=expected, timeout=timeout_ms,
                           polling=50)
    wait_idle(page, timeout_ms)


def goto(page: Any, url: str, timeout_ms: float = 120_000) -> None:
    page.goto(url, wait_until="domcontentloaded", timeout=timeout_ms)
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    wait_idle(page, timeout_ms)


def exceptions(page: Any) -> list[str]:
    return [e.inner_text() for e in page.query_selector_all(EXCEPTION)]


def dismiss_runs(page: Any, settle_s: float = 30.0) -> None:
    """On the Run page: dismiss every finished run's panel (they stay, in every tab, until dismissed).

    A panel can show before its links (the first render of a fresh session draws them on a rerun), so while a run
    heading is shown without a Dismiss button this waits for the button, up to ``settle_s``."""
    main = page.locator('[data-testid="stMain"]')
    heading = main.get_by_role("heading", name=re.compile(r"^(Current runs?|Last run)$"))
    button = main.get_by_role("button", name="Dismiss")
    deadline = time.monotonic() + settle_s
    while time.monotonic() < deadline:
        if button.count():
            button.first.click()
            wait_idle(page)
        elif heading.count():
            page.wait_for_timeout(250)
        else:
            return
    raise AssertionError(f"run panels still shown after {settle_s:.0f} s: {main.inner_text()[:2000]}")
