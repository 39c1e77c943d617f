"""A hostile OpenAI-compatible endpoint: a raw asyncio HTTP/1.1 server whose replies are what an attacker (or a broken
proxy) could send, for the hardening and fuzz tests.

Each request gets the stub's deterministic answer (``tests.stub_server.reply_body``, so the methods' sessions go on),
then the configured mode bends it. A mode hits the requests whose ordinal ``% every == 0`` (every request by default).
Modes (``MODES``):

- ``finish_echo``: ``finish_reason`` is the Authorization key (not key-shaped when the key is not);
- ``split_tokens``: the logprob positions are the key in ``parts`` pieces, one per position (the plain key's pieces
  are shorter than a recognisable fragment);
- ``count_echo``: ``usage.prompt_tokens`` is a string: ``pad`` characters, then the key (the error text is cut);
- ``reply_echo``: the key in the content, the finish reason and the logprob tokens at once;
- ``nan_logprob`` / ``inf_logprob``: a NaN / -Infinity logprob; ``surrogate``: content holds a lone surrogate;
- ``huge_count``: ``completion_tokens`` is 10**30; ``negative_count``: -5;
- ``big``: ``size`` bytes of content for a request with a small ``max_tokens``;
- ``gzip_bomb``: a gzip body that inflates to ``size`` bytes; ``drip``: the body one byte every ``drip_s`` seconds;
- ``deep_json``: a body nested 100,000 deep; ``not_json``: HTML; ``wrong_types``: choices as a string;
- ``huge_finish``: a 100,000-character finish reason; ``null_choice``: ``choices: [null]``;
- ``ok``: the stub's answer unchanged; ``mixed``: request n gets ``MIXED[n % len(MIXED)]``.

Every request is logged (``calls``): ordinal, the stub's message hash, the mode applied and whether an Authorization
header came (its sha256 only, never the header).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.stub_server import messages_hash, reply_body

MODES = ("ok", "finish_echo", "split_tokens", "count_echo", "reply_echo", "nan_logprob", "inf_logprob", "surrogate",
         "huge_count", "negative_count", "big", "gzip_bomb", "drip", "deep_json", "not_json", "wrong_types",
         "huge_finish", "null_choice", "mixed")
#: What ``mixed`` cycles through, one mode per request (``drip`` is left out: it takes seconds per request).
MIXED = ("ok", "finish_echo", "nan_logprob", "reply_echo", "surrogate", "huge_count", "count_echo", "big", "ok",
         "negative_count", "gzip_bomb", "deep_json", "not_json", "wrong_types", "huge_finish", "null_choice",
         "inf_logprob")
#: The modes whose replies are valid (stored, once scrubbed); every other mode's reply fails its call.
VALID_MODES = ("ok", "finish_echo", "reply_echo", "split_tokens")


@dataclass
class HostileConfig:
    mode: str = "ok"
    every: int = 1
    parts: int = 3
    pad: int = 0
    size: int = 50 * 2**20
    drip_s: float = 0.3


@dataclass
class _State:
    config: HostileConfig = field(default_factory=HostileConfig)
    calls: list[dict[str, Any]] = field(default_factory=list)
    bomb: dict[int, bytes] = field(default_factory=dict)


def _split(text: str, parts: int) -> list[str]:
    step = max(1, -(-len(text) // parts))
    return [text[i:i + step] for i in range(0, len(text), step)]


def _bend(doc: dict[str, Any], mode: str, key: str, cfg: HostileConfig) -> dict[str, Any] | str:
    choice = doc["choices"][0]
    if mode == "finish_echo":
        choice["finish_reason"] = key
    elif mode == "split_tokens":
        pieces = _split(key, cfg.parts)
        rows = [{"token": p, "logprob": -0.1, "top_logprobs": [{"token": p, "logprob": -0.1}, {"token": "x", "logprob": -3.0}]}
                for p in pieces]
        choice["logprobs"] = {"content": rows}  # as many positions as pieces (3 fit a 2-token request's bound)
    elif mode == "count_echo":
        doc["usage"]["prompt_tokens"] = "x" * cfg.pad + key
    elif mode == "reply_echo":
        choice["message"]["content"] += f" {key}"
        choice["finish_reason"] = f"stop {key}"
        old = (choice.get("logprobs") or {}).get("content") or []
        for row in old:
            row["top_logprobs"] = row.get("top_logprobs", []) + [{"token": key, "logprob": -9.0}]
    elif mode in ("nan_logprob", "inf_logprob"):
        value = float("nan") if mode == "nan_logprob" else float("-inf")
        old = (choice.get("logprobs") or {}).get("content") or [{"token": "A", "logprob": -0.1}]
        old[0]["logprob"] = value
        for alt in old[0].get("top_logprobs", []):
            alt["logprob"] = value
        choice["logprobs"] = {"content": old}
    elif mode == "surrogate":
        choice["message"]["content"] = "A \ud800 B"
    elif mode == "huge_count":
        doc["usage"]["completion_tokens"] = 10**30
    elif mode == "negative_count":
        doc["usage"]["prompt_tokens"] = -5
    elif mode == "big":
        choice["message"]["content"] = "A" * cfg.size
    elif mode == "huge_finish":
        choice["finish_reason"] = "s" * 100_000
    elif mode == "null_choice":
        doc["choices"] = [None]
    elif mode == "wrong_types":
        doc["choices"] = "nope"
    elif mode == "not_json":
        return "<html><body>502 Bad Gateway</body></html>"
    elif mode == "deep_json":
        return "[" * 100_000
    return doc


class HostileServer:
    """Start with ``with HostileServer() as srv:``; ``srv.url`` is the base URL (``.../v1``)."""

    def __init__(self, config: HostileConfig | None = None):
        self._state = _State(config or HostileConfig())
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def configure(self, mode: str = "ok", **kw: Any) -> None:
        if mode not in MODES:
            raise ValueError(f"mode {mode!r}: use one of {MODES}")
        self._state.config = HostileConfig(mode=mode, **kw)

    def calls(self) -> list[dict[str, Any]]:
        return list(self._state.calls)

    def __enter__(self) -> HostileServer:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        async def shutdown() -> None:
            self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                await self._answer(writer, json.loads(body or b"{}"), headers.get("authorization", ""))
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _answer(self, writer: asyncio.StreamWriter, body: dict[str, Any], auth: str) -> None:
        cfg = self._state.config
        ordinal = len(self._state.calls)
        digest = messages_hash(body.get("messages") or [])
        mode = cfg.mode if ordinal % max(1, cfg.every) == 0 else "ok"
        if mode == "mixed":
            mode = MIXED[ordinal % len(MIXED)]
        self._state.calls.append({"ordinal": ordinal, "hash": digest, "mode": mode,
                                  "auth_sha256": hashlib.sha256(auth.encode()).hexdigest() if auth else None})
        key = auth.removeprefix("Bearer ")
        doc = _bend(reply_body(body, digest), mode, key, cfg)
        payload = (doc if isinstance(doc, str) else json.dumps(doc)).encode("utf-8", "surrogatepass")
        extra = b""
        if mode == "gzip_bomb":
            if cfg.size not in self._state.bomb:
                self._state.bomb[cfg.size] = gzip.compress(b" " * cfg.size, compresslevel=9)
            payload, extra = self._state.bomb[cfg.size], b"Content-Encoding: gzip\r\n"
        head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + extra
                + f"Content-Length: {len(payload)}\r\n\r\n".encode())
        writer.write(head)
        if mode == "drip":
            for i in range(len(payload)):
                writer.write(payload[i:i + 1])
                await writer.drain()
                await asyncio.sleep(cfg.drip_s)
        else:
            writer.write(payload)
        await writer.drain()
