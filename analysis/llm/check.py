"""A connection check: one tiny request through the same client every run uses, and the exact error when it fails;
and a logprob probe: whether the server serves the top logprobs a run is about to ask for."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from typing import Any

from analysis.errors import RoleScopeError
from analysis.llm.client import CallError, ChatRequest, LLMClient
from analysis.llm.keys import redact
from analysis.llm.specs import ModelSpec

PROBE = [{"role": "user", "content": "Reply with the single word OK."}]

#: vLLM's refusal (HTTP 400) of a request asking more top logprobs than its ``--max-logprobs`` (default 20) allows:
#: ``SamplingParams._validate_logprobs`` in vllm/sampling_params.py (``Processor._validate_logprobs`` in
#: vllm/v1/engine/processor.py before it), e.g. "Requested sample logprobs of 200, which is greater than max allowed:
#: 20"; newer versions add " (parameter=logprobs, value=200)".
_LOGPROB_REFUSAL = re.compile(r"Requested sample logprobs of (\d+), which is greater than max allowed: (\d+)")

#: The most top logprobs the usual endpoints serve as started by default (OpenAI's maximum, vLLM's --max-logprobs): a
#: run asking at most this many is not probed (a server started below it is named after the run, from its failures).
SERVED_BY_DEFAULT = 20


@dataclass(frozen=True)
class ConnectionCheck:
    ok: bool
    message: str
    seconds: float


@dataclass(frozen=True)
class LogprobLimit:
    """A server's refusal of the top logprobs a request asked: at most ``allowed``, ``asked`` requested."""

    asked: int
    allowed: int

    def line(self, model: str) -> str:
        """One line naming the setting to change: a refused request is refused again on every call of a run."""
        return (f"{model}: the server allows at most {self.allowed} top logprobs and the request asks for {self.asked}: "
                f"set max_top_logprobs = {self.allowed} for this model in models.toml (or start vLLM with "
                f"--max-logprobs {self.asked})")


def logprob_limit(error: str) -> LogprobLimit | None:
    """The limit a stored or raised error text names when it is vLLM's refusal of the logprobs asked, else None."""
    match = _LOGPROB_REFUSAL.search(error)
    return LogprobLimit(int(match[1]), int(match[2])) if match else None


def _ask_once(spec: ModelSpec, params: dict[str, Any], api_key: str | None, confirmed: tuple[str, ...]) -> str:
    """The probe message sent once with ``params`` through a new client (the runs' own path); the reply's text, or
    the client's ``CallError`` (a key refused for the endpoint: ``InputError`` before anything is sent)."""
    async def once() -> str:
        client = LLMClient(spec, api_key, max_connections=1, confirmed=confirmed)
        try:
            reply = await client.complete(ChatRequest.build(PROBE, params))
            return reply.text
        finally:
            await client.aclose()

    return asyncio.run(once())


def check_connection(spec: ModelSpec, api_key: str | None = None, *, confirmed: tuple[str, ...] = ()) -> ConnectionCheck:
    """Send one request (the probe above, ``max_tokens`` 1, temperature 0) and report what happened: the reply's
    first token and the latency, or the client's error (HTTP status and body, connection refused, timeout ...),
    with every known secret redacted. Never raises for a failing endpoint."""
    started = time.perf_counter()
    try:
        text = _ask_once(spec, {"max_tokens": 1, "temperature": 0}, api_key, confirmed)
    except (CallError, RoleScopeError) as exc:
        return ConnectionCheck(False, redact(str(exc)), time.perf_counter() - started)
    seconds = time.perf_counter() - started
    return ConnectionCheck(True, f"{spec.model} answered {text.strip()[:20]!r} in {seconds:.2f} s", seconds)


def probe_logprobs(spec: ModelSpec, top_logprobs: int, api_key: str | None = None, *,
                   confirmed: tuple[str, ...] = ()) -> LogprobLimit | None:
    """Ask once for ``top_logprobs`` (``max_tokens`` 1, temperature 0): the server's limit when it refuses that many
    (HTTP 400, vLLM's wording), else None: answered, or failed otherwise, which the run then meets and reports as it
    would have. Why: a server refusing the logprobs asked refuses every logprob call, so a run is refused before it
    is created rather than stored with all its calls failed. A key refused for the endpoint raises, as the run would."""
    params = {"max_tokens": 1, "temperature": 0, "logprobs": True, "top_logprobs": top_logprobs}
    try:
        _ask_once(spec, params, api_key, confirmed)
    except CallError as exc:
        return logprob_limit(str(exc)) if exc.status == 400 else None
    return None
