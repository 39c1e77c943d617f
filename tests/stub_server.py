"""A local OpenAI-compatible chat-completions stub with deterministic replies and fault injection.

Replies depend only on a hash of the request's messages (``messages_hash``):

- the last message lists lettered options ("A. ...", "B. ..."): the option at ``hash % n``; with
  ``logprobs``/``top_logprobs`` asked, one token (the letter) whose top logprobs hold every option
  letter with distinct values (chosen letter highest) plus two non-letter tokens; else "B. label";
- options written "(A) ...", as a values question asks "(X)": the reply opens with "(" (its top logprobs
  also hold bare letters and "I", which must not be read), then the letter; as text "(B)"; asked to
  think first (the question asks for "Answer: (X)"), a sentence of reasoning then "Answer: (B)";
- the last message asks for a rating "on a scale from 1 to k" (an inventory item): the digit ``1 + hash % k`` (with
  logprobs asked, its top logprobs hold every digit 1..k, the chosen one highest);
- the last message lists numbered values ("1. ...", for SVS picks): "<k>. <text>" with k from the hash
  (after a line of reasoning and "Answer:" when the question asks for it);
- anything else (conversation turns): a short sentence naming the hash.

Every request received appends one JSON line to the call log (ordinal, time, hash, attempt number of
that hash, model, params, fault injected, status, sha256 of the Authorization header -- never the
header itself). Faults are rules matched in order (first match wins):

- kinds: ``429`` (with ``Retry-After: retry_after`` seconds), ``500``, ``timeout`` (hang ``hang_s``
  then answer, meant to be longer than the client's timeout), ``malformed`` (200 with a truncated
  JSON body), ``empty`` (200 with content ""), ``nonsense`` (200 with a reply no reader can use), ``echo_auth`` (401 whose body echoes the
  Authorization header, to test that keys are scrubbed; ``pad`` characters come first, to place the key
  anywhere around the 200-character cut of error text), ``echo_auth_ok`` (200 whose reply text and
  logprob tokens echo the header, as a leaky proxy could), malformed 200s with the right JSON but wrong
  types: ``content_int`` (content 123), ``content_null``, ``bad_logprobs`` (logprobs as a string),
  ``bad_usage`` (token counts as strings); ``other_model`` (a good reply whose body names the model ``stub-other``);
  ``max_logprobs`` (a server started with ``--max-logprobs max_logprobs``: a request asking more ``top_logprobs`` gets
  vLLM's HTTP 400 and its wording, any other is answered as usual);
- selectors: ``hashes`` (explicit message hashes), ``modulo``/``residue`` (hashes with
  ``int(hash, 16) % modulo == residue``), ``ordinals`` (the n-th request received, 0-based);
- ``times``: the fault hits the first ``times`` attempts of a hash and then the request succeeds
  (transient, default 1); ``times = None`` fails every attempt (permanent).

Use in-process (``StubServer``, the ``stub_server`` fixture in conftest.py), as a process
(``python tests/stub_server.py --port 0 --log calls.jsonl --latency 0.01 --fault 429,modulo=5``
prints its base URL on stdout), or from Python with ``stub_process(...)``. ``POST /_control/config``
with ``{"latency_s": .., "faults": [..]}`` replaces the configuration and resets attempt counters.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

try:
    from tests.stub_batches import BatchAPI, BatchScript
except ImportError:  # run as a script: python tests/stub_server.py
    from stub_batches import BatchAPI, BatchScript  # type: ignore[no-redef]

FAULT_KINDS = ("429", "500", "timeout", "malformed", "empty", "nonsense", "echo_auth", "echo_auth_ok", "content_int", "content_null",
               "bad_logprobs", "bad_usage", "other_model", "max_logprobs")
#: The faults answered 200 with a body ``_broken_body`` changes.
_BODY_FAULTS = ("echo_auth_ok", "content_int", "content_null", "bad_logprobs", "bad_usage", "other_model")
_OPTION_LINE = re.compile(r"^([A-Z])\. (.*)$", re.MULTILINE)
_PAREN_OPTION_LINE = re.compile(r"^\(([A-Z])\) (.+)$", re.MULTILINE)
_NUMBERED_LINE = re.compile(r"^(\d{1,2})\. (.*)$", re.MULTILINE)
_SCALE = re.compile(r"on a scale from 1 to (\d)\b")


def messages_hash(messages: list[dict[str, Any]]) -> str:
    """The stub's request hash: sha256 (first 16 hex) of the canonical JSON of the messages."""
    doc = json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(doc.encode("utf-8")).hexdigest()[:16]


