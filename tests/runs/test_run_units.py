"""run_units: concurrent by default, strictly one unit after another when prefix reuse asks for it."""

from __future__ import annotations

import asyncio
from functools import partial

from analysis.runs.executor import run_units


async def _unit(name: str, log: list[str]) -> None:
    for step in range(3):
        log.append(f"{name}{step}")
        await asyncio.sleep(0)


def test_one_at_a_time_runs_units_in_order_without_interleaving() -> None:
    log: list[str] = []
    asyncio.run(run_units((partial(_unit, n, log) for n in "abc"), one_at_a_time=True))
    assert log == ["a0", "a1", "a2", "b0", "b1", "b2", "c0", "c1", "c2"]


def test_concurrent_units_interleave() -> None:
    log: list[str] = []
    asyncio.run(run_units((partial(_unit, n, log) for n in "abc"), one_at_a_time=False))
    assert sorted(log) == sorted(["a0", "a1", "a2", "b0", "b1", "b2", "c0", "c1", "c2"])
    assert log[:3] == ["a0", "b0", "c0"]  # every unit started before any finished
