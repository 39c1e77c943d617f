"""The dashboard launcher (app.launch): imports warmed after the server starts, light imports only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_main_runs_the_entry_script_and_warms_after_server_start(monkeypatch: pytest.MonkeyPatch):
    from streamlit.web import bootstrap, cli

    import app.launch as launch

    calls: list[tuple[str, object]] = []
    monkeypatch.setattr(bootstrap, "_on_server_start", lambda server: calls.append(("original", server)))
    monkeypatch.setattr(cli, "main", lambda args, prog_name: calls.append(("cli", args)) or 0)
    monkeypatch.setenv("ROLESCOPE_WARM", "0")  # main() sets it to 1 for the server it starts; restored after
    warmed = threading.Event()
    monkeypatch.setattr(launch, "warm_imports", lambda: warmed.set())

    launch.main(["--server.port", "1234"])
    assert calls == [("cli", ["run", str(REPO / "app" / "main.py"), "--server.port", "1234"])]
    assert not warmed.is_set()  # nothing is imported before the server listens

    bootstrap._on_server_start("server")
    assert calls[-1] == ("original", "server")
    assert warmed.wait(10)
    assert os.environ["ROLESCOPE_WARM"] == "1"  # app.data.warm_samples may build the reply table in this server


def test_warm_imports_leave_heavy_packages_alone():
    """Warming pays only for what comes before the page's heading: not pandas or pydantic (the script run imports
    them after the heading; warmed in the background they held the browser's loading back), nor semopy & co."""
    script = ("import json, sys; from app.launch import warm_imports, WARM_MODULES; warm_imports(); "
              "print(json.dumps({'warmed': all(m in sys.modules for m in WARM_MODULES), "
              "'heavy': [m for m in ('pandas', 'pydantic', 'semopy', 'sklearn', 'scipy', 'openai') if m in sys.modules]}))")
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"warmed": True, "heavy": []}


@pytest.mark.parametrize("with_runtime", [True, False])
def test_warm_streamlit_first_calls(with_runtime: bool):
    """The emoji catalogue is loaded, and the once-only "use streamlit run" check is spent only under a running
    runtime (without one it would print its warning, and the flag must stay for the real first element)."""
    script = ("import json, sys; from streamlit import delta_generator, runtime; "
              f"runtime.exists = lambda: {with_runtime}; "
              "import threading; from app.launch import warm_streamlit_first_calls; "
              "t = threading.Thread(target=warm_streamlit_first_calls); t.start(); t.join(); "  # as launched: a thread
              "print(json.dumps({'emojis': 'streamlit.emojis' in sys.modules, "
              "'checked': delta_generator._use_warning_has_been_displayed}))")
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"emojis": True, "checked": with_runtime}
    assert "streamlit run" not in out.stderr


def test_page_icon_is_the_warmed_one():
    from app.launch import PAGE_ICON

    assert "page_icon=PAGE_ICON" in (REPO / "app" / "main.py").read_text(encoding="utf-8")
    assert PAGE_ICON and not PAGE_ICON.isascii()  # an emoji: the costly branch of st.set_page_config


def test_the_reply_table_is_built_after_a_page_drew_only_in_a_launched_server(fixture_store: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    """``app.data.warm_samples`` builds ``samples(ref)`` in the background once per store version when the server was
    started by ``app.launch`` (``ROLESCOPE_WARM=1``), so the Samples page's first visit finds it built; elsewhere
    (AppTest, other servers) it starts nothing."""
    from app import data
    from app.stores import ref_for

    ref = ref_for(fixture_store, True)
    data.samples.clear()
    monkeypatch.delenv("ROLESCOPE_WARM", raising=False)
    data.warm_samples(ref)
    assert ref not in data._WARMED
    assert not [t for t in threading.enumerate() if t.name == "rolescope-warm-samples"]

    monkeypatch.setenv("ROLESCOPE_WARM", "1")
    monkeypatch.setattr(data, "_WARMED", set())
    built: list[object] = []
    from analysis import samples as samples_module

    original = samples_module.store_samples
    monkeypatch.setattr(samples_module, "store_samples", lambda *a, **k: built.append(a) or original(*a, **k))
    data.warm_samples(ref)
    data.warm_samples(ref)  # once per store version
    for thread in [t for t in threading.enumerate() if t.name == "rolescope-warm-samples"]:
        thread.join(60)
    assert len(built) == 1
    frame = data.samples(ref)  # the page's call: the table built in the background, not a new one
    assert len(built) == 1 and len(frame) > 0
    data.samples.clear()