@dataclass
class FaultRule:
    """One fault and the requests it hits (see module docstring)."""

    kind: str
    hashes: list[str] | None = None
    modulo: int | None = None
    residue: int = 0
    ordinals: list[int] | None = None
    times: int | None = 1
    retry_after: float = 1.0
    hang_s: float = 3.0
    pad: int = 0
    max_logprobs: int = 20

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"fault kind {self.kind!r}: use one of {FAULT_KINDS}")
        if self.hashes is None and self.modulo is None and self.ordinals is None:
            raise ValueError("a fault rule needs hashes, modulo or ordinals")
        self._hashes = frozenset(self.hashes or ())
        self._ordinals = frozenset(self.ordinals or ())

    def hits(self, digest: str, ordinal: int, attempt: int) -> bool:
        selected = (
            digest in self._hashes
            or ordinal in self._ordinals
            or (self.modulo is not None and int(digest, 16) % self.modulo == self.residue)
        )
        return selected and (self.times is None or self.ordinals is not None or attempt < self.times)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class StubConfig:
    latency_s: float = 0.0
    faults: list[FaultRule] = field(default_factory=list)
    batch: dict[str, Any] | None = None  # a BatchScript's fields (tests/stub_batches.py)

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> StubConfig:
        return cls(float(doc.get("latency_s", 0.0)), [FaultRule(**f) for f in doc.get("faults", [])], doc.get("batch"))


def parse_fault(text: str) -> FaultRule:
    """CLI form: ``kind[,key=value...]``; list values separated by ``+`` (``hashes=ab12+cd34``); ``times=always``."""
    kind, *pairs = text.split(",")
    fields: dict[str, Any] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key == "hashes":
            fields[key] = value.split("+")
        elif key == "ordinals":
            fields[key] = [int(v) for v in value.split("+")]
        elif key == "times":
            fields[key] = None if value == "always" else int(value)
        elif key in ("modulo", "residue", "max_logprobs"):
            fields[key] = int(value)
        else:
            fields[key] = float(value)
    return FaultRule(kind, **fields)


# -- replies -------------------------------------------------------------------------------------
def _words(text: str) -> int:
    return max(1, len(text.split()))


def _token(token: str, logprob: float) -> dict[str, Any]:
    return {"token": token, "logprob": logprob, "bytes": list(token.encode())}


NONSENSE = "Hmm."


def reply_body(body: dict[str, Any], digest: str, *, empty: bool = False, nonsense: bool = False) -> dict[str, Any]:
    """The deterministic chat.completion document for a request (see module docstring)."""
    messages = body.get("messages") or []
    last = str(messages[-1].get("content", "")) if messages else ""
    pick = int(digest, 16)
    options = [(m.group(1), m.group(2)) for m in _OPTION_LINE.finditer(last)]
    logprobs = None
    paren = [(m.group(1), m.group(2)) for m in _PAREN_OPTION_LINE.finditer(last)]
    if len(paren) >= 2 and [o[0] for o in paren] == [chr(65 + i) for i in range(len(paren))]:
        letter, label = paren[pick % len(paren)]
        if body.get("logprobs") or body.get("top_logprobs"):
            content = f"({letter}"
            n = int(body.get("top_logprobs") or 1)
            first = [_token("(", -0.02), _token("I", -4.5), _token(paren[0][0], -5.0)][:n]
            others = [o[0] for o in paren if o[0] != letter]
            second = ([_token(letter, -0.05)] + [_token(o, -1.0 - 0.25 * j) for j, o in enumerate(others)])[:n]
            logprobs = {"content": [_token("(", -0.02) | {"top_logprobs": first},
                                    _token(letter, -0.05) | {"top_logprobs": second}]}
        elif "Answer: (X)" in last:
            content = f"Weighing it up, '{label}' fits best.\nAnswer: ({letter})"
        else:
            content = f"({letter})"
    elif len(options) >= 2 and [o[0] for o in options] == [chr(65 + i) for i in range(len(options))]:
        k = pick % len(options)
        letter, label = options[k]
        if body.get("logprobs") or body.get("top_logprobs"):
            content = letter
            others = [o[0] for o in options if o[0] != letter]
            top = [_token(letter, -0.05)] + [_token(o, -1.0 - 0.25 * j) for j, o in enumerate(others)]
            top += [_token(" The", -6.0), _token("I", -6.5)]
            top = top[: int(body.get("top_logprobs") or 1)]
            logprobs = {"content": [_token(letter, -0.05) | {"top_logprobs": top}]}
        else:
            content = letter if body.get("max_tokens") == 1 else f"{letter}. {label}"
    elif scale := _SCALE.search(last):
        k = int(scale.group(1))
        number = str(1 + pick % k)
        if body.get("logprobs") or body.get("top_logprobs"):
            top = [_token(number, -0.05)] + [_token(str(d), -1.0 - 0.25 * d) for d in range(1, k + 1) if str(d) != number]
            logprobs = {"content": [_token(number, -0.05) | {"top_logprobs": top[: int(body.get("top_logprobs") or 1)]}]}
        content = number
    elif numbered := [(m.group(1), m.group(2)) for m in _NUMBERED_LINE.finditer(last)]:
        number, text = numbered[pick % len(numbered)]
        content = f"Thinking it over.\nAnswer: {number}. {text}" if '"Answer:"' in last else f"{number}. {text}"
    else:
        content = f"Stub reply {digest[:8]}: that is an interesting point, tell me more."
    if empty:
        content, logprobs = "", None
    if nonsense:  # a reply no reader can use: no option, number, JSON or environment in it
        content, logprobs = NONSENSE, ({"content": [_token(NONSENSE, -0.1) | {"top_logprobs": [_token(NONSENSE, -0.1)]}]}
                                       if logprobs else None)
    prompt = sum(_words(str(m.get("content", ""))) for m in messages)
    return {
        "id": f"chatcmpl-stub-{digest}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "stub"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "logprobs": logprobs,
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": _words(content) if content else 0,
                  "total_tokens": prompt + (_words(content) if content else 0)},
    }


