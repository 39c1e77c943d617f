"""Helpers of the per-method configuration tests (``tests/methods/<m>/test_configurations.py``): a store with two
incompatible runs, whose ``metrics --json`` document lists both configurations and never mixes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.__main__ import main


def metrics(store: Path, method: str, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    assert main(["metrics", method, "--store", str(store), "--json", "--n-boot", "0", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def check_two_configurations(entry: dict, latest_runs: list[str], older_runs: list[str], differs: str) -> dict:
    """The latest configuration is used; the older one is listed, saying how it differs."""
    configs = entry["configurations"]
    assert [c["runs"] for c in configs] == [latest_runs, older_runs]
    assert [c["used"] for c in configs] == [True, False]
    assert entry["configuration"] == configs[0]["id"] and differs in configs[1]["differs"]
    return configs[1]
