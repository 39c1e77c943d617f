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
#: Every wait of the browser tests is a wait on a state (the app idle, a text or an element shown, the server's health
#: endpoint answering), bounded by this one generous deadline and never a fixed sleep: on a shared machine (two cores,
#: load 9-10) the first visit of a fresh clone, which computes the demo's reports, took over 120 s.
#: ``ROLESCOPE_BROWSER_TIMEOUT_SCALE`` (a factor, default 1) stretches it and every limit derived from it.
TIMEOUT_SCALE = float(os.environ.get("ROLESCOPE_BROWSER_TIMEOUT_SCALE") or 1)
TIMEOUT_S = 600 * TIMEOUT_SCALE
TIMEOUT_MS = TIMEOUT_S * 1000
#: A run of the embedded model started from the Run page, until its outcome is shown.
RUN_TIMEOUT_MS = 3 * TIMEOUT_MS
#: pytest-timeout's limit for one browser test (``tests/conftest.py`` sets it): a module's first test also starts its
#: server and browser, and a test makes several waits, each bounded by ``TIMEOUT_S``; a test that runs the embedded
#: model also waits ``RUN_TIMEOUT_MS`` for the run.
TEST_TIMEOUT_S = 3 * TIMEOUT_S
RUN_TEST_TIMEOUT_S = TEST_TIMEOUT_S + RUN_TIMEOUT_MS / 1000


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

    def start(self, timeout: float = TIMEOUT_S) -> float:
        """Start the server; return seconds until its health endpoint answers (within ``timeout``)."""
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
        while (left := deadline - time.monotonic()) > 0:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=left) as resp:
                    if resp.status == 200:
                        return time.perf_counter() - self.started_at
            except OSError:  # not listening yet
                pass
            try:  # between two asks, wait on the process: it returns at once if streamlit exits
                self.proc.wait(timeout=min(0.2, max(deadline - time.monotonic(), 0)))
            except subprocess.TimeoutExpired:
                continue
            raise RuntimeError(f"streamlit exited with {self.proc.returncode}; see {self.log_path}")
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


def _run_tracker() -> str:
    """An init script for every document of a tracked context: it wraps the page's ``WebSocket`` to follow Streamlit's
    own messages on ``/_stcore/stream`` in ``window.__rolescopeRuns``. ``pending`` is set when the page asks for a run
    (a rerun request the user's action sent; the timers of ``st.fragment(run_every=...)`` are left out) or a run
    stopped for a rerun (``st.rerun``, ``st.switch_page``: the next run of the chain follows), and cleared when a run
    finishes (a fragment's run clears a fragment's request only). ``quiet`` is set two animation frames after the last
    such message (the app has drawn what it received). ``IDLE`` reads both: the attribute ``data-test-script-state``
    alone reads "notRunning" between two runs of a chain, and before a run the user's action asked for has started.
    The protobuf field numbers are read from Streamlit's own messages, so they follow its version."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    numbers = [ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"].number,
               BackMsg.DESCRIPTOR.fields_by_name["rerun_script"].number,
               ClientState.DESCRIPTOR.fields_by_name["fragment_id"].number,
               ClientState.DESCRIPTOR.fields_by_name["is_auto_rerun"].number]
    statuses = [ForwardMsg.FINISHED_EARLY_FOR_RERUN, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY]
    return "(" + _RUN_TRACKER + f")({numbers}, {statuses});"


_RUN_TRACKER = """([FINISHED, RERUN, FRAGMENT_ID, AUTO], [EARLY, FRAGMENT_DONE]) => {
  const runs = {full: false, fragment: false, chain: false, quiet: true, events: 0,
                get pending() { return this.full || this.fragment || this.chain; }};
  window.__rolescopeRuns = runs;
  const changed = () => {
    const n = ++runs.events;
    runs.quiet = false;
    requestAnimationFrame(() => requestAnimationFrame(() => { if (runs.events === n) runs.quiet = true; }));
  };
  const varint = (b, i) => {
    let v = 0, scale = 1;
    for (;;) { const x = b[i++]; v += (x & 127) * scale; if (x < 128 || i >= b.length) return [v, i]; scale *= 128; }
  };
  const fields = (b) => {  // a message's top-level fields: number -> varint or bytes
    const out = new Map();
    let i = 0;
    while (i < b.length) {
      let key, v, len;
      [key, i] = varint(b, i);
      const type = key % 8;
      if (type === 0) [v, i] = varint(b, i);
      else if (type === 2) { [len, i] = varint(b, i); v = b.subarray(i, i + len); i += len; }
      else if (type === 1 || type === 5) { i += type === 1 ? 8 : 4; continue; }
      else return out;
      out.set(Math.floor(key / 8), v);
    }
    return out;
  };
  const bytes = (d) => d instanceof ArrayBuffer ? new Uint8Array(d)
    : ArrayBuffer.isView(d) ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : null;
  const sent = (data) => {
    const b = bytes(data), rerun = b && fields(b).get(RERUN);
    if (!(rerun instanceof Uint8Array)) return;
    const state = fields(rerun);
    if (state.get(AUTO)) return;
    if (state.get(FRAGMENT_ID)?.length) runs.fragment = true; else runs.full = true;
    changed();
  };
  const received = (data) => {
    const b = bytes(data), status = b && fields(b).get(FINISHED);
    if (typeof status !== "number") return;
    if (status === EARLY) runs.chain = true;
    else { runs.chain = runs.fragment = false; if (status !== FRAGMENT_DONE) runs.full = false; }
    changed();
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      this.rolescopeTracked = String(url).includes("/_stcore/stream");
      if (this.rolescopeTracked) {  // a new connection: its first run is asked for once it is open
        Object.assign(runs, {full: false, fragment: false, chain: false});
        changed();
        this.addEventListener("message", (e) => received(e.data));
      }
    }
    send(data) { if (this.rolescopeTracked) sent(data); return super.send(data); }
  };
}"""


def track(context: Any) -> Any:
    """Set up a Playwright browser context for the tests: ``TIMEOUT_MS`` as every action's and navigation's default
    timeout (Playwright's ``expect`` too), and the run tracker ``wait_idle`` reads in every page it opens."""
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    context.set_default_timeout(TIMEOUT_MS)
    context.set_default_navigation_timeout(TIMEOUT_MS)
    context.add_init_script(_run_tracker())
    return context


def new_context(browser: Any, viewport: tuple[int, int] = (1400, 1000)) -> Any:
    """A fresh, tracked context of a ``chromium()`` browser (no cookies, storage, cache or Streamlit session)."""
    return track(browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}))


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
            track(context)
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
def browser_tab(viewport: tuple[int, int] = (1400, 1000)) -> Iterator[Any]:
    """One page in a fresh ``browser_context`` (its default timeout ``TIMEOUT_MS``: CI machines are shared)."""
    with browser_context(viewport) as context:
        yield context.new_page()


