"""Waves: the calls a run awaits at the same time, collected so they can be sent as one batch.

A method's session is plain async code awaiting ``Executor.call`` (analysis.runs.executor): a questionnaire's items
fan out at once, a conversation's next turn waits for the one before. With a ``WaveCollector`` the executor does not
send a request; it hands it to the collector and waits. Once the session can make no progress without replies (every
task is blocked on a pending call: no new request for ``settle_s`` and nothing else ready to run on the event loop),
the collector hands everything pending, *one wave*, to its handler: a provider's batch API
(``analysis.runs.provider_batch``), a requests file (``analysis.runs.offline_batch``), or a file of replies. The
handler answers each entry (``Pending.resolve``/``fail``); the session goes on, and the calls it makes next form the
next wave. A questionnaire is one wave; a three-turn conversation and its items four; a plan with dependent steps as
many as its longest chain of calls (``Method.waves``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from analysis.llm.client import ChatReply, ChatRequest, LLMClient

#: Quiet time (no new request, nothing ready on the loop) after which the pending calls are one wave.
SETTLE_S = 0.05


@dataclass
class Pending:
    """One request a wave awaits: its content key (the batch line's ``custom_id``), the units waiting for it (two
    units of a run may send the same request: it is asked once), and the client of its model.

    Each unit waits on a future of its own (``wait``): one unit cancelled leaves the others waiting, as a shielded
    shared future did, at a third of the memory (a wave of 100,000 requests held ~60 MB of shields). Settled once; the
    futures are let go then, so a reply lives only as long as the units that use it."""

    key: str
    request: ChatRequest
    client: LLMClient
    units: list[str] = field(default_factory=list)
    waiters: list[asyncio.Future[ChatReply]] = field(default_factory=list)
    settled: bool = False

    def wait(self) -> asyncio.Future[ChatReply]:
        future: asyncio.Future[ChatReply] = asyncio.get_running_loop().create_future()
        self.waiters.append(future)
        return future

    def resolve(self, reply: ChatReply) -> None:
        self._settle(lambda future: future.set_result(reply))

    def fail(self, error: BaseException) -> None:
        self._settle(lambda future: future.set_exception(error))

    def cancel(self) -> None:
        self._settle(lambda future: future.cancel())

    def _settle(self, settle: Callable[[asyncio.Future[ChatReply]], object]) -> None:
        if self.settled:
            return
        self.settled = True
        for future in self.waiters:
            if not future.done():
                settle(future)
        self.waiters = []


Handler = Callable[[list[Pending]], Awaitable[None]]


class WaveStop(BaseException):  # noqa: N818 - a signal like CancelledError, not an error
    """Raised by a handler to end the session at this wave without answering it (its requests were written to a
    file, or only counted): a ``BaseException``, so a session's ``except Exception`` (a campaign going on to its next
    part) does not swallow it. The runner stores the run as awaiting replies."""

    def __init__(self, wave: int, n_requests: int, note: str = ""):
        super().__init__(f"wave {wave}: {n_requests} requests awaited{': ' + note if note else ''}")
        self.wave = wave
        self.n_requests = n_requests
        self.note = note


async def until_idle(max_rounds: int = 100_000) -> None:
    """Return once nothing is ready to run on the loop: the sessions woken by the replies a handler just gave have
    gone as far as they can (stored them, and wait again or are done). Without CPython's queue of ready callbacks to
    look at, a fixed number of turns of the loop."""
    loop = asyncio.get_running_loop()
    for _ in range(max_rounds):
        await asyncio.sleep(0)
        ready: Any = getattr(loop, "_ready", None)
        if ready is None:
            for _ in range(100):
                await asyncio.sleep(0)
            return
        if not len(ready):
            return


class WaveCollector:
    """Collects the requests of a run into waves and hands each to ``handler``, one wave at a time.

    The handler must settle every entry's future (a reply, or a ``CallError`` the executor stores as the call's
    failure); an entry it leaves open is failed for it, so a session never waits forever. Requests made while a wave
    is with the handler wait for the next one."""

    def __init__(self, handler: Handler, *, settle_s: float = SETTLE_S):
        self.handler = handler
        self.settle_s = settle_s
        self.waves = 0
        self._pending: dict[str, Pending] = {}
        self._flusher: asyncio.Task[None] | None = None

    def submit(self, unit: str, key: str, request: ChatRequest, client: LLMClient) -> asyncio.Future[ChatReply]:
        """The reply to ``request`` once its wave is answered (await it); raises the call's ``CallError`` if it
        failed. A future, not a coroutine: a wave holds one suspended frame less per request."""
        entry = self._pending.get(key)
        if entry is None:
            entry = self._pending[key] = Pending(key, request, client)
        entry.units.append(unit)
        waiter = entry.wait()
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.ensure_future(self._flush())
            # its failure reaches the waiting calls through their futures: mark it retrieved
            self._flusher.add_done_callback(lambda task: task.cancelled() or task.exception())
        return waiter

    async def _flush(self) -> None:
        while self._pending:
            await self._settle()
            wave, self._pending = list(self._pending.values()), {}
            self.waves += 1
            try:
                await self.handler(wave)
            except asyncio.CancelledError:
                for entry in wave:
                    entry.cancel()
                raise
            except BaseException as exc:  # the session's waiting calls get the handler's failure (or stop), not a hang
                for entry in wave:
                    entry.fail(exc)
                raise
            finally:
                from analysis.llm.client import CallError

                for entry in wave:
                    entry.fail(CallError("no reply: the batch handler left this request unanswered", retryable=False))

    async def _settle(self) -> None:
        """Return once the session is blocked: no new request for ``settle_s`` and nothing ready to run."""
        loop = asyncio.get_running_loop()
        while True:
            before = len(self._pending) + sum(len(e.units) for e in self._pending.values())
            await asyncio.sleep(self.settle_s)
            after = len(self._pending) + sum(len(e.units) for e in self._pending.values())
            ready: Any = getattr(loop, "_ready", ())  # CPython's queue of callbacks ready to run (private, optional)
            if after == before and not len(ready):
                return

    async def aclose(self) -> None:
        if self._flusher is not None and not self._flusher.done():
            self._flusher.cancel()
            try:
                await self._flusher
            except BaseException:  # noqa: BLE001 - closing: the failure was already given to the waiting calls
                pass
