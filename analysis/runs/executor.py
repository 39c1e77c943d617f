"""Executes LLM calls for a run: cache first, bounded concurrency, retries, one commit per call.

Method code is plain async Python that awaits ``Executor.call`` for every request, so the
dependency structure (a conversation turn needs the previous one; items fan out after it) reads
as written. Because every call goes through the content-addressed cache, re-executing a plan
(``resume``) pays only for the calls that are not stored yet.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any

from analysis.llm.client import CallError, ChatReply, ChatRequest, LLMClient
from analysis.llm.keys import clip
from analysis.llm.specs import ModelSpec
from analysis.runs.progress import ProgressTracker
from analysis.runs.store import Store, claim_owner
from analysis.runs.waves import WaveCollector

#: A claim's lease is the model's timeout plus this margin, renewed before every attempt.
CLAIM_MARGIN_S = 60.0
#: How often a call waiting for another's claim looks for its reply.
CLAIM_POLL_S = 0.1
_CLAIM_LOST = "claim lost"


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter; a server's Retry-After (capped) replaces it when sent.

    delay_k = min(retry_after, max_retry_after)  if the server sent Retry-After
            = U(0.5, 1) * min(max_delay, base * 2**k)  otherwise

    ``max_total_wait_s`` bounds the waiting of one call over all its retries: when the next wait would pass it, the
    call stops and its failure is stored (``resume`` asks again later), so ``Retry-After: 3600`` costs one capped
    wait per call at most, not ``max_attempts`` of them.
    """

    max_attempts: int = 6
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0
    max_total_wait_s: float = 300.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_retry_after_s)
        return min(self.max_delay_s, self.base_delay_s * 2**attempt) * rng.uniform(0.5, 1.0)


@dataclass
class CallOutcome:
    """The result of one unit: a reply, or the error it failed with after all attempts."""

    unit: str
    cache_key: str
    reply: ChatReply | None
    error: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.reply is not None


