"""Start-up cost: with the metric cache warm, opening the Overview and the leaderboard imports no semopy, sklearn or scipy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.app.fixture_store import build_fixture_store

REPO = Path(__file__).resolve().parents[2]
SCRIPT = """
import json, os, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({app!r}, default_timeout=600).run()
at.switch_page({leaderboard!r}).run()
assert not at.exception, [e.value for e in at.exception]
print(json.dumps({{m: m in sys.modules for m in ("semopy", "sklearn", "scipy", "openai")}}))
"""


@pytest.mark.slow
def test_warm_start_does_not_import_heavy_packages(tmp_path):
    """A first process fills the on-disk cache; a second one renders both pages without importing heavy packages."""
    env = {"ROLESCOPE_DEMO_STORE": str(build_fixture_store(tmp_path / "s.db")), "ROLESCOPE_STORE": str(tmp_path / "u.db"),
           "ROLESCOPE_CACHE_DIR": str(tmp_path / "cache"), "ROLESCOPE_N_BOOT": "100", "PYTHONPATH": str(REPO)}
    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", SCRIPT.format(app=str(REPO / "app" / "main.py"), leaderboard=str(REPO / "pages" / "leaderboard.py"))], cwd=REPO, capture_output=True,
                              text=True, timeout=900, env={**os.environ, **env})

    cold = run()
    assert cold.returncode == 0, cold.stderr[-2000:]
    assert json.loads(cold.stdout.strip().splitlines()[-1])["sklearn"]  # the first start computes the separability
    warm = run()
    assert warm.returncode == 0, warm.stderr[-2000:]
    assert json.loads(warm.stdout.strip().splitlines()[-1]) == {"semopy": False, "sklearn": False, "scipy": False,
                                                                 "openai": False}
