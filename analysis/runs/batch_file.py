"""The OpenAI batch file format: one request a line in, one result a line out.

It is shared by the provider batch APIs (OpenAI's ``/v1/batches`` and compatible services), ``vllm run_batch`` and
RoleScope's Ray driver (``analysis.runs.ray_driver``), so one exported wave runs on any of them:

- **input line**: ``{"custom_id": KEY, "method": "POST", "url": "/v1/chat/completions", "body": {...}}``; RoleScope's
  ``custom_id`` is the call's content key (``ChatRequest.cache_key``), so a reply is matched to its request by
  content, never by position;
- **output line**: ``{"id": ..., "custom_id": KEY, "response": {"status_code": 200, "body": {chat.completion}},
  "error": null}``; a failed request has a ``status_code`` other than 200 (its ``body.error``), or an ``error``
  object (``code``, ``message``) and no response.

``checked_results`` checks every line of a file before anything is used: a malformed line, a ``custom_id`` twice, or
one that is not a 64-hex content key is named with its line number (``InputError``), so nothing is stored from a bad
file (``analysis.runs.results_index`` keeps where each line is, not the line).
``reply_to`` turns a result into its request's reply, refusing a body that names another model than the one the
request was sent to (``analysis.llm.model_ids``). ``parse_request`` checks an input line (the Ray driver reads them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from analysis.errors import InputError
from analysis.importers.files import parse_json_line
from analysis.llm.keys import clip
from analysis.llm.model_ids import other_model

if TYPE_CHECKING:
    from analysis.llm.client import ChatReply, ChatRequest, LLMClient

ENDPOINT = "/v1/chat/completions"
_CUSTOM_ID = re.compile(r"[0-9a-f]{64}")
#: A results file line longer than this is refused (a reply is bounded at 8 MiB; logprobs come on top).
MAX_LINE_BYTES = 64 * 2**20


def request_line(custom_id: str, body: dict[str, Any]) -> bytes:
    """One input line (JSON, UTF-8, newline-terminated); ``ValueError`` for a NaN/inf parameter (never sent)."""
    doc = {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": body}
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8") + b"\n"


@dataclass(frozen=True)
class Result:
    """One output line: the chat.completion ``body`` (status 200) or the ``error`` that request ended with."""

    custom_id: str
    body: dict[str, Any] | None
    error: str | None
    line: int


class OtherModel(Exception):
    """A result whose body names another model than the one its request was sent to (``model_ids.other_model``)."""


def reply_to(result: Result, client: LLMClient, request: ChatRequest) -> ChatReply:
    """``result`` (a line without an error) as the reply to ``request`` sent through ``client``: ``OtherModel`` when
    its body names another model than the request's, ``CallError`` when it is not a usable chat completion."""
    body, params = client.request_body(request)
    doc = result.body
    problem = other_model(doc, str(body["model"]))
    if problem is not None:
        raise OtherModel(problem)
    return client.reply_from(doc, params)


def _error_text(doc: Any) -> str:
    """An error line's error as stored: an object's code and message, a plain string as its text (``vllm run_batch``
    writes a failed request's exception as a string; JSON quotes around it are no part of the error)."""
    if isinstance(doc, str):
        return clip(doc, 300)
    if isinstance(doc, dict):
        inner = doc.get("error", doc)
        if isinstance(inner, dict):
            parts = [str(inner.get(k)) for k in ("code", "message") if inner.get(k)]
            if parts:
                return clip(": ".join(parts), 300)
        elif isinstance(inner, str):
            return clip(inner, 300)
    return clip(json.dumps(doc, ensure_ascii=False)[:400], 300)


def _custom_id(doc: dict[str, Any], line: int, where: str) -> str:
    custom_id = doc.get("custom_id")
    if not isinstance(custom_id, str) or not _CUSTOM_ID.fullmatch(custom_id):
        raise InputError(f"{where}: line {line}: custom_id {clip(json.dumps(custom_id), 80)} is not a RoleScope call "
                         "key (64 hex digits)")
    return custom_id


def parse_request(raw: bytes | str, line: int, where: str) -> tuple[str, dict[str, Any]]:
    """One input line, checked: its ``custom_id`` and ``body``; ``InputError`` naming ``where`` and the line when it
    is not a chat-completions request line (a results file given instead, say)."""
    doc = parse_json_line(raw, f"{where}: line {line}")
    if not isinstance(doc, dict):
        raise InputError(f"{where}: line {line}: a request line is a JSON object, not {type(doc).__name__}")
    custom_id = _custom_id(doc, line, where)
    body = doc.get("body")
    if "body" not in doc and ("response" in doc or "error" in doc):
        raise InputError(f"{where}: line {line}: a result line, not a request (give the file export-requests wrote)")
    if doc.get("method") != "POST" or doc.get("url") != ENDPOINT:
        raise InputError(f"{where}: line {line}: not a POST {ENDPOINT} request (method "
                         f"{clip(json.dumps(doc.get('method')), 40)}, url {clip(json.dumps(doc.get('url')), 80)})")
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not isinstance(body.get("model"), str):
        raise InputError(f"{where}: line {line}: body is not a chat completion request (model and messages)")
    return custom_id, body


