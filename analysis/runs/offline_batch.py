"""Waves run elsewhere: a plan's requests exported as a batch file, and the replies imported back.

``export-requests`` executes a run until its session awaits replies it does not have (the calls stored already are
replayed from the call cache, so their answers are stored too), writes that wave's requests in the OpenAI batch
format (``analysis.runs.batch_file``) and stops: the file runs on ``vllm run_batch``, on a Ray Data cluster, or on
any service that reads the format. ``import-replies`` reads the results, executes the run again, and answers the wave
it awaits from them, checked as a whole first: a line that is not JSON, a ``custom_id`` twice, a result for a
request the run does not await now (unknown, or answered already), a request it awaits that has no result, a body
that is not a chat completion, or one that names another model than its request was sent to
(``analysis.llm.model_ids``) is named, and nothing from the file is stored. A request's own error line is stored as
that call's failure (``resume`` or the next export asks it again). The run then goes on from the cache until it
awaits the next wave, which is exported again (``--out``) or counted, until the plan is done.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from analysis.llm.client import CallError, ChatReply
from analysis.importers.files import write_atomically
from analysis.runs.batch_file import OtherModel, Result, reply_to
from analysis.runs.provider_batch import batch_lines
from analysis.runs.waves import Pending, WaveStop


class ImportRefused(WaveStop):
    """The results file does not answer the wave the run awaits (the runner turns it into an ``InputError``)."""

    def __init__(self, message: str):
        BaseException.__init__(self, message)
        self.message = message
        self.wave, self.n_requests, self.note = 0, 0, ""


def models_note(entries: list[Pending]) -> str:
    counts = Counter(e.client.spec.model for e in entries)
    return ", ".join(f"{n:,} for {model}" for model, n in counts.most_common())


class ExportWave:
    """The wave handler of ``export-requests``: writes the awaited requests to ``out`` (or only counts them when
    ``out`` is None) and stops the run there (``WaveStop``)."""

    def __init__(self, out: Path | None):
        self.out = out
        self.exported = 0

    async def __call__(self, wave: list[Pending]) -> None:
        lines, written = batch_lines(wave)
        if self.out is not None and written:
            write_atomically(self.out, lines)
            self.exported = len(written)
        raise WaveStop(1, len(written), models_note(list(written.values())))


class ImportReplies:
    """The wave handler of ``import-replies``: answers the first wave from ``results`` (all checked before any is
    used), then hands the next wave to ``then`` (export it, or count it)."""

    def __init__(self, results: dict[str, Result], where: str, then: ExportWave):
        self.results, self.where, self.then = results, where, then
        self.answered = 0
        self.failed = 0
        self._used = False

    async def __call__(self, wave: list[Pending]) -> None:
        if self._used:
            await self.then(wave)
            return
        self._used = True
        awaited = {e.key: e for e in wave}
        unknown = [r for k, r in self.results.items() if k not in awaited]
        missing = [k for k in awaited if k not in self.results]
        if unknown:
            first = min(unknown, key=lambda r: r.line)
            raise ImportRefused(f"{self.where}: line {first.line}: custom_id {first.custom_id[:12]}… is not a request "
                                f"this run awaits now (answered already, or not in its plan); {len(unknown)} such "
                                "lines; nothing was stored")
        if missing:
            raise ImportRefused(f"{self.where}: no result for {len(missing)} of the {len(awaited)} requests the run "
                                f"awaits (the first: {missing[0][:12]}…); nothing was stored")
        replies: dict[str, ChatReply | CallError] = {}
        others: list[tuple[int, str]] = []  # (line, why): replies of another model than their request's
        for key, entry in awaited.items():
            result = self.results[key]
            if result.error is not None:
                replies[key] = CallError(result.error, retryable=False)
                continue
            try:
                replies[key] = reply_to(result, entry.client, entry.request)
            except OtherModel as exc:
                others.append((result.line, str(exc)))
            except CallError as exc:
                raise ImportRefused(f"{self.where}: line {result.line}: not a usable chat completion ({exc}); "
                                    "nothing was stored") from None
        if others:
            line, why = min(others)
            count = f"{len(others):,} such lines" if len(others) > 1 else "the only such line"
            raise ImportRefused(f"{self.where}: line {line}: {why} ({count}); nothing was stored")
        for key, entry in awaited.items():
            outcome = replies[key]
            if isinstance(outcome, CallError):
                self.failed += 1
                entry.fail(outcome)
            else:
                self.answered += 1
                entry.resolve(outcome)
