"""The resume command a run prints is the one that works (issue 47, item 6): after a run on a URL given with
``--model NAME@URL`` whose key comes from ROLESCOPE_API_KEY, ``resume`` needs ``--trust-endpoint URL`` (a key goes to a
URL read from a store only when the command names it), so the hint carries it; followed as printed, it completes."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.__main__ import main
from tests.stub_server import FaultRule, StubServer

REPO = Path(__file__).resolve().parents[2]


def test_the_printed_resume_command_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capfd: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ROLESCOPE_API_KEY", "sk-test-" + "a1b2c3d4" * 4)
    store = tmp_path / "s.db"
    with StubServer() as server:
        server.configure([FaultRule("500", modulo=3, times=None)])  # a third of the calls fail: the run says resume
        code = main(["run", "values", "--model", f"m@{server.url}", "--store", str(store), "--quiet", "--run-id", "h",
                     "--limit-personas", "3", "--limit-items", "6", "--contexts", "no_conv", "--answer-mode", "text",
                     "--max-attempts", "1"])
        assert code == 1
        err = capfd.readouterr().err
        hint = next(line for line in err.splitlines() if "resume with: " in line).split("resume with: ", 1)[1]
        argv = shlex.split(hint)
        assert argv[:3] == ["python", "-m", "analysis"] and "--trust-endpoint" in argv
        assert argv[argv.index("--trust-endpoint") + 1] == server.url
        # in a new shell (a new process): without it, the same resume is refused (the key would go to a URL read from
        # the store); as printed, it completes
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        bare = subprocess.run([sys.executable, "-m", "analysis", "resume", "h", "--store", str(store), "--quiet"],
                              cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
        assert bare.returncode == 2 and "--trust-endpoint" in bare.stderr, bare.stderr
        server.configure()
        followed = subprocess.run([sys.executable, *argv[1:], "--quiet"], cwd=REPO, env=env, capture_output=True,
                                  text=True, timeout=300)
        assert followed.returncode == 0, followed.stderr
