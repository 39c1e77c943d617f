"""The single LLM path: every backend is an OpenAI-compatible chat endpoint via ``openai.AsyncOpenAI``.

``LLMClient.complete`` makes exactly one attempt and raises ``CallError`` telling whether a retry
may help; retries, caching and persistence live in ``analysis.runs.executor``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import time
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx

from analysis.llm.embedded import embedded_base_url
from analysis.llm.keys import clip, redact, redact_token_rows, resolve_api_key
from analysis.llm.specs import EXTRA_PARAMS, REQUEST_PARAMS, ModelSpec

if TYPE_CHECKING:
    import openai



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
        return cls(msgs, _shared(tuple(sorted((k, _freeze(v)) for k, v in params.items()))), sample)

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


#: Params tuples seen, each kept once (by its repr: 0 and 0.0, 1 and True are equal tuples but other JSON, so
#: other content keys): the requests of a run share a few, and a wave of 100,000 held ~50 MB of copies.
_PARAMS: dict[str, tuple[tuple[str, Any], ...]] = {}


def _shared(params: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, Any], ...]:
    """The one kept tuple written as ``params`` is; a tuple holding a dict (mutable) is never shared."""
    try:
        hash(params)
    except TypeError:
        return params
    key = repr(params)
    shared = _PARAMS.get(key)
    if shared is None:
        if len(_PARAMS) >= 4096:
            _PARAMS.clear()
        shared = _PARAMS[key] = params
    return shared


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
        super().__init__(clip(message, 1000))
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


#: A token count above this is no count (SQLite's integers end at 2**63, and no request uses a billion tokens).
MAX_TOKEN_COUNT = 10**9
#: Bounds of one reply. The body (decompressed) may hold at most ``MAX_BODY_BYTES`` plus room for the logprobs asked;
#: the text at most ``MAX_CHARS_PER_TOKEN`` characters per ``max_tokens`` (``MAX_TEXT_CHARS`` without a limit).
MAX_BODY_BYTES = 8 * 2**20
MAX_ERROR_BYTES = 64 * 2**10
MAX_TEXT_CHARS = 2 * 10**6
MAX_CHARS_PER_TOKEN = 64
MAX_FINISH_REASON = 64


def _malformed(what: str) -> CallError:
    """A retryable failure of one call for a reply that must not be stored (the text is redacted, then cut)."""
    return CallError(f"malformed reply: {clip(what, 200)}", retryable=True)


def _count(value: Any, name: str) -> int:
    """A token count: a non-negative int below ``MAX_TOKEN_COUNT``, or 0 when the server sent none."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_TOKEN_COUNT:
        raise _malformed(f"{name} is {clip(json.dumps(value), 40)}, not a token count")
    return value


def _text(value: str, what: str) -> str:
    """``value`` if it can be stored as UTF-8 (a lone surrogate cannot), else a retryable failure of the call."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _malformed(f"{what} holds a lone surrogate (not text)") from None
    return value


def _top_logprobs(logprobs: Any) -> list[dict[str, float]] | None:
    """Per generated token, {token: logprob} of its top alternatives (tokens redacted); None when none were sent."""
    if logprobs is None:
        return None
    content = logprobs.get("content") if isinstance(logprobs, dict) else logprobs
    if not content:
        return None
    if not isinstance(content, list):
        raise CallError("malformed reply: logprobs.content is not a list", retryable=True)
    out = []
    for tok in content:
        entries = (tok.get("top_logprobs") or [tok]) if isinstance(tok, dict) else None
        if not isinstance(entries, list):
            raise CallError("malformed reply: a logprobs entry is not an object", retryable=True)
        row: dict[str, float] = {}
        for entry in entries:
            token = entry.get("token") if isinstance(entry, dict) else None
            value = entry.get("logprob") if isinstance(entry, dict) else None
            if not isinstance(token, str) or isinstance(value, bool) or not isinstance(value, (int, float)):
                raise CallError("malformed reply: logprobs need a text token and a numeric logprob", retryable=True)
            if not math.isfinite(value):
                raise _malformed(f"logprob {value!r} is not a finite number")
            row[_text(token, "a logprob token")] = float(value)
        out.append(row)
    return redact_token_rows(out)


def http_status_error(resp: httpx.Response, body: bytes | None = None) -> CallError:
    """A CallError for an HTTP error status: 408/409/429/5xx may succeed on retry, other 4xx will not. The body (read
    already when streamed) is redacted before it is cut to 200 characters (``clip``)."""
    status = resp.status_code
    text = body.decode("utf-8", "replace") if body is not None else resp.text
    return CallError(
        f"HTTP {status}: {clip(text, 200)}".strip(),
        retryable=status in (408, 409, 429) or status >= 500,
        retry_after=_retry_after_seconds(resp.headers),
        status=status,
    )


def _body_limit(params: dict[str, Any]) -> int:
    """The most bytes a reply to ``params`` may take: ``MAX_BODY_BYTES`` plus 96 bytes per logprob entry asked."""
    per_token = (int(params.get("top_logprobs") or 0) or (1 if params.get("logprobs") else 0)) * 96
    positions = int(params.get("max_tokens") or 4096)
    return MAX_BODY_BYTES + min(per_token * positions, 256 * 2**20)


def _text_limit(params: dict[str, Any]) -> int:
    """The most characters a reply's text may have: ``MAX_CHARS_PER_TOKEN`` per token asked (at least 4,096)."""
    max_tokens = params.get("max_tokens")
    return max(4096, MAX_CHARS_PER_TOKEN * int(max_tokens)) if max_tokens else MAX_TEXT_CHARS


