"""An exported wave run on Ray: its requests sent to any OpenAI-compatible server, its results as one batch file.

``python -m analysis.runs.ray_driver wave-1.jsonl --base-url http://gpu:8000/v1 --out replies-1.jsonl``

The requests file (``export-requests`` or ``run --via export``) is checked whole first, then read with Ray Data
(``read_binary_files``; on a cluster of several machines, from a path every node sees) and sent through Ray Data's
HTTP request stage (``HttpRequestProcessorConfig`` + ``build_processor``) to ``<base-url>/chat/completions``, each
body as it was exported (``analysis.runs.ray_http``). Each request gets one result line in the format
``import-replies`` reads (``analysis.runs.batch_file``): the server's whole chat.completion body,
``choices[0].logprobs`` included (``--answer-mode logprob`` reads its ``top_logprobs``); or the request's failure,
its status and body or an ``error`` object, which ``import-replies`` stores as that call's failure. The results go
to one file, written whole or not at all.

The key is read from the variable ``--api-key-env`` names, sent in the Authorization header and scrubbed from every
string written (a server may echo it). Ray is imported here only, when the driver runs: RoleScope itself never needs
it (``requirements-dev.txt`` has it for the test). ``RAY_ADDRESS`` points the driver at a cluster, as for any Ray
program; otherwise it starts Ray on this machine for the time of the run.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

from analysis.cli_types import non_negative_int, positive_float, positive_int
from analysis.errors import InputError, RoleScopeError, RunFailure, has_control, one_line
from analysis.importers.files import check_regular_file, write_atomically
from analysis.llm.keys import Scrubber, clip, register_secret
from analysis.runs.batch_file import Oversized, file_lines, parse_request

#: How long the check that the server is reachable waits for a connection.
CONNECT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Settings:
    """How the requests are sent: Ray actors (``concurrency``); requests a batch holds, in flight together
    (``batch_size``; an actor runs a few batches at once: 4 in Ray 2.60); attempts after the first for a transient
    failure (``retries``: no reply, 408, 429, 502-504; the pause starts at ``pause_s`` and doubles, or is the
    server's ``Retry-After``); the most one exchange may take (``timeout_s``); ``quiet``: no Ray progress or logs."""

    concurrency: int = 1
    batch_size: int = 64
    retries: int = 3
    pause_s: float = 1.0
    timeout_s: float = 600.0
    quiet: bool = False


@dataclass
class Summary:
    """What a run of the driver wrote: one result per request, so many answered (HTTP 200 with a chat completion)."""

    requests: int
    answered: int = 0
    failed: int = 0
    first_error: str = ""


def check_requests(path: Path) -> int:
    """The number of request lines of ``path``, every line checked (``batch_file.parse_request``, each ``custom_id``
    once): ``InputError`` naming the file and the first bad line, before anything is sent."""
    check_regular_file(path)
    seen: dict[str, int] = {}
    with open(path, "rb") as handle:
        for number, raw in enumerate(file_lines(handle), start=1):
            if isinstance(raw, Oversized):
                raise InputError(f"{path}: line {number}: over {len(raw):,} bytes, more than a request may hold")
            if not raw.strip():
                continue
            custom_id, _ = parse_request(raw, number, str(path))
            if custom_id in seen:
                raise InputError(f"{path}: line {number}: custom_id {custom_id[:12]}… again (first on line "
                                 f"{seen[custom_id]})")
            seen[custom_id] = number
    if not seen:
        raise InputError(f"{path}: no request lines")
    return len(seen)


def check_out(out: Path, requests: Path) -> None:
    """``InputError`` when the results cannot be written to ``out`` (known before the wave is sent, not after)."""
    if out.is_dir():
        raise InputError(f"--out {out}: is a folder, expected a file")
    if out.resolve() == requests.resolve():
        raise InputError(f"--out {out}: is the requests file")
    folder = out.parent
    while not folder.exists() and folder != folder.parent:  # write_atomically creates the missing folders
        folder = folder.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"--out {out}: cannot write in {folder}")


