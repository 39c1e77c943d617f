"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.stub_server import StubServer


@pytest.fixture
def stub_server(tmp_path: Path) -> Iterator[StubServer]:
    """A fault-injecting OpenAI-compatible stub on 127.0.0.1 (random port), logging to tmp_path/stub_calls.jsonl."""
    with StubServer(log_path=tmp_path / "stub_calls.jsonl") as server:
        yield server


@pytest.fixture
def trust_endpoints(monkeypatch: pytest.MonkeyPatch):
    """Mark model specs as configured by the user, as ``run --model`` does, for this test only (their key may be sent)."""
    from analysis.llm import keys

    monkeypatch.setattr(keys, "_trusted", set(keys._trusted))
    return lambda *specs: [keys.trust_spec(s) for s in specs]
