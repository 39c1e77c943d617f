"""The forked workers of ``analysis.parallel`` die with their parent: a ``metrics`` killed with SIGKILL leaves no
worker running on (issue 58: they used to keep running under PID 1 and ignore SIGTERM)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import os, sys, time
from analysis.parallel import shared_pool, submit

def sleep_forever(_):
    print(os.getpid(), flush=True)
    time.sleep(600)

with shared_pool(2):
    waits = submit([(sleep_forever, k) for k in range(2)])
    [w() for w in waits]
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat").read_text().split()[2] if Path(f"/proc/{pid}/stat").exists() else "X"
    return state not in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG) is Linux's")
def test_workers_die_when_their_parent_is_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        workers = [int(parent.stdout.readline()) for _ in range(2)]
        assert all(_alive(pid) for pid in workers)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in workers)
    finally:
        parent.kill()