class _Decoder:
    """Content-Encoding decoding with a bound on what one input chunk may expand to (a gzip bomb stops at the cap)."""

    def __init__(self, encoding: str):
        encoding = encoding.strip().lower()
        if encoding in ("", "identity"):
            self._z = None
        elif encoding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._z = zlib.decompressobj()
        else:
            raise _malformed(f"content-encoding '{encoding}' not supported")

    def feed(self, chunk: bytes, room: int) -> bytes:
        if self._z is None:
            return chunk
        out = self._z.decompress(chunk, room + 1)
        return out


async def _read_capped(resp: httpx.Response, limit: int, *, truncate: bool = False) -> bytes:
    """The decoded body, at most ``limit`` bytes: past it, a retryable failure (or, with ``truncate``, the first
    ``limit`` bytes: for error bodies, which are only shown)."""
    decoder = _Decoder(resp.headers.get("content-encoding", ""))
    parts: list[bytes] = []
    size = 0
    async for chunk in resp.aiter_raw():
        data = decoder.feed(chunk, limit - size)
        size += len(data)
        parts.append(data)
        if size > limit:
            if truncate:
                return b"".join(parts)[:limit]
            raise _malformed(f"reply of more than {limit:,} bytes")
    return b"".join(parts)


def classify_error(exc: Exception) -> CallError:
    """Map an httpx/JSON exception to a CallError with a one-line, key-free message."""
    if isinstance(exc, CallError):
        return exc
    if isinstance(exc, httpx.TimeoutException):
        return CallError("timeout waiting for the endpoint", retryable=True)
    if isinstance(exc, httpx.TransportError):
        return CallError(f"connection error: {type(exc).__name__}: {clip(str(exc), 300)}", retryable=True)
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError, RecursionError)):
        return CallError(f"malformed reply: {clip(str(exc), 200)}", retryable=True)
    return CallError(f"{type(exc).__name__}: {clip(str(exc), 300)}", retryable=False)


# httpcore's connection pool does O(connections^2) bookkeeping on every request; at 64 requests in
# flight one pool costs more CPU than the rest of a call. LLMClient therefore spreads requests over
# small pools (one AsyncOpenAI + httpx client each, created as concurrency grows).
POOL_SHARD_SIZE = 8


class LLMClient:
    """An AsyncOpenAI client for one ModelSpec. One attempt per ``complete`` call."""

    def __init__(self, spec: ModelSpec, api_key: str | None = None, max_connections: int = 256, *,
                 confirmed: tuple[str, ...] = ()):
        self.spec = spec
        self._key = resolve_api_key(spec, api_key, confirmed=confirmed) or "not-needed"  # before any connection
        self._base_url = embedded_base_url() if spec.backend == "embedded" else spec.base_url
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
        import openai  # ~0.3 s: only when a client first connects, never at app start-up

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

    def _idempotency(self, request: ChatRequest) -> dict[str, str]:
        """``Idempotency-Key``: the request's content key, the same on every attempt and every resume, so an endpoint
        that honours the header (a proxy, a gateway) answers a request sent twice, after a kill, without paying for it
        again; endpoints that do not know it ignore it."""
        return {"Idempotency-Key": request.cache_key(self.spec.identity)}

    @property
    def openai(self) -> openai.AsyncOpenAI:
        """The first pool's ``AsyncOpenAI`` client (files and batches: a few requests, not the hot path)."""
        return self._shards[0]

    async def aclose(self) -> None:
        for shard, http in zip(self._shards, self._http):
            await shard.close()
            await http.aclose()

    def request_body(self, request: ChatRequest) -> tuple[dict[str, Any], dict[str, Any]]:
        return request_body(self.spec, request)

    def reply_from(self, doc: Any, params: dict[str, Any], latency: float = 0.0) -> ChatReply:
        return reply_from(self.spec, doc, params, latency)

    async def complete(self, request: ChatRequest) -> ChatReply:
        # the body chat.completions.create would send (extra params such as cache_prompt included), posted
        # with the client's own URL, headers and httpx pool: openai's per-request option models, deep copies and
        # response parsing cost ~0.9 ms of CPU per call, more than the HTTP exchange itself (bench_runner.py)
        body, params = self.request_body(request)
        try:
            content = json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except ValueError as exc:  # NaN or inf in a parameter: never sent as a bare NaN
            raise CallError(f"request not sent: {exc}", retryable=False) from None
        shard = self._pick_shard()
        self._busy[shard] += 1
        started = time.perf_counter()
        try:
            # one deadline for the whole exchange: a reply dripped a byte at a time never trips a per-read timeout
            async with asyncio.timeout(self.spec.timeout_s):
                async with self._http[shard].stream("POST", self._url or "", content=content,
                                                    headers=self._headers | self._idempotency(request)) as resp:
                    if resp.status_code >= 400:
                        raise http_status_error(resp, await _read_capped(resp, MAX_ERROR_BYTES, truncate=True))
                    raw = await _read_capped(resp, _body_limit(params))
            latency = time.perf_counter() - started
            doc = json.loads(raw)
        except TimeoutError:
            raise CallError(f"timeout: no complete reply within {self.spec.timeout_s:g} s", retryable=True) from None
        except Exception as exc:
            raise classify_error(exc) from None
        finally:
            self._busy[shard] -= 1
        return self.reply_from(doc, params, latency)


