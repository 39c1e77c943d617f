"""What the Ray driver (``analysis.runs.ray_driver``) runs in Ray's workers: the rows of a requests file, and the
aiohttp session Ray Data's HTTP request stage sends them through.

It imports nothing of RoleScope (the driver ships it to the workers by value), so a cluster's workers need Ray and
aiohttp, not RoleScope.

Why a session of our own (``HttpRequestProcessorConfig.session_factory``). Ray 2.60's stage, as it is,
- keeps what ``response.json()`` returns: an error reply's status code is lost, and a body that is not JSON fails the
  whole dataset; so does a request that still fails after its retries: one bad request would lose a wave of 100,000;
- sends the requests of a batch one after another;
- is handed each row's payload after it went through Arrow, which writes ``20`` as ``20.0`` and adds the keys of the
  other rows' bodies as ``null`` (a ``seed: null`` the run never sent).

So each row's payload is its body's JSON text (Arrow keeps a string as it is); ``ExactSession.post`` sends that text,
starts the requests of a batch together, retries what is transient, and hands the stage a ``Reply`` that always reads
as 200 and holds the server's status, body text or transport error: the stage neither retries nor fails, and the
driver writes each request's own result line.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

#: The statuses worth asking again (those Ray's stage retries); any other reply is the request's outcome.
TRANSIENT = frozenset({408, 429, 502, 503, 504})
#: The longest pause between two attempts, a server's ``Retry-After`` included.
MAX_PAUSE_S = 60.0


def split_lines(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The file ``read_binary_files`` read as one row, as one row per non-blank line (``line``: its 1-based number).
    Split on ``\\n`` alone, as RoleScope writes and reads the format: ``read_text`` would also split on U+2028 and
    other line separators a JSON string may hold unescaped."""
    rows = []
    for number, raw in enumerate(bytes(row["bytes"]).split(b"\n"), start=1):
        if raw.strip():
            rows.append({"line": number, "text": raw.rstrip(b"\r").decode("utf-8")})
    return rows


def to_request(row: dict[str, Any]) -> dict[str, Any]:
    """A request line (checked by the driver) as the stage's input: its ``custom_id`` and its body's JSON text."""
    doc = json.loads(row["text"])
    return {"custom_id": doc["custom_id"], "payload": json.dumps(doc["body"], separators=(",", ":"))}


def to_outcome(row: dict[str, Any]) -> dict[str, Any]:
    """The stage's output row as what the driver writes a result line from (``Reply.json``)."""
    reply = row["http_response"]
    return {"line": row["line"], "custom_id": row["custom_id"], "status": reply["status_code"],
            "text": reply["text"], "error": reply["error"]}


class Reply:
    """One request's outcome, as the stage reads a response: ``status`` is 200 for the stage (the exchange is over:
    nothing to retry), ``json()`` gives the server's own status (0 when no reply came), body text and error."""

    status = 200
    reason = "OK"

    def __init__(self, server_status: int, text: str, error: str = ""):
        self.server_status, self.text, self.error = server_status, text, error

    async def __aenter__(self) -> Reply:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def json(self) -> dict[str, Any]:
        return {"status_code": self.server_status, "text": self.text, "error": self.error}


class ExactSession:
    """The session of one batch (the stage opens one per batch): ``post`` starts the request at once and returns its
    task, which the stage awaits in turn, so a batch's requests are in flight together."""

    def __init__(self, timeout_s: float, retries: int, pause_s: float):
        self.timeout_s, self.retries, self.pause_s = timeout_s, retries, pause_s
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> ExactSession:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.timeout_s))
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.close()

    def post(self, url: str, *, headers: dict[str, str], data: str) -> asyncio.Task[Reply]:
        # the stage JSON-encodes the payload, and the payload is the body's JSON text: decoding once gives it back
        body = json.loads(data).encode("utf-8")
        return asyncio.ensure_future(self._send(url, headers, body))

    async def _send(self, url: str, headers: dict[str, str], body: bytes) -> Reply:
        assert self._session is not None
        reply = Reply(0, "", "not sent")
        for attempt in range(self.retries + 1):
            pause = self.pause_s * 2 ** attempt
            try:
                async with self._session.post(url, headers=headers, data=body) as response:
                    text = (await response.read()).decode("utf-8", errors="replace")
                    reply = Reply(response.status, text)
                    pause = _retry_after(response.headers.get("Retry-After"), pause)
            except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
                reply = Reply(0, "", f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
            if reply.server_status not in TRANSIENT and reply.server_status != 0:
                return reply
            if attempt < self.retries:
                await asyncio.sleep(min(pause, MAX_PAUSE_S))
        return reply


def _retry_after(value: str | None, default: float) -> float:
    """A ``Retry-After`` of seconds, else ``default`` (an HTTP date is rare enough to wait the default instead)."""
    try:
        return max(0.0, float(value)) if value is not None else default
    except ValueError:
        return default


class SessionFactory:
    """``session_factory`` of the stage's config: a picklable maker of ``ExactSession`` (it runs in the workers)."""

    def __init__(self, timeout_s: float, retries: int, pause_s: float):
        self.timeout_s, self.retries, self.pause_s = timeout_s, retries, pause_s

    def __call__(self) -> ExactSession:
        return ExactSession(self.timeout_s, self.retries, self.pause_s)
