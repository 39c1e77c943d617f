"""A connection check: one tiny request through the same client every run uses, and the exact error when it fails."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from analysis.errors import RoleScopeError
from analysis.llm.client import CallError, ChatRequest, LLMClient
from analysis.llm.keys import redact
from analysis.llm.specs import ModelSpec

PROBE = [{"role": "user", "content": "Reply with the single word OK."}]


@dataclass(frozen=True)
class ConnectionCheck:
    ok: bool
    message: str
    seconds: float


def check_connection(spec: ModelSpec, api_key: str | None = None, *, confirmed: tuple[str, ...] = ()) -> ConnectionCheck:
    """Send one request (the probe above, ``max_tokens`` 1, temperature 0) and report what happened: the reply's
    first token and the latency, or the client's error (HTTP status and body, connection refused, timeout ...),
    with every known secret redacted. Never raises for a failing endpoint."""
    async def once() -> str:
        client = LLMClient(spec, api_key, max_connections=1, confirmed=confirmed)
        try:
            reply = await client.complete(ChatRequest.build(PROBE, {"max_tokens": 1, "temperature": 0}))
            return reply.text
        finally:
            await client.aclose()

    started = time.perf_counter()
    try:
        text = asyncio.run(once())
    except (CallError, RoleScopeError) as exc:
        return ConnectionCheck(False, redact(str(exc)), time.perf_counter() - started)
    seconds = time.perf_counter() - started
    return ConnectionCheck(True, f"{spec.model} answered {text.strip()[:20]!r} in {seconds:.2f} s", seconds)