def request_body(spec: ModelSpec, request: ChatRequest) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON body ``request`` is posted as (model, messages, its params as this endpoint takes them: logprobs
    capped at the model's ``max_top_logprobs``, ``cache_prompt`` off for the embedded server unless asked), and
    those params. A live call, a provider batch line and an exported request send this same body."""
    params = request.param_dict
    if isinstance(params.get("response_format"), str):  # stored as JSON text (analysis.llm.structured)
        params["response_format"] = json.loads(params["response_format"])
    if params.get("top_logprobs"):
        params["top_logprobs"] = min(int(params["top_logprobs"]), spec.max_top_logprobs)
        params["logprobs"] = True
    if spec.backend == "embedded":
        # llama.cpp reuses a cached prompt prefix unless told not to, and the reply then depends on which
        # request came before (different batch splits, different low bits): off unless the plan asked for it
        params.setdefault("cache_prompt", False)
    return {"model": spec.model, "messages": request.message_dicts, **params}, params

def reply_from(spec: ModelSpec, doc: Any, params: dict[str, Any], latency: float = 0.0) -> ChatReply:
    """A validated ChatReply from a chat.completion document (a live reply, or a batch output line's body);
    ``CallError`` (malformed, retryable) when it cannot be stored."""
    try:
        return _reply(spec, doc, latency, params)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise _malformed(f"{type(exc).__name__}: {exc}") from None


def _reply(spec: ModelSpec, doc: Any, latency: float, params: dict[str, Any] | None = None) -> ChatReply:
    """A validated ChatReply from a chat.completion document, with every known secret redacted from its text and
    logprob tokens (a proxy that echoes the Authorization header must not put the key in the store).

    Malformed (retryable, never cached): no choices; content that is not a string; an empty reply without
    logprobs; logprobs that are not tokens (str) with numeric logprobs; token counts that are not integers."""
    choices = doc.get("choices") if isinstance(doc, dict) else None
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise CallError("malformed reply: no choices", retryable=True)
    choice = choices[0]
    message = choice.get("message")
    text = message.get("content") if isinstance(message, dict) else None
    if text is not None and not isinstance(text, str):
        raise CallError(f"malformed reply: content is {type(text).__name__}, not text", retryable=True)
    # redacted here, not only when stored: a conversation's next request holds this text, and it must be the text a
    # resume reads back from the store (the same request, the same content key), never a secret echoed by a proxy
    text = redact(_text(text or "", "content"))
    limit = _text_limit(params or {})
    if len(text) > limit:
        raise _malformed(f"content of {len(text):,} characters, more than the {limit:,} this request can produce")
    top = _top_logprobs(choice.get("logprobs"))
    if top and len(top) > (params or {}).get("max_tokens", len(top)) + 1:
        raise _malformed(f"{len(top)} logprob positions for at most {params['max_tokens']} tokens")  # type: ignore[index]
    if not text.strip() and not top:
        raise CallError("malformed reply: empty content", retryable=True)
    finish = choice.get("finish_reason")
    if finish is not None and not isinstance(finish, str):
        raise CallError("malformed reply: finish_reason is not text", retryable=True)
    if finish is not None and len(_text(finish, "finish_reason")) > MAX_FINISH_REASON:
        raise _malformed(f"finish_reason of {len(finish):,} characters")
    usage = doc.get("usage") or {}
    if not isinstance(usage, dict):
        raise CallError("malformed reply: usage is not an object", retryable=True)
    tokens_in = _count(usage.get("prompt_tokens"), "prompt_tokens")
    tokens_out = _count(usage.get("completion_tokens"), "completion_tokens")
    details = usage.get("prompt_tokens_details") or {}
    cached = _count(details.get("cached_tokens") if isinstance(details, dict) else None, "cached_tokens")
    return ChatReply(
        text=text,
        finish_reason=finish,
        top_logprobs=top,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        cached_tokens=cached,
        latency_s=latency,
        cost=spec.cost(tokens_in, tokens_out),
    )
