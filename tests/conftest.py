"""Shared pytest fixtures, and which tests run in the suite's serial phase."""

from __future__ import annotations

from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path

import pytest

from tests.stub_server import StubServer

#: Test files that run alone (``scripts/test.sh`` runs them after the parallel phase): those that start the embedded
#: model, which needs both cores (one model job beside another busy process runs ~2x slower, two model jobs ~100x),
#: and those that drive Chromium against a live server (two browsers and servers at once on two cores make their
#: waits a matter of luck). A single test elsewhere that starts the model is marked ``@pytest.mark.serial``; in the
#: parallel phase ``tests/guards/no_embedded`` makes any other one fail at once.
SERIAL_PATHS = ("tests/browser/*", "tests/*/*/test_browser.py", "tests/*embedded*", "tests/test_demo_build.py")
REPO = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = item.path.relative_to(REPO).as_posix()
        if any(fnmatch(where, pattern) for pattern in SERIAL_PATHS):
            item.add_marker(pytest.mark.serial)


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