def logprobs_refusal(body: dict[str, Any], allowed: int) -> dict[str, Any] | None:
    """vLLM's HTTP 400 body for a request asking more top logprobs than its ``--max-logprobs`` allows (``allowed``),
    as ``SamplingParams._validate_logprobs`` words it (vllm/sampling_params.py); None when the request is served."""
    asked = body.get("top_logprobs") if body.get("logprobs") else None
    if not isinstance(asked, int) or asked <= allowed:
        return None
    message = (f"Requested sample logprobs of {asked}, which is greater than max allowed: {allowed} "
               f"(parameter=logprobs, value={asked})")
    return {"error": {"message": message, "type": "BadRequestError", "param": "logprobs", "code": 400}}


def _broken_body(doc: dict[str, Any], fault: str, auth: str) -> dict[str, Any]:
    """A well-formed JSON reply with the flaw ``fault`` names (see module docstring)."""
    choice = doc["choices"][0]
    if fault == "echo_auth_ok":
        choice["message"]["content"] = f"{choice['message']['content']} (proxy debug: Authorization: {auth})"
        if choice.get("logprobs"):
            choice["logprobs"]["content"][0]["top_logprobs"].append({"token": auth, "logprob": -9.0, "bytes": []})
    elif fault == "content_int":
        choice["message"]["content"] = 123
    elif fault == "content_null":
        choice["message"]["content"], choice["logprobs"] = None, None
    elif fault == "bad_logprobs":
        choice["logprobs"] = "A: -0.1, B: -2.0"
    elif fault == "bad_usage":
        doc["usage"] = {"prompt_tokens": "12", "completion_tokens": "one"}
    elif fault == "other_model":
        doc["model"] = "stub-other"
    return doc


