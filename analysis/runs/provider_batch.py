"""A wave sent through a provider's batch API (``/v1/files`` + ``/v1/batches``: OpenAI and compatible services).

For each model of the wave: cut its requests into batch files within the model's limits (requests and bytes a
file; ``analysis.runs.batch_parts``), and for each file, once its estimated tokens fit the model's enqueued-token
budget beside its batches in progress (else it waits for one to end), upload it, create the batch, keep its id in
the store (``Store.record_batch``) before waiting, poll it with growing pauses (the provider's counts go to the
progress message), then download its output and error files and answer every request:
a reply (validated and bounded as a live reply is, priced at the batch price), or the reason it has none (the
request's own error, the batch expired, was cancelled or failed, its output had no line for it, or that line's body
names another model than the request was sent to: ``analysis.llm.model_ids``). The executor
stores each as a live call would be stored; a request left without a reply is asked again by ``resume``.

A process killed while it waits loses nothing: on ``resume`` the session asks the same requests, and a wave whose
requests are in batches still open at the provider polls those batches (counted in the token budget) and cuts only
the requests no batch holds into new ones (``Store.open_batches``). Cancelling the run locally leaves the provider's batch running; its replies are collected
on resume. Keys: the file holds the request bodies only; the key goes in the Authorization header, to the endpoint
configured for it, as for a live call.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from analysis.llm.client import CallError, classify_error
from analysis.llm.keys import clip, redact
from analysis.runs.answering import answer_in_chunks, read_replies
from analysis.runs.batch_file import ENDPOINT
from analysis.runs.batch_parts import BatchLimits, TokenQueue, cut_wave, enqueued_tokens, scrubbed_line
from analysis.runs.progress import ProgressTracker
from analysis.runs.results_index import ResultsIndex
from analysis.runs.store import Store
from analysis.runs.waves import Pending

if TYPE_CHECKING:
    from analysis.llm.client import LLMClient
    from analysis.llm.specs import ModelSpec

FINAL = ("completed", "expired", "cancelled", "failed")
T = TypeVar("T")


@dataclass(frozen=True)
class BatchPolicy:
    """How often to poll and how hard to try: the first pause ``poll_s``, growing by ``growth`` up to ``max_poll_s``;
    a file or batch request failing for a transient reason is tried ``attempts`` times; ``completion_window`` is the
    provider's (OpenAI accepts "24h")."""

    poll_s: float = 10.0
    max_poll_s: float = 60.0
    growth: float = 1.5
    attempts: int = 5
    completion_window: str = "24h"