class Executor:
    """Runs the calls of one run against one model and persists each as it finishes."""

    def __init__(
        self,
        store: Store,
        run_id: str,
        client: LLMClient,
        *,
        concurrency: int = 8,
        retry: RetryPolicy | None = None,
        progress: ProgressTracker | None = None,
        seed: int = 0,
        client_factory: Callable[[ModelSpec], LLMClient] | None = None,
        waves: WaveCollector | None = None,
    ):
        self.store = store
        self.run_id = run_id
        self.client = client
        self.retry = retry or RetryPolicy()
        self.progress = progress or ProgressTracker()
        self._concurrency = max(1, concurrency)
        self._semaphore = asyncio.Semaphore(self._concurrency)
        self._rng = random.Random(seed)
        self._identity = client.spec.identity
        self._client_factory = client_factory or LLMClient
        self._others: dict[str, Executor] = {}
        self._owner_prefix = claim_owner(secrets.token_hex(4))
        self._owner_ids = itertools.count()
        #: Batch mode: requests not in the cache are handed to this collector, which sends them a wave at a time.
        self.waves = waves

    def for_model(self, spec: ModelSpec) -> Executor:
        """An Executor for another model of the same run (e.g. an evaluator): same store, run id, progress,
        retry policy and concurrency bound (its own semaphore: another endpoint). One per spec, built with
        ``client_factory``; ``close_others`` closes their clients. The run's own spec returns ``self``."""
        if spec == self.client.spec:
            return self
        key = spec.model_dump_json()
        if key not in self._others:
            self._others[key] = Executor(self.store, self.run_id, self._client_factory(spec), concurrency=self._concurrency,
                                         retry=self.retry, progress=self.progress, waves=self.waves)
        return self._others[key]

    async def close_others(self) -> None:
        """Close the clients of the executors made by ``for_model``."""
        others, self._others = list(self._others.values()), {}
        for other in others:
            await other.client.aclose()

    def call(self, unit: str, request: ChatRequest) -> Coroutine[Any, Any, CallOutcome]:
        """The reply for ``request`` (from cache or endpoint), persisted under ``unit``, once awaited.

        Before sending, the request is claimed in the store (``Store.claim_call``): when another process (or unit)
        is sending the same request, this one waits for its reply instead of paying for it twice, and sends it
        itself only if that claim is released (the call failed) or its lease runs out (the process died).

        A plain function returning the coroutine that does it: a wave of 100,000 waiting calls holds one suspended
        coroutine each, not two."""
        key = request.cache_key(self._identity)
        if self.waves is not None:
            return self._call_in_wave(unit, key, request)
        return self._call_live(unit, key, request)

    async def _call_live(self, unit: str, key: str, request: ChatRequest) -> CallOutcome:
        owner = f"{self._owner_prefix}-{next(self._owner_ids)}"  # one per call: duplicates in this process wait too
        while True:
            cached = await self._cached_or_claimed(key, owner)
            claimed_at = time.monotonic()
            if cached is not None:
                self.store.link_cached_call(self.run_id, unit, key)
                self.progress.update(done=1, cached=1)
                return CallOutcome(unit, key, cached, cached=True)
            try:
                async with self._semaphore:
                    reply, error, attempts = await self._attempt(request, key, owner, claimed_at)
            except BaseException:
                self.store.release_claim(key, owner)
                raise
            if error is not _CLAIM_LOST:
                break
            # the lease ran out during a long wait and another process claimed the request: wait for its reply
        if reply is not None:
            self.store.record_call(self.run_id, unit, key, self.client.spec.name, request, reply)  # ends the claim
            self.progress.update(done=1, tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, cost=reply.cost or 0.0)
            return CallOutcome(unit, key, reply)
        self.store.release_claim(key, owner)
        self.store.record_failure(self.run_id, unit, key, error or "unknown error", attempts)
        self.progress.update(done=1, failed=1)
        return CallOutcome(unit, key, None, error)

    async def _call_in_wave(self, unit: str, key: str, request: ChatRequest) -> CallOutcome:
        """Batch mode: the cached reply, else the reply its wave brings (``analysis.runs.waves``), stored as a live
        reply is. No claim is taken: a batch at the provider is the claim (``Store.open_batches``)."""
        cached = self.store.cached_reply(key)
        if cached is not None:
            self.store.link_cached_call(self.run_id, unit, key)
            self.progress.update(done=1, cached=1)
            return CallOutcome(unit, key, cached, cached=True)
        assert self.waves is not None
        try:
            reply = await self.waves.submit(unit, key, request, self.client)
        except CallError as exc:
            self.store.record_failure(self.run_id, unit, key, clip(str(exc), 1000), 1)
            self.progress.update(done=1, failed=1)
            return CallOutcome(unit, key, None, clip(str(exc), 1000))
        self.store.record_call(self.run_id, unit, key, self.client.spec.name, request, reply)
        self.progress.update(done=1, tokens_in=reply.tokens_in, tokens_out=reply.tokens_out, cost=reply.cost or 0.0)
        return CallOutcome(unit, key, reply)

    @property
    def _lease_s(self) -> float:
        return self.client.spec.timeout_s + CLAIM_MARGIN_S

    async def _cached_or_claimed(self, key: str, owner: str) -> ChatReply | None:
        """The cached reply, or None once ``owner`` holds the claim to send the request."""
        while True:
            cached = self.store.cached_reply(key)
            if cached is not None:
                return cached
            if self.store.claim_call(key, owner, self._lease_s):
                return None
            await asyncio.sleep(CLAIM_POLL_S)

    async def _attempt(self, request: ChatRequest, key: str, owner: str,
                       claimed_at: float) -> tuple[ChatReply | None, str | None, int]:
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            # renew the lease for this attempt, unless it was taken a moment ago (no wait for a slot or a retry since)
            fresh = attempt == 1 and time.monotonic() - claimed_at < self._lease_s / 3
            if not fresh and not self.store.claim_call(key, owner, self._lease_s):
                return None, _CLAIM_LOST, attempt  # lost (or answered) meanwhile: sending now would pay twice
            try:
                return await self.client.complete(request), None, attempt
            except CallError as exc:
                if not exc.retryable or attempt >= self.retry.max_attempts:
                    return None, clip(str(exc), 1000), attempt
                wait = self.retry.delay(attempt - 1, exc.retry_after, self._rng)
                if waited + wait > self.retry.max_total_wait_s:
                    return None, clip(f"{exc} (gave up: the next retry would wait {wait:.0f}s, past the "
                                      f"{self.retry.max_total_wait_s:.0f}s this call may wait in all)", 1000), attempt
                waited += wait
                await asyncio.sleep(wait)


async def run_units(units: Iterable[Callable[[], Awaitable[None]]], *, one_at_a_time: bool) -> None:
    """Run a method's independent units (conversations, questionnaires) concurrently, or one after another.

    With prefix reuse on, one unit at a time keeps its shared prefix in the embedded server's single KV-cache
    slot (interleaved units would evict each other's); the runner also sends such a run's calls one at a time, which
    fixes the order of the server's cache states, so a rebuild repeats the same numbers. The executor's semaphore
    bounds calls inside a unit.
    """
    if one_at_a_time:
        for unit in units:
            await unit()
    else:
        await asyncio.gather(*(unit() for unit in units))
