"""Shared pytest fixtures, and which tests run in the suite's serial phase."""

from __future__ import annotations

import os
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path

import pytest

from tests.stub_server import StubServer

#: Test files of the serial phase (``scripts/test.sh`` runs them after the parallel phase): those that start the
#: embedded model. They run on two workers with the model on one thread each (``ROLESCOPE_EMBEDDED_THREADS=1``:
#: measured, two one-thread model jobs at once each run as fast as one two-thread job alone, where two two-thread jobs
#: spin against each other, ~100x slower). A single test elsewhere that starts the model is marked
#: ``@pytest.mark.serial``; in the parallel phase ``tests/guards/no_embedded`` makes any other one fail at once.
SERIAL_PATHS = ("tests/browser/test_run_methods.py", "tests/*/*/test_browser.py", "tests/*embedded*",
                "tests/test_demo_build.py")
#: Both phases run these files one after another on one worker (``pytest_xdist_make_scheduler``): each drives
#: Chromium against a live server, and two browsers and servers at once on two cores make their waits a matter of luck.
ONE_AT_A_TIME = ("tests/browser/*", "tests/*/*/test_browser.py")
REPO = Path(__file__).resolve().parents[1]
#: Tests seal the documents they cache (``analysis.cache_trust``) with a key of the checkout's own, never the user's
#: (``~/.config/rolescope/cache-key``): set here, so every test and every command a test starts uses it.
os.environ.setdefault("ROLESCOPE_CACHE_KEY_FILE", str(REPO / ".cache" / "test-cache-key"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    from tests.browser.harness import RUN_TEST_TIMEOUT_S, TEST_TIMEOUT_S

    for item in items:
        where = item.path.relative_to(REPO).as_posix()
        serial = any(fnmatch(where, pattern) for pattern in SERIAL_PATHS)
        if serial:
            item.add_marker(pytest.mark.serial)
        # a browser test waits on the page with the harness's deadlines, which a loaded machine can need in full: its
        # pytest-timeout limit is theirs (a test that runs the embedded model waits for the run too), not --timeout's
        if any(fnmatch(where, pattern) for pattern in ONE_AT_A_TIME) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(RUN_TEST_TIMEOUT_S if serial else TEST_TIMEOUT_S))


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadfile`` with every browser file in one scope: a file's tests on one worker (its module fixtures
    built once), the browser files one after another."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class BrowserFilesTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "browser" if any(fnmatch(path, p) for p in ONE_AT_A_TIME) else super()._split_scope(nodeid)

    return BrowserFilesTogether(config, log)


@pytest.fixture
def stub_server(tmp_path: Path) -> Iterator[StubServer]:
    """A fault-injecting OpenAI-compatible stub on 127.0.0.1 (random port), logging to tmp_path/stub_calls.jsonl."""
    with StubServer(log_path=tmp_path / "stub_calls.jsonl") as server:
        yield server


def trust_spec(spec) -> None:
    """Mark ``spec``'s endpoint as the user's own, as parsing ``run --model`` does (``specs.USER_INPUT``)."""
    from analysis.llm import specs

    if spec.base_url:
        specs._user_endpoints.add((spec.base_url, spec.api_key_env))


@pytest.fixture
def trust_endpoints(monkeypatch: pytest.MonkeyPatch):
    """Mark model specs as configured by the user, as ``run --model`` does, for this test only (their key may be sent)."""
    from analysis.llm import specs

    monkeypatch.setattr(specs, "_user_endpoints", set(specs._user_endpoints))
    return lambda *given: [trust_spec(s) for s in given]
