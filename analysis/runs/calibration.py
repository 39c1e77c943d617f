"""This machine's speed on the embedded model: measured once by a short calibration, kept, read by the estimates.

A call's time is modelled as t = overhead + tokens_in / prompt_tps + tokens_out / gen_tps. Three kinds of call
measure it, each twice (the median kept), every prompt new so that no prompt cache answers it:
- short prompt, 1 token out: t_short ≈ the overhead;
- long prompt, 1 token out: prompt_tps = (tokens_in_long − tokens_in_short) / (t_long − t_short);
- short prompt, ``GEN_TOKENS`` out: gen_tps = (tokens_out − 1) / (t_gen − t_short).
The result is kept as JSON in the cache folder (``calibration-<key>.json``), keyed by what decides the speed: the
model file, the thread count and the number of cores; it holds when it was measured, and the machine's load (1-minute
load average) then, which the estimate states.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from analysis.runs.side_store import cache_dir

if TYPE_CHECKING:
    from analysis.llm.specs import ModelSpec

GEN_TOKENS = 48
REPEATS = 2
#: Authored filler for the long prompt (about 8 tokens a sentence): its meaning does not matter, only its length.
_SENTENCE = "The committee met on a quiet morning to read the minutes of the last meeting. "


@dataclass(frozen=True)
class EmbeddedSpeed:
    """Seconds per call, prompt and generated tokens per second, measured at ``measured_at`` (epoch s) with the
    1-minute load average ``load`` on ``cores`` cores and ``threads`` model threads."""

    overhead_s: float
    prompt_tps: float
    gen_tps: float
    measured_at: float
    load: float
    cores: int
    threads: int

    def seconds(self, n_calls: int, tokens_in: float, tokens_out: float) -> float:
        """Estimated wall time of ``n_calls`` calls totalling these tokens, one after another."""
        return n_calls * self.overhead_s + tokens_in / self.prompt_tps + tokens_out / self.gen_tps

    def basis(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.measured_at))
        return (f"calibrated on this machine at {when} (load {self.load:.1f} on {self.cores} cores): "
                f"{self.overhead_s:.2f} s per call, {self.prompt_tps:.0f} prompt and {self.gen_tps:.0f} generated "
                "tokens/s")


def _threads() -> int:
    return int(os.environ.get("ROLESCOPE_EMBEDDED_THREADS") or max(1, min(2, os.cpu_count() or 1)))


def kept_path() -> Path:
    """Where this machine's calibration is kept: the cache folder, keyed by model file, threads and cores."""
    from analysis.llm.embedded import GGUF_NAME

    key = hashlib.sha256(f"{GGUF_NAME}|{_threads()}|{os.cpu_count()}".encode()).hexdigest()[:12]
    return cache_dir() / f"calibration-{key}.json"


def kept_speed() -> EmbeddedSpeed | None:
    """The kept calibration of this machine, or None (never measured, or its file unreadable)."""
    try:
        return EmbeddedSpeed(**json.loads(kept_path().read_text()))
    except (OSError, ValueError, TypeError):
        return None


def calibrate(spec: ModelSpec) -> EmbeddedSpeed:
    """Measure this machine's speed on ``spec`` (the embedded model's) and keep it (``kept_path``)."""
    from analysis.llm.client import ChatRequest, LLMClient

    async def timed(client: LLMClient, text: str, max_tokens: int) -> tuple[float, int, int]:
        started = time.perf_counter()
        reply = await client.complete(ChatRequest.build([{"role": "user", "content": text}],
                                                        {"max_tokens": max_tokens, "temperature": 0}))
        return time.perf_counter() - started, reply.tokens_in, reply.tokens_out

    async def measure() -> EmbeddedSpeed:
        client = LLMClient(spec, None, max_connections=1)
        try:
            await timed(client, "Warm up: say OK.", 1)  # starts the server and loads the model: not timed
            short, long_, gen = [], [], []
            for k in range(REPEATS):
                short.append(await timed(client, f"Call {k}: reply with one word.", 1))
                long_.append(await timed(client, f"Note {k}. " + _SENTENCE * 40 + "Reply with one word.", 1))
                gen.append(await timed(client, f"Story {k}: write a few sentences about a lighthouse.", GEN_TOKENS))
        finally:
            await client.aclose()
        t_short = statistics.median(t for t, _, _ in short)
        tin_short = statistics.median(i for _, i, _ in short)
        t_long, tin_long = statistics.median(t for t, _, _ in long_), statistics.median(i for _, i, _ in long_)
        t_gen, out_gen = statistics.median(t for t, _, _ in gen), statistics.median(o for _, _, o in gen)
        return EmbeddedSpeed(overhead_s=t_short,
                             prompt_tps=max(tin_long - tin_short, 1) / max(t_long - t_short, 1e-3),
                             gen_tps=max(out_gen - 1, 1) / max(t_gen - t_short, 1e-3), measured_at=time.time(),
                             load=os.getloadavg()[0], cores=os.cpu_count() or 1, threads=_threads())

    speed = asyncio.run(measure())
    path = kept_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(speed)))
    tmp.replace(path)
    return speed
