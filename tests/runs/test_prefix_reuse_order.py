"""Prefix reuse sends one call at a time, in the same order on every run.

llama.cpp's numbers for a prompt depend on the prefix its single KV-cache slot held before (measured on the embedded
model: a logprob moved by 0.03 with the request sent before it). Two calls in flight reach the server in either order,
so two builds of one plan could differ (the demo build test failed so once in CI). The stub stands in for the server:
it counts the calls it answers at once."""

from __future__ import annotations

from pathlib import Path

from analysis.__main__ import main
from tests.stub_server import StubServer

#: a plan whose items are asked side by side within each persona's questionnaire
VALUES = ["--limit-personas", "2", "--limit-items", "6", "--contexts", "no_conv", "--answer-mode", "text"]


def _run(server: StubServer, store: Path, *extra: str) -> tuple[int, list[str]]:
    """The run's exit code and the hashes of the requests the stub received, in arrival order."""
    before = len(server.calls())
    server.app.peak_in_flight = 0
    code = main(["run", "values", "--model", f"stub@{server.url}", "--store", str(store), "--quiet", "--run-id", "r",
                 "--concurrency", "8", *VALUES, *extra])
    return code, [c["hash"] for c in server.calls()[before:]]


def test_prefix_reuse_sends_one_call_at_a_time_in_a_fixed_order(tmp_path: Path) -> None:
    with StubServer() as server:
        server.configure(latency_s=0.02)  # replies overlap unless the client waits for each one
        code, side_by_side = _run(server, tmp_path / "free.db")
        assert code == 0 and server.app.peak_in_flight > 1  # without prefix reuse, items are in flight together
        orders = []
        for n in range(2):
            code, order = _run(server, tmp_path / f"reuse{n}.db", "--prefix-reuse")
            assert code == 0 and server.app.peak_in_flight == 1
            orders.append(order)
    assert orders[0] == orders[1] and sorted(orders[0]) == sorted(side_by_side)
