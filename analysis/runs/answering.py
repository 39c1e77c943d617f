"""A wave answered from indexed results files a chunk at a time, so its replies never all live at once.

A handler that answered 100,000 requests at once held 100,000 replies (each with its parsed logprobs) until the
sessions had stored them all. ``answer_in_chunks`` reads ``CHUNK`` results back (``ResultsIndex.read``), gives them to
the waiting sessions and lets them run until they wait again (``waves.until_idle``): they store each reply and its
answer, in one transaction per chunk (``Store.grouped``), and let it go before the next chunk is read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from analysis.errors import InputError
from analysis.llm.client import CallError, ChatReply
from analysis.runs.batch_file import OtherModel, reply_to
from analysis.runs.waves import Pending, until_idle

if TYPE_CHECKING:
    from analysis.runs.results_index import ResultsIndex
    from analysis.runs.store import Store

#: Requests answered at a time: their replies are stored (one transaction) before the next are read.
CHUNK = 2000

Outcome = ChatReply | CallError


def read_replies(results: ResultsIndex, chunk: list[Pending], *, label: str = "",
                 batch_price: bool = False) -> dict[str, Outcome]:
    """The reply to each entry of ``chunk`` (each has a result in ``results``), or why it has none: the request's own
    error, a body that is not a usable chat completion, or one naming another model (``label`` opens that message).
    ``batch_price``: the reply is priced at the model's batch price. A line that is no longer the one indexed fails
    its call and those not read yet."""
    by_key = {entry.key: entry for entry in chunk}
    out: dict[str, Outcome] = {}
    try:
        for result in results.read(by_key):
            entry = by_key[result.custom_id]
            if result.error is not None:
                out[entry.key] = CallError(result.error, retryable=False)
                continue
            try:
                reply = reply_to(result, entry.client, entry.request)
            except OtherModel as exc:  # paid for, but not this model's reply: not stored as the run's answer
                out[entry.key] = CallError(f"{label}line {result.line}: {exc}", retryable=False)
                continue
            except CallError as exc:
                out[entry.key] = exc
                continue
            if batch_price:
                reply.cost = entry.client.spec.batch_cost(reply.tokens_in, reply.tokens_out)
            out[entry.key] = reply
    except InputError as exc:
        failure = CallError(str(exc), retryable=False)
        out |= {key: failure for key in by_key if key not in out}
    return out


async def answer_in_chunks(store: Store, entries: list[Pending],
                           replies: Callable[[list[Pending]], dict[str, Outcome]]) -> tuple[int, int]:
    """Answer ``entries`` ``CHUNK`` at a time with ``replies(chunk)``; each chunk is stored by the sessions in one
    transaction before the next is read. Returns (answered, failed)."""
    answered = failed = 0
    for start in range(0, len(entries), CHUNK):
        chunk = entries[start:start + CHUNK]
        with store.grouped():
            failures = _hand_over(chunk, replies(chunk))
            answered, failed = answered + len(chunk) - failures, failed + failures
            await until_idle()
    return answered, failed


def _hand_over(chunk: list[Pending], outcomes: dict[str, Outcome]) -> int:
    """Settle each entry of ``chunk`` with its outcome (nothing of them is kept here); returns how many failed."""
    failures = 0
    for entry in chunk:
        outcome = outcomes.pop(entry.key)
        if isinstance(outcome, CallError):
            failures += 1
            entry.fail(outcome)
        else:
            entry.resolve(outcome)
    return failures
