"""The single LLM path: every backend is an OpenAI-compatible chat endpoint via ``openai.AsyncOpenAI``.

``LLMClient.complete`` makes exactly one attempt and raises ``CallError`` telling whether a retry
may help; retries, caching and persistence live in ``analysis.runs.executor``.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import openai

from analysis.llm.embedded import embedded_base_url
from analysis.llm.keys import redact, resolve_api_key
from analysis.llm.specs import ModelSpec

# Generation parameters that are part of the request (and therefore of the cache key).
REQUEST_PARAMS = ("temperature", "top_p", "max_tokens", "seed", "logprobs", "top_logprobs", "stop", "presence_penalty", "frequency_penalty")
# Server-specific knobs sent in the body as extra fields (llama.cpp: cache_prompt = prefix reuse).
EXTRA_PARAMS = ("cache_prompt",)


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion request. ``sample`` distinguishes repeated samples of one prompt."""

    messages: tuple[tuple[str, str], ...]
    params: tuple[tuple[str, Any], ...] = ()
    sample: int = 0

    @classmethod
    def build(cls, messages: list[dict[str, str]], params: dict[str, Any] | None = None, sample: int = 0) -> ChatRequest:
        params = {k: v for k, v in (params or {}).items() if v is not None}
        unknown = set(params) - set(REQUEST_PARAMS) - set(EXTRA_PARAMS)
        if unknown:
            raise ValueError(f"unknown generation params: {sorted(unknown)}")
        msgs = tuple((m["role"], m["content"]) for m in messages)
        return cls(msgs, tuple(sorted((k, _freeze(v)) for k, v in params.items())), sample)

    @property
    def message_dicts(self) -> list[dict[str, str]]:
        return [{"role": r, "content": c} for r, c in self.messages]

    @property
    def param_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.params}

    def to_json(self) -> dict[str, Any]:
        return {"messages": self.message_dicts, "params": self.param_dict, "sample": self.sample}

    def cache_key(self, model_identity: str) -> str:
        """sha256 of model identity + params + messages + sample index (canonical JSON)."""
        doc = json.dumps({"model": model_identity, **self.to_json()}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(doc.encode("utf-8")).hexdigest()


def _freeze(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


@dataclass
class ChatReply:
    """What one successful call returned, plus its accounting."""

    text: str
    finish_reason: str | None
    top_logprobs: list[dict[str, float]] | None = None  # per generated token: token -> logprob
    tokens_in: int = 0
    tokens_out: int = 0
    cached_tokens: int = 0
    latency_s: float = 0.0
    cost: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class CallError(Exception):
    """One failed attempt. ``retryable`` for 429/5xx/timeouts/connection/malformed replies."""

    def __init__(self, message: str, *, retryable: bool, retry_after: float | None = None, status: int | None = None):
        super().__init__(redact(message))
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status


def _retry_after_seconds(headers: httpx.Headers | None) -> float | None:
    """Parse Retry-After (seconds or HTTP date) and retry-after-ms; None if absent/unparseable."""
    if headers is None:
        return None
    if ms := headers.get("retry-after-ms"):
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def http_status_error(resp: httpx.Response) -> CallError:
    """A CallError for an HTTP error status: 408/409/429/5xx may succeed on retry, other 4xx will not."""
    status = resp.status_code
    return CallError(
        f"HTTP {status}: {resp.text[:200]}".strip(),
        retryable=status in (408, 409, 429) or status >= 500,
        retry_after=_retry_after_seconds(resp.headers),
        status=status,
    )


def classify_error(exc: Exception) -> CallError:
    """Map an httpx/JSON exception to a CallError with a one-line, key-free message."""
    if isinstance(exc, CallError):
        return exc
    if isinstance(exc, httpx.TimeoutException):
        return CallError("timeout waiting for the endpoint", retryable=True)
    if isinstance(exc, httpx.TransportError):
        return CallError(f"connection error: {type(exc).__name__}: {exc}", retryable=True)
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)):
        return CallError(f"malformed reply: {exc}", retryable=True)
    return CallError(f"{type(exc).__name__}: {exc}", retryable=False)


# httpcore's connection pool does O(connections^2) bookkeeping on every request; at 64 requests in
# flight one pool costs more CPU than the rest of a call. LLMClient therefore spreads requests over
# small pools (one AsyncOpenAI + httpx client each, created as concurrency grows).
POOL_SHARD_SIZE = 8


