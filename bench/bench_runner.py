"""Runner throughput: RoleScope's Executor vs a bare httpx loop, against the stub server in another process.

    .venv/bin/python bench/bench_runner.py [--levels 1,16,64] [--requests 400,2000,2000] [--rounds 2]

(a) bare: ``httpx.AsyncClient`` posting chat completions under an ``asyncio.Semaphore``, parsing the JSON.
(b) executor: ``Executor.call`` per unit (cache lookup miss, openai client, retries wrapper, one SQLite
    commit per call to a fresh store through the store's scrubber, with ``--secrets`` keys in play, progress events). Every request is unique (no cache hits).
Prints requests/s per concurrency level, the ratio (b)/(a), the targets (ratio >= 0.8; >= 500 req/s at 64) and
the client process's CPU time per request of each (less sensitive than req/s to other load on the machine).
Each level runs (a) and (b) in ``--rounds`` interleaved chunks and sums their times, so drifting load from
other processes on the machine hits both alike. Exit code 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import sys
import tempfile
import time
from itertools import count
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from analysis.llm.client import ChatRequest, LLMClient  # noqa: E402
from analysis.llm.keys import register_secret, secrets_in_play  # noqa: E402
from analysis.llm.specs import parse_model_spec  # noqa: E402
from analysis.runs.executor import Executor  # noqa: E402
from analysis.runs.store import Store  # noqa: E402
from tests.stub_server import stub_process  # noqa: E402

TARGET_RATIO = 0.8
TARGET_RPS_AT_64 = 500.0
_unique = count()


def _messages() -> list[dict[str, str]]:
    n = next(_unique)
    return [{"role": "system", "content": "You are a persona in a throughput benchmark."},
            {"role": "user", "content": f"Request number {n}: say something short."}]


async def bare(url: str, n: int, concurrency: int) -> tuple[float, float]:
    """(wall, client CPU) seconds for n requests of a plain httpx loop (keep-alive pool sized to the concurrency)."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        sem = asyncio.Semaphore(concurrency)

        async def one() -> None:
            async with sem:
                body = {"model": "stub-model", "messages": _messages(), "max_tokens": 16}
                resp = await client.post("/chat/completions", json=body)
                resp.raise_for_status()
                assert resp.json()["choices"][0]["message"]["content"]

        await asyncio.gather(*(one() for _ in range(2 * concurrency)))  # warm-up: open the connections
        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one() for _ in range(n)))
        return time.perf_counter() - started, time.process_time() - cpu


async def executor(url: str, n: int, concurrency: int, store_dir: Path) -> tuple[float, float]:
    """(wall, client CPU) seconds for n Executor.call units persisted to a fresh store (all cache misses)."""
    spec = parse_model_spec("stub-model@" + url, models_file=None)
    store = Store(store_dir / f"bench_{next(_unique)}.db")
    store.create_run("bench", "values", spec.name, spec.public_dict(), {})
    client = LLMClient(spec)
    ex = Executor(store, "bench", client, concurrency=concurrency)
    units = count()

    async def one() -> None:
        out = await ex.call(f"u{next(units)}", ChatRequest.build(_messages(), {"max_tokens": 16}))
        assert out.ok and not out.cached, out.error

    try:
        await asyncio.gather(*(one() for _ in range(2 * concurrency)))
        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(one() for _ in range(n)))
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        await client.aclose()
        store.close()
    with Store(store.path, read_only=True) as stored:
        assert stored.query_one("SELECT COUNT(*) AS n FROM run_calls WHERE cached = 0")["n"] == n + 2 * concurrency
    return seconds, cpu


def measure(url: str, n: int, concurrency: int, rounds: int, store_dir: Path) -> tuple[float, float, float, float]:
    """Requests/s of (bare, executor) and their client CPU microseconds per request, over ``rounds``
    interleaved chunks of n/rounds requests each."""
    chunk = max(1, n // rounds)
    bare_s = bare_cpu = exec_s = exec_cpu = 0.0
    for _ in range(rounds):
        wall, cpu = asyncio.run(bare(url, chunk, concurrency))
        bare_s, bare_cpu = bare_s + wall, bare_cpu + cpu
        wall, cpu = asyncio.run(executor(url, chunk, concurrency, store_dir))
        exec_s, exec_cpu = exec_s + wall, exec_cpu + cpu
    total = chunk * rounds
    return total / bare_s, total / exec_s, bare_cpu / total * 1e6, exec_cpu / total * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,16,64")
    parser.add_argument("--requests", default="400,2000,2000", help="requests per level and variant (one per level)")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved (a)/(b) chunks per level")
    parser.add_argument("--secrets", type=int, default=3, help="keys the store's scrubber checks every write for "
                        "(registered at random, plain and key-shaped; default 3)")
    args = parser.parse_args()
    for i in range(args.secrets):  # the scrubber in the write path looks for each, whole and in fragments
        register_secret(("sk-bench-" if i % 2 else "plainbench") + secrets.token_hex(16))
    print(f"scrubber: {len(secrets_in_play())} secrets in play", flush=True)
    levels = [int(v) for v in args.levels.split(",")]
    requests = [int(v) for v in args.requests.split(",")]
    rows = []
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp, stub_process(Path(tmp) / "stub.jsonl") as (_, url):
        for level, n in zip(levels, requests):
            rows.append((level, n, *measure(url, n, level, args.rounds, Path(tmp))))
    print(f"{'concurrency':>11} {'requests':>8} {'bare req/s':>10} {'executor req/s':>14} {'ratio':>6} "
          f"{'CPU us/req bare':>15} {'executor':>8}  targets")
    ok = True
    for level, n, a, b, cpu_a, cpu_b in rows:
        ratio = b / a
        checks = [f"ratio>={TARGET_RATIO}: {'ok' if ratio >= TARGET_RATIO else 'MISSED'}"]
        if level == 64:
            checks.append(f">={TARGET_RPS_AT_64:.0f} req/s: {'ok' if b >= TARGET_RPS_AT_64 else 'MISSED'}")
        ok &= all(c.endswith("ok") for c in checks)
        print(f"{level:>11} {n:>8} {a:>10.0f} {b:>14.0f} {ratio:>6.2f} {cpu_a:>15.0f} {cpu_b:>8.0f}  {'; '.join(checks)}")
    print(f"total bench time {time.perf_counter() - started:.0f}s; {os.cpu_count()} CPUs; "
          f"1-min load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after (other processes skew the numbers)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
