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