# -- the ASGI app --------------------------------------------------------------------------------
class StubApp:
    """The ASGI application: state (config, counters, log) lives here, on the server's event loop."""

    def __init__(self, config: StubConfig | None = None, log_path: str | Path | None = None):
        self.config = config or StubConfig()
        self.log: list[dict[str, Any]] = []
        self._attempts: dict[str, int] = {}
        self._ordinal = 0
        self._log_file = open(log_path, "a", encoding="utf-8") if log_path else None  # noqa: SIM115
        self._lock = threading.Lock()
        self.closing = False  # set on shutdown: hanging requests answer at once
        self.in_flight = 0  # chat completions being answered now, and the most at once since start
        self.peak_in_flight = 0
        self.batches = BatchAPI(self._batch_answer)
        self.batches.script = BatchScript.from_json(self.config.batch)

    def configure(self, config: StubConfig) -> None:
        """Replace the configuration and reset the per-hash attempt counters (not the log)."""
        with self._lock:
            self.config = config
            self._attempts.clear()
            self.batches.script = BatchScript.from_json(config.batch)

    def close(self) -> None:
        if self._log_file:
            self._log_file.close()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        path, method = scope["path"], scope["method"]
        if path.endswith("/chat/completions") and method == "POST":
            headers = dict(scope["headers"])
            await self._completion(b"".join(chunks), headers.get(b"authorization"), send, headers.get(b"idempotency-key"))
        elif path == "/_control/config" and method == "POST":
            self.configure(StubConfig.from_json(json.loads(b"".join(chunks) or b"{}")))
            await _respond(send, 200, {"ok": True})
        elif path == "/_control/stats":
            await _respond(send, 200, {"requests": self._ordinal, "hashes": len(self._attempts), **self.batches.stats()})
        elif (routed := self.batches.route(method, path, b"".join(chunks), dict(scope["headers"]))) is not None:
            status, doc = routed
            if isinstance(doc, bytes):
                await _respond_raw(send, status, doc)
            else:
                await _respond(send, status, doc)
        elif path.endswith("/models"):
            await _respond(send, 200, {"object": "list", "data": [{"id": "stub-model", "object": "model"}]})
        else:
            await _respond(send, 404, {"error": {"message": f"no route {method} {path}"}})

    def _admit(self, body: dict[str, Any], auth: bytes | None, batch: str | None = None,
               idempotency: bytes | None = None) -> tuple[str, FaultRule | None, int]:
        """Count and log one request (live or in a batch): its hash, the fault rule it hits, its status."""
        digest = messages_hash(body["messages"])
        with self._lock:
            ordinal = self._ordinal
            self._ordinal += 1
            attempt = self._attempts.get(digest, 0)
            self._attempts[digest] = attempt + 1
            rule = next((r for r in self.config.faults if r.hits(digest, ordinal, attempt)), None)
        if rule is not None and rule.kind == "max_logprobs" and logprobs_refusal(body, rule.max_logprobs) is None:
            rule = None  # asks no more logprobs than the server allows: answered as usual
        fault = rule.kind if rule else None
        status = {"429": 429, "500": 500, "echo_auth": 401, "max_logprobs": 400}.get(fault or "", 200)
        entry = {
            "ordinal": ordinal, "t": time.time(), "hash": digest, "attempt": attempt, "model": body.get("model"),
            "params": {k: v for k, v in body.items() if k not in ("messages", "model")}, "fault": fault,
            "status": status, "auth_sha256": hashlib.sha256(auth).hexdigest() if auth else None,
            **({"batch": batch} if batch else {}),
            **({"idempotency_key": idempotency.decode("latin-1")} if idempotency else {}),
        }
        self.log.append(entry)
        if self._log_file:
            self._log_file.write(json.dumps(entry) + "\n")
            self._log_file.flush()
        return digest, rule, status

    def _batch_answer(self, body: dict[str, Any], auth: bytes | None, batch: str) -> tuple[int, dict[str, Any]]:
        """One request of a batch: (status, body) as the live route would answer it (no hangs, no raw bodies)."""
        digest, rule, status = self._admit(body, auth, batch)
        fault = rule.kind if rule else None
        if fault == "max_logprobs":
            return status, logprobs_refusal(body, rule.max_logprobs) or {}
        if status != 200:
            return status, {"error": {"message": f"stub fault {fault}", "type": "server_error"}}
        if fault in _BODY_FAULTS:
            return 200, _broken_body(reply_body(body, digest), fault, (auth or b"").decode("latin-1"))
        return 200, reply_body(body, digest, empty=fault == "empty", nonsense=fault == "nonsense")

    async def _completion(self, raw: bytes, auth: bytes | None, send: Any, idempotency: bytes | None = None) -> None:
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            await self._answer(raw, auth, send, idempotency)
        finally:
            self.in_flight -= 1

    async def _answer(self, raw: bytes, auth: bytes | None, send: Any, idempotency: bytes | None) -> None:
        try:
            body = json.loads(raw)
            messages = body["messages"]
        except (ValueError, KeyError, TypeError):
            await _respond(send, 400, {"error": {"message": "body must be JSON with 'messages'"}})
            return
        digest, rule, _ = self._admit(body, auth, idempotency=idempotency)
        fault = rule.kind if rule else None
        latency = self.config.latency_s
        if latency:
            await asyncio.sleep(latency)
        if fault == "429":
            await _respond(send, 429, {"error": {"message": "rate limited (stub)", "type": "rate_limit"}},
                           [(b"retry-after", _seconds(rule.retry_after))])
        elif fault == "500":
            await _respond(send, 500, {"error": {"message": "internal error (stub)"}})
        elif fault == "max_logprobs":
            await _respond(send, 400, logprobs_refusal(body, rule.max_logprobs) or {})
        elif fault == "echo_auth":
            echoed = (auth or b"").decode("latin-1")
            await _respond_raw(send, 401, ("x" * rule.pad + f"invalid credentials: {echoed}").encode("latin-1"))
        elif fault in _BODY_FAULTS:
            await _respond(send, 200, _broken_body(reply_body(body, digest), fault, (auth or b"").decode("latin-1")))
        elif fault == "malformed":
            await _respond_raw(send, 200, b'{"id": "chatcmpl-broken", "object": "chat.completion", "choices": [{"ind')
        else:
            if fault == "timeout":
                deadline = time.monotonic() + rule.hang_s
                while time.monotonic() < deadline and not self.closing:
                    await asyncio.sleep(0.05)
            await _respond(send, 200, reply_body(body, digest, empty=fault == "empty", nonsense=fault == "nonsense"))


