"""A wave cut into batch files that fit the provider's limits, and the queue that keeps its enqueued tokens in budget.

OpenAI takes at most 50,000 requests and 200 MB per batch input file, and queues at most a per-model number of input
tokens across the batches in progress (its "batch queue limit"; a batch past it fails at validation with
``token_limit_exceeded``). Without a cut, a wave of 50,400 requests is one file the provider fails whole, and a resume
builds the same file again. ``BatchLimits`` holds a model's limits (``models.toml``: ``batch_max_requests``,
``batch_max_bytes``, ``batch_max_enqueued_tokens``); ``cut_wave`` yields the wave's request lines as parts within
them, one part at a time so that only the part being sent is held in memory; ``TokenQueue`` lets a part be created
only while the model's batches in progress and it stay within the token budget, waiting for one to end otherwise.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from analysis.llm.client import CallError
from analysis.llm.keys import redact
from analysis.runs.batch_file import request_line

if TYPE_CHECKING:
    from analysis.llm.specs import ModelSpec
    from analysis.runs.waves import Pending

#: Bytes of a request line counted as one input token. The provider counts with the model's tokenizer, about 4
#: characters of English a token; 3 bytes (a line also holds JSON keys and the custom_id) keeps the estimate above
#: its count for most text, so the queue waits a little early rather than having a batch refused. Text of 3-byte
#: characters (CJK) can hold more tokens than this: give such a model a lower budget.
BYTES_PER_TOKEN = 3


def enqueued_tokens(line: bytes) -> int:
    """The input tokens a request line is counted as in the provider's queue (an estimate from above:
    ``ceil(bytes / BYTES_PER_TOKEN)``)."""
    return math.ceil(len(line) / BYTES_PER_TOKEN)


@dataclass(frozen=True)
class BatchLimits:
    """How large one batch file of a model may be, and how many input tokens may be enqueued at once (None: no
    budget). The defaults are ``ModelSpec``'s: OpenAI's 50,000 requests and 200 MB (less a margin for the upload)."""

    max_requests: int
    max_bytes: int
    max_enqueued_tokens: int | None = None

    @classmethod
    def of(cls, spec: ModelSpec) -> BatchLimits:
        return cls(spec.batch_max_requests, spec.batch_max_bytes, spec.batch_max_enqueued_tokens)


@dataclass
class Part:
    """One batch file of a wave: its lines, the entries they answer (by content key) and its estimated tokens."""

    lines: list[bytes] = field(default_factory=list)
    entries: dict[str, Pending] = field(default_factory=dict)
    n_bytes: int = 0
    tokens: int = 0

    def add(self, key: str, line: bytes, entry: Pending) -> None:
        self.lines.append(line)
        self.entries[key] = entry
        self.n_bytes += len(line)
        self.tokens += enqueued_tokens(line)

    def fits(self, line: bytes, limits: BatchLimits) -> bool:
        budget = limits.max_enqueued_tokens
        return (len(self.lines) < limits.max_requests and self.n_bytes + len(line) <= limits.max_bytes
                and (budget is None or self.tokens + enqueued_tokens(line) <= budget))


def scrubbed_line(entry: Pending) -> bytes:
    """The request line of ``entry``, scrubbed of every secret in play (a file uploaded or kept on disk);
    ``ValueError`` for a NaN or inf parameter."""
    body, _ = entry.client.request_body(entry.request)
    return redact(request_line(entry.key, body).decode("utf-8")).encode("utf-8")


def sendable_lines(entries: Iterable[Pending]) -> Iterator[tuple[Pending, bytes]]:
    """Each entry with its request line (``scrubbed_line``); a request that cannot be written (a NaN or inf
    parameter) is failed, never sent."""
    for entry in entries:
        try:
            line = scrubbed_line(entry)
        except ValueError as exc:
            entry.fail(CallError(f"request not sent: {exc}", retryable=False))
            continue
        yield entry, line


def cut_wave(entries: Iterable[Pending], limits: BatchLimits) -> Iterator[Part]:
    """The requests of ``entries`` as consecutive parts within ``limits`` (requests, bytes, and tokens when a budget
    is set), built as they are consumed. A request that alone exceeds a limit is failed with the limit named (no
    provider takes it; ``resume`` asks it again after the limit is raised)."""
    part = Part()
    for entry, line in sendable_lines(entries):
        too_big = _too_big(line, limits)
        if too_big:
            entry.fail(CallError(f"request not sent: {too_big}", retryable=False))
            continue
        if part.lines and not part.fits(line, limits):
            yield part
            part = Part()
        part.add(entry.key, line, entry)
    if part.lines:
        yield part


def _too_big(line: bytes, limits: BatchLimits) -> str | None:
    if len(line) > limits.max_bytes:
        return f"its request line is {len(line):,} bytes, over this model's batch_max_bytes ({limits.max_bytes:,})"
    budget, tokens = limits.max_enqueued_tokens, enqueued_tokens(line)
    if budget is not None and tokens > budget:
        return (f"its request is counted as {tokens:,} tokens, over this model's batch_max_enqueued_tokens "
                f"({budget:,})")
    return None


class TokenQueue:
    """A model's enqueued-token budget: ``acquire(n)`` returns once ``n`` more tokens fit beside the batches in
    progress (at once when none is, whatever ``n``: a part is cut to fit the budget alone); ``release(n)`` when a
    batch ends. Without a budget it never waits."""

    def __init__(self, budget: int | None):
        self.budget = budget
        self.enqueued = 0
        self.waited = 0  # parts that had to wait for a batch to end
        self._changed = asyncio.Condition()

    def fits(self, tokens: int) -> bool:
        return self.budget is None or self.enqueued == 0 or self.enqueued + tokens <= self.budget

    async def acquire(self, tokens: int) -> None:
        async with self._changed:
            if not self.fits(tokens):
                self.waited += 1
                await self._changed.wait_for(lambda: self.fits(tokens))
            self.enqueued += tokens

    def hold(self, tokens: int) -> None:
        """Count a batch already at the provider (adopted on resume) without waiting."""
        self.enqueued += tokens

    async def release(self, tokens: int) -> None:
        async with self._changed:
            self.enqueued = max(0, self.enqueued - tokens)
            self._changed.notify_all()
