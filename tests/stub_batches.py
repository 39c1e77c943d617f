"""The stub server's batch API: ``/v1/files`` and ``/v1/batches`` as OpenAI serves them, with scripted outcomes.

A batch's requests are answered by the stub's own reply rules (``stub_server.reply_body``, the same replies a live
call gets) when the batch ends; its fault rules apply per request: a ``500``/``429`` rule puts the request in the
error file with that status, any other fault in the output with the live fault's body. How a batch ends is set by
``BatchScript`` (``POST /_control/config`` with ``{"batch": {...}}``, or ``StubServer.configure(batch=...)``):

- ``outcome``: ``completed`` (default), ``expired`` or ``cancelled`` (the first ``partial`` share of requests
  answered, the rest absent), ``failed`` (no output; ``errors`` say why), ``hold`` (``in_progress`` until the
  script changes);
- ``polls``: retrievals before it ends (``validating`` on the first, ``in_progress`` after);
- ``garble``: output line numbers (0-based) written as broken JSON; ``drop``: output line numbers left out;
- ``fail_uploads``: the next n uploads answer HTTP 500;
- ``max_requests``: a batch of more lines fails at validation (as OpenAI fails a file over 50,000 requests);
- ``token_budget``: the model's enqueued-token limit; a batch whose tokens (``request_tokens``: a rough count,
  below RoleScope's estimate) would take the batches in progress past it fails with ``token_limit_exceeded``, as
  OpenAI's does.

Every request of a batch is logged like a live one, with ``"batch": <id>``; ``stats`` counts files and batches.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, Callable


@dataclass
class BatchScript:
    outcome: str = "completed"
    polls: int = 1
    partial: float = 0.5
    garble: list[int] = field(default_factory=list)
    drop: list[int] = field(default_factory=list)
    fail_uploads: int = 0
    max_requests: int | None = None
    token_budget: int | None = None

    @classmethod
    def from_json(cls, doc: dict[str, Any] | None) -> BatchScript:
        return cls(**(doc or {}))


@dataclass
class _Batch:
    id: str
    input_file_id: str
    endpoint: str
    window: str
    metadata: dict[str, Any]
    auth: bytes | None
    created_at: int
    status: str = "validating"
    polls: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    counts: dict[str, int] = field(default_factory=lambda: {"total": 0, "completed": 0, "failed": 0})
    errors: list[dict[str, str]] | None = None
    tokens: int = 0
    created_mono: float = field(default_factory=time.monotonic)
    ended_at: float | None = None  # time.monotonic() when it reached a final state

    @property
    def in_progress(self) -> bool:
        return self.status in ("validating", "in_progress", "finalizing", "cancelling")

    def doc(self) -> dict[str, Any]:
        return {"id": self.id, "object": "batch", "endpoint": self.endpoint, "input_file_id": self.input_file_id,
                "completion_window": self.window, "status": self.status, "output_file_id": self.output_file_id,
                "error_file_id": self.error_file_id, "created_at": self.created_at, "request_counts": self.counts,
                "metadata": self.metadata, "errors": {"object": "list", "data": self.errors} if self.errors else None}


def request_tokens(body: dict[str, Any]) -> int:
    """The stub's count of a request's input tokens: its messages' JSON at 4 bytes a token (a provider counts with
    the model's tokenizer; RoleScope's estimate, 3 bytes of the whole line, stays above this)."""
    return len(json.dumps(body.get("messages", []), ensure_ascii=False).encode("utf-8")) // 4


Answer = Callable[[dict[str, Any], bytes | None, str], tuple[int, dict[str, Any]]]


class BatchAPI:
    """Files and batches, kept in memory. ``answer(body, auth, batch_id)`` gives one request's (status, body)."""

    def __init__(self, answer: Answer):
        self.answer = answer
        self.script = BatchScript()
        self.files: dict[str, tuple[str, str, bytes]] = {}  # id -> (filename, purpose, content)
        self.batches: dict[str, _Batch] = {}
        self._ids = 0

    def _new_id(self, prefix: str) -> str:
        self._ids += 1
        return f"{prefix}-stub{self._ids:05d}"

    def stats(self) -> dict[str, int]:
        return {"files": len(self.files), "batches": len(self.batches)}

    def route(self, method: str, path: str, body: bytes, headers: dict[bytes, bytes]) -> tuple[int, Any] | None:
        """(status, JSON doc or raw bytes) for a files/batches request; None when the path is not one."""
        parts = path.rstrip("/").split("/")
        if "files" in parts:
            rest = parts[parts.index("files") + 1:]
            if method == "POST" and not rest:
                return self._upload(body, headers.get(b"content-type", b""))
            if method == "GET" and len(rest) == 2 and rest[1] == "content":
                found = self.files.get(rest[0])
                return (200, found[2]) if found else (404, {"error": {"message": f"no file {rest[0]}"}})
            if method == "GET" and len(rest) == 1 and rest[0] in self.files:
                return 200, self._file_doc(rest[0])
            return None
        if "batches" in parts:
            rest = parts[parts.index("batches") + 1:]
            if method == "POST" and not rest:
                return self._create(body, headers.get(b"authorization"))
            batch = self.batches.get(rest[0]) if rest else None
            if batch is None:
                return 404, {"error": {"message": f"no batch {rest[0] if rest else ''}"}}
            if method == "GET" and len(rest) == 1:
                return 200, self._retrieve(batch)
            if method == "POST" and rest[1:] == ["cancel"]:
                batch.status = "cancelling"
                return 200, batch.doc()
        return None

    def _file_doc(self, file_id: str) -> dict[str, Any]:
        name, purpose, content = self.files[file_id]
        return {"id": file_id, "object": "file", "bytes": len(content), "created_at": int(time.time()),
                "filename": name, "purpose": purpose, "status": "processed"}

    def _upload(self, body: bytes, content_type: bytes) -> tuple[int, Any]:
        if self.script.fail_uploads > 0:
            self.script.fail_uploads -= 1
            return 500, {"error": {"message": "upload failed (stub)"}}
        message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + content_type + b"\r\n\r\n" + body)
        fields: dict[str, tuple[str | None, bytes]] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            fields[str(name)] = (part.get_filename(), part.get_payload(decode=True) or b"")
        if "file" not in fields:
            return 400, {"error": {"message": "multipart field 'file' missing"}}
        file_id = self._new_id("file")
        purpose = fields.get("purpose", (None, b"batch"))[1].decode()
        self.files[file_id] = (fields["file"][0] or "upload.jsonl", purpose, fields["file"][1])
        return 200, self._file_doc(file_id)

    def _create(self, body: bytes, auth: bytes | None) -> tuple[int, Any]:
        doc = json.loads(body or b"{}")
        file_id = doc.get("input_file_id")
        if file_id not in self.files:
            return 400, {"error": {"message": f"no input file {file_id}"}}
        batch = _Batch(self._new_id("batch"), file_id, doc.get("endpoint", ""), doc.get("completion_window", "24h"),
                       doc.get("metadata") or {}, auth, int(time.time()))
        lines = [line for line in self.files[file_id][2].split(b"\n") if line.strip()]
        batch.counts["total"] = len(lines)
        batch.tokens = sum(request_tokens(json.loads(line)["body"]) for line in lines)
        enqueued = sum(b.tokens for b in self.batches.values() if b.in_progress)
        script = self.script
        if script.max_requests is not None and len(lines) > script.max_requests:
            self._refuse(batch, "too_many_requests",
                         f"the input file holds {len(lines)} requests, more than {script.max_requests} (stub)")
        elif script.token_budget is not None and enqueued + batch.tokens > script.token_budget:
            self._refuse(batch, "token_limit_exceeded",
                         f"Enqueued token limit reached: limit {script.token_budget}, enqueued {enqueued}, "
                         f"this batch {batch.tokens} (stub)")
        self.batches[batch.id] = batch
        return 200, batch.doc()

    @staticmethod
    def _refuse(batch: _Batch, code: str, message: str) -> None:
        batch.status, batch.ended_at = "failed", time.monotonic()
        batch.errors = [{"code": code, "message": message}]

    def _retrieve(self, batch: _Batch) -> dict[str, Any]:
        batch.polls += 1
        script = self.script
        if batch.status in ("validating", "in_progress", "cancelling", "finalizing"):
            if batch.status == "cancelling":
                self._finish(batch, "cancelled", script.partial)
            elif script.outcome == "hold" or batch.polls < script.polls:
                batch.status = "in_progress" if batch.polls > 1 else "validating"
            elif script.outcome == "failed":
                batch.status, batch.ended_at = "failed", time.monotonic()
                batch.errors = [{"code": "invalid_request", "message": "line 1: model not found (stub)"}]
            else:
                share = 1.0 if script.outcome == "completed" else script.partial
                self._finish(batch, script.outcome, share)
        return batch.doc()

    def _finish(self, batch: _Batch, status: str, share: float) -> None:
        lines = [json.loads(line) for line in self.files[batch.input_file_id][2].split(b"\n") if line.strip()]
        answered = lines[: int(len(lines) * share)]
        out, err = [], []
        for number, request in enumerate(answered):
            code, body = self.answer(request["body"], batch.auth, batch.id)
            row = {"id": f"batch_req_{number}", "custom_id": request["custom_id"],
                   "response": {"status_code": code, "request_id": f"req_{number}", "body": body}, "error": None}
            (out if code == 200 else err).append(row)
        text = [json.dumps(r) for r in out]
        text = ["{broken" if i in self.script.garble else t for i, t in enumerate(text) if i not in self.script.drop]
        batch.output_file_id = self._store_output(batch, "output", text)
        batch.error_file_id = self._store_output(batch, "errors", [json.dumps(r) for r in err]) if err else None
        batch.counts = {"total": len(lines), "completed": len(out), "failed": len(err)}
        batch.status, batch.ended_at = status, time.monotonic()

    def _store_output(self, batch: _Batch, kind: str, lines: list[str]) -> str:
        file_id = self._new_id("file")
        self.files[file_id] = (f"{batch.id}_{kind}.jsonl", "batch_output", ("\n".join(lines) + "\n").encode())
        return file_id