def parse_result(raw: bytes | str, line: int, where: str) -> Result:
    """One output line, checked; ``InputError`` naming ``where`` and the line when it is not one."""
    doc = parse_json_line(raw, f"{where}: line {line}", constants=float)  # NaN logprobs: that reply's failure
    if not isinstance(doc, dict):
        raise InputError(f"{where}: line {line}: a result line is a JSON object, not {type(doc).__name__}")
    custom_id = _custom_id(doc, line, where)
    response, error = doc.get("response"), doc.get("error")
    if error:
        return Result(custom_id, None, f"batch error: {_error_text(error)}", line)
    if not isinstance(response, dict):
        raise InputError(f"{where}: line {line}: neither a response object nor an error")
    status, body = response.get("status_code"), response.get("body")
    if status != 200:
        return Result(custom_id, None, f"HTTP {status}: {_error_text(body)}", line)
    if not isinstance(body, dict):
        raise InputError(f"{where}: line {line}: response.body is not a chat completion object")
    return Result(custom_id, body, None, line)


def checked_results(lines: Iterable[tuple[int, bytes | Oversized]], where: str, seen: Mapping[str, Any],
                    problems: list[str] | None = None) -> Iterator[tuple[int, int, Result]]:
    """Each result of a file's lines (``file_lines_at``) with its line's offset and length. A malformed line, or one
    whose ``custom_id`` is in ``seen`` already (the caller adds each result it keeps), raises ``InputError`` naming it
    (a file the user hands over: nothing is used from it); with ``problems`` given (a provider's output, whose good
    lines are paid for), such a line is described there and skipped: a repeated ``custom_id`` keeps its first result.
    Line numbers count blank lines too, as an editor does."""
    for number, (offset, raw) in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            if isinstance(raw, Oversized) or len(raw) > MAX_LINE_BYTES:
                raise InputError(f"{where}: line {number}: over {MAX_LINE_BYTES:,} bytes, more than a result may hold")
            result = parse_result(raw, number, where)
            if result.custom_id in seen:
                raise InputError(f"{where}: line {number}: custom_id {result.custom_id[:12]}… again (first on line "
                                 f"{seen[result.custom_id].line})")
        except InputError as exc:
            if problems is None:
                raise
            problems.append(str(exc))
            continue
        yield offset, len(raw), result


@dataclass(frozen=True)
class Oversized:
    """A line longer than ``MAX_LINE_BYTES``, never buffered: only its length so far is kept."""

    n_bytes: int

    def __len__(self) -> int:
        return self.n_bytes

    def strip(self) -> bytes:
        return b"x"  # not blank


class LineSplitter:
    """Lines of a stream fed in chunks, each buffered only up to ``max_line`` bytes: a longer line comes out as
    ``Oversized`` (the rest of it is skipped as it arrives, never held), so memory stays bounded by one line. Each
    line's byte offset in the stream is known too (``feed_at``): a file indexed once is read back a line at a time."""

    def __init__(self, max_line: int = MAX_LINE_BYTES) -> None:
        self.max_line = max_line
        self._buffer = bytearray()
        self._skipped = 0  # > 0: inside an oversized line, this many bytes of it seen
        self._fed = 0  # bytes fed before the current chunk
        self._start = 0  # offset of the line being gathered

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        return [line for _, line in self.feed_at(chunk)]

    def close(self) -> list[bytes | Oversized]:
        return [line for _, line in self.close_at()]

    def feed_at(self, chunk: bytes) -> list[tuple[int, bytes | Oversized]]:
        """The lines ``chunk`` completes, each with the offset where it starts."""
        out: list[tuple[int, bytes | Oversized]] = []
        start = 0
        while start < len(chunk):
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            self._add(piece)
            if end < 0:
                break
            out.append((self._start, self._take()))
            start = end + 1
            self._start = self._fed + start
        self._fed += len(chunk)
        return out

    def close_at(self) -> list[tuple[int, bytes | Oversized]]:
        return [(self._start, self._take())] if self._buffer or self._skipped else []

    def _add(self, piece: bytes) -> None:
        if self._skipped:
            self._skipped += len(piece)
        elif len(self._buffer) + len(piece) > self.max_line:
            self._skipped = len(self._buffer) + len(piece)
            self._buffer = bytearray()
        else:
            self._buffer += piece

    def _take(self) -> bytes | Oversized:
        line: bytes | Oversized = Oversized(self._skipped) if self._skipped else bytes(self._buffer).rstrip(b"\r")
        self._buffer, self._skipped = bytearray(), 0
        return line


#: Bytes read at a time from a results file.
CHUNK_BYTES = 1 << 20


def file_lines(handle: Any, *, max_line: int = MAX_LINE_BYTES) -> Iterator[bytes | Oversized]:
    """The lines of an open binary file, read in chunks through a ``LineSplitter`` (a 500 MB line is never held)."""
    return (line for _, line in file_lines_at(handle, max_line=max_line))


def file_lines_at(handle: Any, *, max_line: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes | Oversized]]:
    """``file_lines`` with each line's byte offset from where ``handle`` stood."""
    splitter = LineSplitter(max_line)
    while chunk := handle.read(CHUNK_BYTES):
        yield from splitter.feed_at(chunk)
    yield from splitter.close_at()
