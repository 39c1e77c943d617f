"""The dashboard launcher (app.launch): pages-folder mode off, imports warmed after the server starts, light imports only."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_main_runs_app_py_with_navigation_mode_and_warms_after_server_start(monkeypatch: pytest.MonkeyPatch):
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import bootstrap, cli

    import app.launch as launch

    calls: list[tuple[str, object]] = []
    monkeypatch.setattr(PagesManager, "uses_pages_directory", None)
    monkeypatch.setattr(bootstrap, "_on_server_start", lambda server: calls.append(("original", server)))
    monkeypatch.setattr(cli, "main", lambda args, prog_name: calls.append(("cli", args)) or 0)
    warmed = threading.Event()
    monkeypatch.setattr(launch, "warm_imports", lambda: warmed.set())

    launch.main(["--server.port", "1234"])
    assert calls == [("cli", ["run", str(REPO / "app.py"), "--server.port", "1234"])]
    assert PagesManager.uses_pages_directory is False
    assert not warmed.is_set()  # nothing is imported before the server listens

    bootstrap._on_server_start("server")
    assert calls[-1] == ("original", "server")
    assert warmed.wait(10)


def test_warm_imports_leave_heavy_packages_alone():
    """Warming must not pay for what the first page does not need (semopy, scikit-learn, scipy, openai)."""
    script = ("import json, sys; from app.launch import warm_imports, WARM_MODULES; warm_imports(); "
              "print(json.dumps({'warmed': all(m in sys.modules for m in WARM_MODULES), "
              "'heavy': [m for m in ('semopy', 'sklearn', 'scipy', 'openai') if m in sys.modules]}))")
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"warmed": True, "heavy": []}