def _seconds(value: float) -> bytes:
    return (str(int(value)) if float(value).is_integer() else str(value)).encode()


async def _respond(send: Any, status: int, doc: dict[str, Any], headers: list[tuple[bytes, bytes]] | None = None) -> None:
    await _respond_raw(send, status, json.dumps(doc).encode(), headers)


async def _respond_raw(send: Any, status: int, payload: bytes, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": payload})


# -- running it ----------------------------------------------------------------------------------
def _listening_socket(port: int = 0) -> socket.socket:
    # proto=IPPROTO_TCP: asyncio only sets TCP_NODELAY on accepted sockets of that proto; without it
    # Nagle holds the reply body behind its headers until the client's delayed ACK (~40 ms per request).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(1024)
    return sock


def _uvicorn_server(app: StubApp) -> Any:
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", http="h11", loop="asyncio",
                            timeout_graceful_shutdown=1, timeout_keep_alive=60, backlog=1024)
    return uvicorn.Server(config)


class StubServer:
    """The stub served by uvicorn on a background thread of this process (the pytest fixture)."""

    def __init__(self, config: StubConfig | None = None, log_path: str | Path | None = None, port: int = 0):
        self.app = StubApp(config, log_path)
        self.log_path = Path(log_path) if log_path else None
        self._sock = _listening_socket(port)
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._server = _uvicorn_server(self.app)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True)

    def start(self) -> StubServer:
        self._thread.start()
        deadline = time.time() + 10
        while not self._server.started:
            if time.time() > deadline or not self._thread.is_alive():
                raise RuntimeError("stub server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.app.closing = True
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()
        self.app.close()

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def configure(self, faults: list[FaultRule] | None = None, latency_s: float = 0.0,
                  batch: dict[str, Any] | None = None) -> None:
        """Replace faults/latency/batch script and reset attempt counters (the log is kept)."""
        self.app.configure(StubConfig(latency_s, list(faults or []), batch))

    def calls(self) -> list[dict[str, Any]]:
        """Every request received so far (copies of the log entries), in arrival order."""
        return list(self.app.log)


def read_log(path: str | Path) -> list[dict[str, Any]]:
    """The call log written by a stub process (complete lines only)."""
    text = Path(path).read_text(encoding="utf-8") if Path(path).exists() else ""
    return [json.loads(line) for line in text.splitlines() if line.endswith("}")]


@contextmanager
def stub_process(log_path: str | Path, *args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Run ``python tests/stub_server.py --port 0 --log LOG ARGS`` and yield (process, base URL)."""
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--port", "0", "--log", str(log_path), *args],
                            stdout=subprocess.PIPE, text=True)
    try:
        url = (proc.stdout.readline() if proc.stdout else "").strip()
        if not url.startswith("http://"):
            raise RuntimeError(f"stub process did not print its URL (got {url!r})")
        yield proc, url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="OpenAI-compatible stub server with fault injection.")
    parser.add_argument("--port", type=int, default=0, help="0 = a free port")
    parser.add_argument("--log", type=Path, help="append one JSON line per request to this file")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every reply")
    parser.add_argument("--fault", action="append", default=[], type=parse_fault,
                        help="kind[,hashes=a+b][,modulo=M,residue=R][,ordinals=1+2][,times=K|always][,retry_after=S]"
                             "[,hang_s=S][,max_logprobs=N]")
    args = parser.parse_args(argv)
    app = StubApp(StubConfig(args.latency, args.fault), args.log)
    sock = _listening_socket(args.port)
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/v1", flush=True)
    try:
        _uvicorn_server(app).run(sockets=[sock])
    finally:
        app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