def chat_url(base_url: str) -> str:
    """``<base_url>/chat/completions`` (the base URL as a model spec takes it: ``http://host:8000/v1``), checked
    to be an http(s) URL whose server accepts a connection: ``InputError`` naming it otherwise."""
    parts = urlsplit(base_url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise InputError(f"--base-url {one_line(base_url)}: the port is not a number from 0 to 65535") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"--base-url {one_line(base_url)}: not an http(s) URL (give one as a model spec does: "
                         "http://host:8000/v1)")
    try:
        socket.create_connection((parts.hostname, port), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise InputError(f"--base-url {one_line(base_url)}: cannot connect to {parts.hostname}:{port} "
                         f"({reason})") from None
    return base_url.rstrip("/") + "/chat/completions"


def read_key(variable: str | None) -> str | None:
    """The key the variable ``variable`` holds (None: no key is sent), registered with the scrubber."""
    if variable is None:
        return None
    key = os.environ.get(variable, "")
    if not key:
        raise InputError(f"--api-key-env {one_line(variable)}: that environment variable is not set")
    if has_control(key) or key != key.strip():
        raise InputError(f"--api-key-env {one_line(variable)}: its value holds spaces or control characters")
    register_secret(key)
    return key


def result_line(outcome: dict[str, Any], scrubber: Scrubber) -> tuple[dict[str, Any], str]:
    """The result line of one request's outcome (``ray_http.to_outcome``) and its error ("" when answered)."""
    head = {"id": f"rolescope-ray-{outcome['line']}", "custom_id": outcome["custom_id"]}
    status, text = int(outcome["status"]), outcome["text"]
    if status == 0:
        error = scrubber.text(clip(outcome["error"], 300))
        return {**head, "response": None, "error": {"code": "request_failed", "message": error}}, error
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        body = None
    if status == 200:
        problem = _not_chat_completion(body)
        if problem:
            error = f"HTTP 200 but {problem}: {scrubber.text(clip(text, 200))}"
            return {**head, "response": None, "error": {"code": "invalid_response", "message": error}}, error
        return {**head, "response": {"status_code": 200, "body": _scrubbed(body, scrubber)}, "error": None}, ""
    kept = _scrubbed(body, scrubber) if body is not None else scrubber.text(clip(text, 2000))
    error = f"HTTP {status}: {one_line(scrubber.text(clip(text, 120)))}"
    return {**head, "response": {"status_code": status, "body": kept}, "error": None}, error


def _not_chat_completion(body: Any) -> str:
    """Why ``body`` is no chat completion ("" when it is one): a 200 that ``import-replies`` would refuse the whole
    file for becomes that request's failure instead."""
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return "the body has no choices"
    return ""


def _scrubbed(value: Any, scrubber: Scrubber) -> Any:
    """``value`` with every string (keys too) scrubbed of the secrets in play; numbers as they were."""
    if isinstance(value, str):
        return scrubber.text(value)
    if isinstance(value, dict):
        return {scrubber.text(k): _scrubbed(v, scrubber) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed(v, scrubber) for v in value]
    return value


def _encoded(line: dict[str, Any]) -> bytes:
    """One JSON line, UTF-8; a string UTF-8 cannot hold (a lone surrogate a server sent as ``\\ud800``) is written
    escaped, as it came."""
    try:
        return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(line, separators=(",", ":")).encode("ascii") + b"\n"


def _lines(outcomes: Iterator[dict[str, Any]], summary: Summary) -> Iterator[bytes]:
    """The result lines of ``outcomes``, counted into ``summary``; ``RunFailure`` when Ray gave a request no result
    or two (the file is then not written)."""
    scrubber, seen = Scrubber(), set()
    for outcome in outcomes:
        if outcome["custom_id"] in seen:
            raise RunFailure(f"Ray returned two results for line {outcome['line']}; nothing was written")
        seen.add(outcome["custom_id"])
        line, error = result_line(outcome, scrubber)
        if error:
            summary.failed += 1
            summary.first_error = summary.first_error or error
        else:
            summary.answered += 1
        yield _encoded(line)
    if len(seen) != summary.requests:
        raise RunFailure(f"Ray returned {len(seen):,} results for {summary.requests:,} requests; nothing was "
                         "written")


def drive(requests: Path, base_url: str, out: Path, *, api_key_env: str | None = None,
          settings: Settings = Settings()) -> Summary:
    """Send every request of ``requests`` to ``base_url`` through Ray Data and write their results to ``out``. Uses
    the Ray instance this process has started or joined, else starts (or joins, ``RAY_ADDRESS``) one for the time of
    the call. Bad input (the file, the URL, an unreachable server, an unset key variable) is an ``InputError`` raised
    before Ray is started."""
    key = read_key(api_key_env)
    summary = Summary(check_requests(requests))
    check_out(out, requests)
    url = chat_url(base_url)

    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(log_to_driver=not settings.quiet, logging_level="warning" if settings.quiet else "info")
    try:
        outcomes = _outcomes(requests, url, key, settings)
        write_atomically(out, _lines(outcomes, summary))
    finally:
        if started:
            ray.shutdown()
    return summary


def _outcomes(requests: Path, url: str, key: str | None, settings: Settings) -> Iterator[dict[str, Any]]:
    """Each request's outcome (``ray_http.to_outcome``), in the order Ray finishes them."""
    import ray
    from ray.data.llm import HttpRequestProcessorConfig, build_processor

    from analysis.runs import ray_http

    # the workers get ray_http's code from here: a cluster needs no RoleScope installed
    ray.cloudpickle.register_pickle_by_value(ray_http)
    context = ray.data.DataContext.get_current()
    if settings.quiet:
        context.enable_progress_bars = False
        context.print_on_execution_start = False
    config = HttpRequestProcessorConfig(
        url=url, headers={"Authorization": f"Bearer {key}"} if key else None, concurrency=settings.concurrency,
        batch_size=settings.batch_size, max_retries=0,  # ExactSession retries, and never lets the stage fail
        session_factory=ray_http.SessionFactory(settings.timeout_s, settings.retries, settings.pause_s))
    processor = build_processor(config, preprocess=ray_http.to_request, postprocess=ray_http.to_outcome)
    rows = ray.data.read_binary_files(str(requests.resolve())).flat_map(ray_http.split_lines)
    return processor(rows).iter_rows()


# -- the command line ------------------------------------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    """The CLI's error contract: one line naming the option and the reason, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {one_line(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m analysis.runs.ray_driver",
                     description="Send an exported wave's requests to an OpenAI-compatible server through Ray Data; "
                                 "write one result line per request for import-replies.")
    parser.add_argument("requests", type=Path, help="the requests file (export-requests, or run --via export)")
    parser.add_argument("--base-url", required=True, metavar="URL",
                        help="the server's OpenAI base URL, e.g. http://gpu:8000/v1")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE", help="the results file to write (JSONL)")
    parser.add_argument("--api-key-env", metavar="NAME", default=None,
                        help="the environment variable holding the server's key (default: no key sent)")
    parser.add_argument("--concurrency", type=positive_int, default=1, metavar="N",
                        help="Ray actors sending requests (default 1; Ray 2.60 runs up to 4 batches an actor at once)")
    parser.add_argument("--batch-size", type=positive_int, default=64, metavar="N",
                        help="requests a batch holds, all in flight together (default 64)")
    parser.add_argument("--retries", type=non_negative_int, default=3, metavar="N",
                        help="attempts after the first for no reply, 408, 429 or 502-504 (default 3)")
    parser.add_argument("--timeout", type=positive_float, default=600.0, metavar="SECONDS",
                        help="the most one request may take (default 600)")
    parser.add_argument("--quiet", action="store_true", help="no Ray progress or worker logs")
    return parser


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _last_line(message: str) -> str:
    """The last line of a Ray error, where its traceback names the error a worker raised, without colour codes."""
    lines = [line.strip() for line in _ANSI.sub("", message).splitlines() if line.strip()]
    return lines[-1] if lines else message


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = Settings(concurrency=args.concurrency, batch_size=args.batch_size, retries=args.retries,
                        timeout_s=args.timeout, quiet=args.quiet)
    try:
        summary = drive(args.requests, args.base_url, args.out, api_key_env=args.api_key_env, settings=settings)
    except RoleScopeError as exc:
        print(f"error: {one_line(clip(str(exc), 500))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # Ray's own failures: one line, key-free
        print(f"error: Ray failed ({type(exc).__name__}): {one_line(clip(_last_line(str(exc)), 300))}", file=sys.stderr)
        return 1
    failed = f"; the first failure: {one_line(summary.first_error)}" if summary.failed else ""
    print(f"{args.out}: {summary.requests:,} results, {summary.answered:,} answered, {summary.failed:,} failed{failed}",
          file=sys.stderr)
    print(f"then: python -m analysis import-replies RUN_ID {args.out} --store STORE --out NEXT-WAVE.jsonl",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