def title(page: Any) -> str:
    """The page's title (its first heading in the main area)."""
    return page.locator('[data-testid="stMain"] h1').first.inner_text().strip()


IDLE = """() => { const app = document.querySelector('[data-testid="stApp"]');
                  const runs = window.__rolescopeRuns;
                  return app !== null && app.getAttribute('data-test-script-state') === 'notRunning'
                         && app.getAttribute('data-test-connection-state') === 'CONNECTED'
                         && document.querySelector('[data-testid="stStatusWidget"]') === null
                         && (runs === undefined || (!runs.pending && runs.quiet))
                         && document.querySelector('[data-testid="stMain"] h1') !== null; }"""


#: Resolves once the page has run the tasks already queued, drawn a frame and run the tasks queued meanwhile: Streamlit
#: sends a widget's change from a timer (``setTimeout(0)``, batching the changes of one event), so an action's rerun
#: request has been sent (and seen by the run tracker) when this returns.
FLUSH = "() => new Promise((done) => setTimeout(() => requestAnimationFrame(() => setTimeout(done, 0)), 0))"


def wait_idle(page: Any, timeout_ms: float = TIMEOUT_MS) -> None:
    """Wait until the app is idle: connected, no script run going nor asked for (Streamlit's state attribute and its
    "Running..." status widget, and in a tracked context every run the page asked for, a chain of ``st.rerun`` included,
    finished and drawn) and a page title shown. Right after an action: the run it asked for is waited for (``FLUSH``)."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        page.evaluate(FLUSH)
    except PlaywrightError as exc:  # a new document is loading: it asks for its own first run, which IDLE waits for
        if "context was destroyed" not in str(exc):
            raise
    page.wait_for_function(IDLE, timeout=timeout_ms, polling=50)


def wait_title(page: Any, expected: str, timeout_ms: float = TIMEOUT_MS) -> None:
    """After a page switch: wait until the page's heading reads ``expected`` (the old page's heading stays shown until
    the new script run draws its own), then ``wait_idle``."""
    page.wait_for_function("(t) => { const h = document.querySelector('[data-testid=\"stMain\"] h1');"
                           " return h !== null && h.innerText.trim() === t; }", arg=expected, timeout=timeout_ms,
                           polling=50)
    wait_idle(page, timeout_ms)


def goto(page: Any, url: str, timeout_ms: float = TIMEOUT_MS) -> None:
    page.goto(url, wait_until="domcontentloaded", timeout=timeout_ms)
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    wait_idle(page, timeout_ms)


def repaint(page: Any) -> None:
    """Wait until the browser has drawn two frames: a viewport just resized is laid out and painted (screenshots)."""
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def exceptions(page: Any) -> list[str]:
    return [e.inner_text() for e in page.query_selector_all(EXCEPTION)]


def dismiss_runs(page: Any, timeout_ms: float = TIMEOUT_MS) -> None:
    """On the Run page: dismiss every finished run's panel (they stay, in every tab, until dismissed).

    A panel can show before its links (the first render of a fresh session draws them on a rerun), so while a run
    heading is shown without a Dismiss button this waits for the button."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    main = page.locator('[data-testid="stMain"]')
    heading = main.get_by_role("heading", name=re.compile(r"^(Current runs?|Last run)$"))
    button = main.get_by_role("button", name="Dismiss")
    deadline = time.monotonic() + timeout_ms / 1000
    while (left := deadline - time.monotonic()) > 0:
        wait_idle(page, left * 1000)
        if button.count():
            button.first.click()
        elif not heading.count():
            return
        else:
            try:
                button.first.wait_for(timeout=max(deadline - time.monotonic(), 0.001) * 1000)
            except PlaywrightTimeout:
                break
    raise AssertionError(f"run panels still shown after {timeout_ms / 1000:.0f} s: {main.inner_text()[:2000]}")