class LLMClient:
    """An AsyncOpenAI client for one ModelSpec. One attempt per ``complete`` call."""

    def __init__(self, spec: ModelSpec, api_key: str | None = None, max_connections: int = 256):
        self.spec = spec
        self._base_url = embedded_base_url() if spec.backend == "embedded" else spec.base_url
        self._key = resolve_api_key(spec, api_key) or "not-needed"
        self._per_shard = max(1, min(POOL_SHARD_SIZE, max_connections))
        self._max_shards = -(-max(1, max_connections) // self._per_shard)
        self._ssl = httpx.create_ssl_context()  # httpx's default context, loaded once for all pools (~80 ms each)
        self._shards: list[openai.AsyncOpenAI] = []
        self._http: list[httpx.AsyncClient] = []
        self._busy: list[int] = []
        self._url: str | None = None
        self._headers: dict[str, str] = {}
        self._add_shard()

    def _add_shard(self) -> None:
        http = httpx.AsyncClient(
            verify=self._ssl,
            limits=httpx.Limits(max_connections=self._per_shard, max_keepalive_connections=self._per_shard),
            timeout=httpx.Timeout(self.spec.timeout_s, connect=10.0),
        )
        oai = openai.AsyncOpenAI(base_url=self._base_url, api_key=self._key, max_retries=0, http_client=http)
        self._shards.append(oai)
        self._http.append(http)
        self._busy.append(0)
        if self._url is None:
            # AsyncOpenAI's normalised base URL and headers (auth, organisation/project when set), without its
            # X-Stainless telemetry headers: each header costs h11 validation on every request
            self._url = str(oai.base_url).rstrip("/") + "/chat/completions"
            headers = {**oai.default_headers, **oai.auth_headers}
            self._headers = {k: v for k, v in headers.items() if isinstance(v, str) and not k.startswith("X-Stainless")}

    def _pick_shard(self) -> int:
        """The least busy pool; a new one when all are full (up to max_connections in total)."""
        busy = min(self._busy)
        if busy >= self._per_shard and len(self._shards) < self._max_shards:
            self._add_shard()
            return len(self._shards) - 1
        return self._busy.index(busy)

    async def aclose(self) -> None:
        for shard, http in zip(self._shards, self._http):
            await shard.close()
            await http.aclose()

    async def complete(self, request: ChatRequest) -> ChatReply:
        params = request.param_dict
        if params.get("top_logprobs"):
            params["top_logprobs"] = min(int(params["top_logprobs"]), self.spec.max_top_logprobs)
            params["logprobs"] = True
        # the body chat.completions.create would send (extra params such as cache_prompt included), posted
        # with the client's own URL, headers and httpx pool: openai's per-request option models, deep copies and
        # response parsing cost ~0.9 ms of CPU per call, more than the HTTP exchange itself (bench_runner.py)
        if self.spec.backend == "embedded":
            # llama.cpp reuses a cached prompt prefix unless told not to, and the reply then depends on which
            # request came before (different batch splits, different low bits): off unless the plan asked for it
            params.setdefault("cache_prompt", False)
        body = {"model": self.spec.model, "messages": request.message_dicts, **params}
        content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        shard = self._pick_shard()
        self._busy[shard] += 1
        started = time.perf_counter()
        try:
            resp = await self._http[shard].post(self._url or "", content=content, headers=self._headers)
            latency = time.perf_counter() - started
            if resp.status_code >= 400:
                raise http_status_error(resp)
            doc = json.loads(resp.content)
        except Exception as exc:
            raise classify_error(exc) from None
        finally:
            self._busy[shard] -= 1
        try:
            return self._reply(doc, latency)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise CallError(f"malformed reply: {type(exc).__name__}: {exc}", retryable=True) from None

    def _reply(self, doc: Any, latency: float) -> ChatReply:
        """A ChatReply from a chat.completion document; a document without choices is malformed (retryable)."""
        choices = doc.get("choices") if isinstance(doc, dict) else None
        if not choices or not isinstance(choices[0], dict):
            raise CallError("malformed reply: no choices", retryable=True)
        choice = choices[0]
        text = ((choice.get("message") or {}).get("content")) or ""
        top = None
        content = (choice.get("logprobs") or {}).get("content")
        if content:
            top = [{t["token"]: t["logprob"] for t in (tok.get("top_logprobs") or [])} or {tok["token"]: tok["logprob"]}
                   for tok in content]
        usage = doc.get("usage") or {}
        tokens_in = usage.get("prompt_tokens") or 0
        tokens_out = usage.get("completion_tokens") or 0
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
        return ChatReply(
            text=text,
            finish_reason=choice.get("finish_reason"),
            top_logprobs=top,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cached_tokens=cached,
            latency_s=latency,
            cost=self.spec.cost(tokens_in, tokens_out),
        )