def api_error(exc: BaseException) -> CallError:
    """A one-line, key-free ``CallError`` for a failed files/batches request (openai's errors or httpx's)."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        return CallError(f"HTTP {status}: {clip(redact(str(exc.message)), 200)}",
                         retryable=status in (408, 409, 429) or status >= 500, status=status)
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError)):
        return CallError(f"connection error: {type(exc).__name__}", retryable=True)
    return classify_error(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))


#: The most a provider's output or error file may hold; a larger one is not read on (its good lines are lost with
#: it: the run's calls stay unanswered and say why). OpenAI's batch input files are capped at 200 MB; an output with
#: logprobs is a few times its input.
MAX_OUTPUT_BYTES = 2 * 2**30
#: The longest a file's download may take as a whole (httpx's read timeout restarts with every chunk).
MAX_DOWNLOAD_S = 30 * 60.0


async def download_file(client: LLMClient, file_id: str, into: BinaryIO, *, max_bytes: int | None = None,
                        deadline_s: float | None = None) -> None:
    """A provider file streamed into the open binary file ``into`` (from its start): at most ``MAX_OUTPUT_BYTES``
    read, within ``MAX_DOWNLOAD_S`` overall; its lines are checked, and blank or oversized ones skipped, when it is
    indexed (``analysis.runs.results_index``). ``CallError`` (not retried) past a limit."""
    max_bytes = MAX_OUTPUT_BYTES if max_bytes is None else max_bytes
    deadline_s = MAX_DOWNLOAD_S if deadline_s is None else deadline_s
    into.seek(0)
    into.truncate()
    total = 0
    try:
        async with asyncio.timeout(deadline_s):
            async with client.openai.files.with_streaming_response.content(file_id) as response:
                async for chunk in response.iter_bytes():
                    total += len(chunk)
                    if total > max_bytes:
                        raise CallError(f"file {file_id}: more than {max_bytes:,} bytes: not read on", retryable=False)
                    into.write(chunk)
    except TimeoutError:
        raise CallError(f"file {file_id}: download took more than {deadline_s:,.0f} s", retryable=False) from None
    into.flush()


class ProviderBatches:
    """The wave handler (``analysis.runs.waves.WaveCollector``) of a run executed ``--via batch``."""

    def __init__(self, store: Store, run_id: str, progress: ProgressTracker, policy: BatchPolicy | None = None):
        self.store, self.run_id, self.progress = store, run_id, progress
        self.policy = policy or BatchPolicy()
        self.waves = 0
        self.created: list[str] = []  # batch ids this process created
        self.adopted: list[str] = []  # open batches it found in the store and polled
        self.queues: dict[str, TokenQueue] = {}  # by model identity: its enqueued-token budget

    async def __call__(self, wave: list[Pending]) -> None:
        self.waves += 1
        by_model: dict[int, list[Pending]] = {}
        for entry in wave:
            by_model.setdefault(id(entry.client), []).append(entry)
        await asyncio.gather(*(self._model_wave(entries) for entries in by_model.values()))

    async def _model_wave(self, entries: list[Pending]) -> None:
        client = entries[0].client
        queue = self._queue(client.spec)
        by_key = {e.key: e for e in entries}
        async with asyncio.TaskGroup() as group:
            for batch in self.store.open_batches(client.spec.identity):
                held = {key: by_key.pop(key) for key in batch["units"] if key in by_key}
                if held:
                    self.adopted.append(batch["batch_id"])
                    tokens = _adopted_tokens(held, int(batch["n_requests"]))
                    queue.hold(tokens)
                    group.create_task(self._collect_then_release(client, batch["batch_id"], held, queue, tokens))
            if by_key:
                await self._submit_parts(client, list(by_key.values()), queue, group)

    def _queue(self, spec: ModelSpec) -> TokenQueue:
        """The model's token queue, shared by every wave of this execution (its batches of one wave end before the
        next wave starts, so it only ever counts batches in progress)."""
        if spec.identity not in self.queues:
            self.queues[spec.identity] = TokenQueue(spec.batch_max_enqueued_tokens)
        return self.queues[spec.identity]

    async def _submit_parts(self, client: LLMClient, entries: list[Pending], queue: TokenQueue,
                            group: asyncio.TaskGroup) -> None:
        """Cut the model's requests into batches within its limits (``batch_parts.cut_wave``); create each once its
        tokens fit the budget beside the batches in progress, keep its id, and collect it (``group``)."""
        for number, part in enumerate(cut_wave(entries, BatchLimits.of(client.spec)), start=1):
            await queue.acquire(part.tokens)
            try:
                batch_id = await self._create(client, b"".join(part.lines), len(part.lines), number)
            except CallError as exc:
                await queue.release(part.tokens)
                for entry in part.entries.values():
                    entry.fail(CallError(f"batch not created: {exc}", retryable=False))
                continue
            finally:
                part.lines.clear()  # uploaded (or not): only the entries are needed from here
            self.store.record_batch(batch_id, self.run_id, client.spec.name, client.spec.identity, self.waves,
                                    {k: e.units for k, e in part.entries.items()})
            self.created.append(batch_id)
            group.create_task(self._collect_then_release(client, batch_id, part.entries, queue, part.tokens))

    async def _collect_then_release(self, client: LLMClient, batch_id: str, by_key: dict[str, Pending],
                                    queue: TokenQueue, tokens: int) -> None:
        try:
            await self._collect(client, batch_id, by_key)
        finally:
            await queue.release(tokens)

    async def _create(self, client: LLMClient, data: bytes, n_requests: int, number: int = 1) -> str:
        self.progress.update(message=f"wave {self.waves}: uploading batch {number} ({n_requests:,} requests)")
        uploaded = await self._retrying(lambda: client.openai.files.create(
            file=("rolescope-requests.jsonl", data, "application/jsonl"), purpose="batch"))
        batch = await self._retrying(lambda: client.openai.batches.create(
            input_file_id=uploaded.id, endpoint=ENDPOINT, completion_window=self.policy.completion_window,
            metadata={"rolescope_run": self.run_id[:512]}))
        return str(batch.id)

    async def _retrying(self, make: Callable[[], Awaitable[T]]) -> T:
        for attempt in range(1, self.policy.attempts + 1):
            try:
                return await make()
            except Exception as exc:  # noqa: BLE001 - mapped to one key-free line
                error = api_error(exc)
                if not error.retryable or attempt == self.policy.attempts:
                    raise error from None
                await asyncio.sleep(min(self.policy.max_poll_s, self.policy.poll_s * 2 ** (attempt - 1)) / 10)
        raise AssertionError("unreachable")

    async def _collect(self, client: LLMClient, batch_id: str, by_key: dict[str, Pending]) -> None:
        """Poll ``batch_id`` until it ends, then answer every entry of ``by_key`` it holds."""
        try:
            batch = await self._poll(client, batch_id)
        except CallError as exc:  # the batch stays open in the store: resume polls it again
            for entry in by_key.values():
                entry.fail(CallError(f"batch {batch_id}: lost while polling ({exc}); resume polls it again",
                                     retryable=False))
            return
        problems: list[str] = []
        with contextlib.ExitStack() as files:  # each file downloaded to a temporary file, indexed, read back
            results = ResultsIndex()
            for file_id in (getattr(batch, "output_file_id", None), getattr(batch, "error_file_id", None)):
                if not file_id:
                    continue
                handle = files.enter_context(tempfile.TemporaryFile())
                try:
                    await self._retrying(lambda fid=file_id, into=handle: download_file(client, fid, into))
                except CallError as exc:
                    problems.append(f"file {file_id} not downloaded: {exc}")
                    continue
                results.add(handle, f"batch {batch_id}", problems)
            missing = _missing_reason(batch, problems)
            for key, entry in by_key.items():
                if key not in results:
                    entry.fail(CallError(missing, retryable=False))
            try:
                await answer_in_chunks(self.store, [e for k, e in by_key.items() if k in results],
                                       lambda chunk: read_replies(results, chunk, label=f"batch {batch_id}: ",
                                                                  batch_price=True))
            finally:  # the last replies stored, the run may end at once: this task is then cancelled
                detail = _counts_text(batch) + (f"; {len(problems)} unreadable output lines" if problems else "")
                self.store.set_batch_status(batch_id, f"{batch.status}, collected", detail)

    async def _poll(self, client: LLMClient, batch_id: str) -> Any:
        pause, started = self.policy.poll_s, time.monotonic()
        while True:
            batch = await self._retrying(lambda: client.openai.batches.retrieve(batch_id))
            status = str(batch.status)
            self.store.set_batch_status(batch_id, status, _counts_text(batch))
            self.progress.update(message=f"wave {self.waves}: batch {batch_id[:24]} {status}, {_counts_text(batch)}, "
                                         f"{time.monotonic() - started:.0f} s")
            if status in FINAL:
                return batch
            await asyncio.sleep(pause)
            pause = min(self.policy.max_poll_s, pause * self.policy.growth)


def _counts_text(batch: Any) -> str:
    counts = getattr(batch, "request_counts", None)
    if counts is None:
        return "no counts yet"
    return f"{counts.completed} of {counts.total} done, {counts.failed} failed"


def _missing_reason(batch: Any, problems: list[str]) -> str:
    """Why a request of an ended batch has no result line."""
    status = str(batch.status)
    if status == "failed":
        errors = getattr(getattr(batch, "errors", None), "data", None) or []
        first = "; ".join(clip(redact(": ".join(str(x) for x in (getattr(e, "code", None), getattr(e, "message", e)) if x)), 200)
                          for e in errors[:2])
        hint = ""
        if any(getattr(e, "code", None) == "token_limit_exceeded" for e in errors):
            hint = ("; the provider's enqueued-token limit for this model: set batch_max_enqueued_tokens in models.toml "
                    "to your account's limit, and resume")
        return f"batch failed{': ' + first if first else ''}{hint}"
    if status in ("expired", "cancelled"):
        return f"batch {status} before this request was answered"
    unreadable = f" ({len(problems)} output lines unreadable: {clip(problems[0], 200)})" if problems else ""
    return f"no result for this request in the batch's output{unreadable}"


def _adopted_tokens(held: dict[str, Pending], n_requests: int) -> int:
    """An open batch's enqueued tokens, estimated from the requests of this wave it holds (scaled to all of its
    ``n_requests``: a batch of the store may hold requests of other runs too)."""
    tokens = sum(enqueued_tokens(scrubbed_line(entry)) for entry in held.values())  # each was written once: no NaN
    return math.ceil(tokens * max(n_requests, len(held)) / len(held))
