"""Waves run elsewhere: a plan's requests exported as a batch file, and the replies imported back.

``export-requests`` executes a run until its session awaits replies it does not have (the calls stored already are
replayed from the call cache, so their answers are stored too), writes that wave's requests in the OpenAI batch
format (``analysis.runs.batch_file``) and stops: the file runs on ``vllm run_batch``, on a Ray Data cluster, or on
any service that reads the format. ``import-replies`` reads the results, executes the run again, and answers the wave
it awaits from them, checked as a whole first: a line that is not JSON, a ``custom_id`` twice, a result for a
request the run does not await now (not in its plan, or not asked yet), a request it awaits that has no result, a
body that is not a chat completion, or one that names another model than its request was sent to
(``analysis.llm.model_ids``) is named, and nothing from the file is stored. A request's own error line is stored as
that call's failure (``resume`` or the next export asks it again). The run then goes on from the cache until it
awaits the next wave, which is exported again (``--out``) or counted, until the plan is done.

Bounded: the file is indexed (``analysis.runs.results_index``), not held; the awaited bodies are read back once and
checked, each reply kept pickled (a fifth of its line), and the wave is answered a chunk at a time
(``analysis.runs.answering``), each chunk stored by the sessions in one transaction before the next is unpacked. A
process killed during an import keeps the chunks stored; the same file imported again skips the lines of calls
stored already (the call cache) and answers the rest. An export writes its lines as they are made, to a temporary
file renamed when complete.
"""

from __future__ import annotations

import itertools
import pickle
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from analysis.errors import InputError
from analysis.importers.files import write_atomically
from analysis.llm.client import CallError
from analysis.runs.answering import Outcome, answer_in_chunks
from analysis.runs.batch_file import OtherModel, reply_to
from analysis.runs.batch_parts import sendable_lines
from analysis.runs.results_index import ResultsIndex
from analysis.runs.store import Store
from analysis.runs.waves import Pending, WaveStop

#: Replies checked and kept until used are pickled with this protocol (made and read by this process only).
_PROTOCOL = pickle.HIGHEST_PROTOCOL
#: Requests of a wave written at a time (``batch_lines`` makes a list of their lines).
EXPORT_CHUNK = 2000


def batch_lines(entries: list[Pending]) -> tuple[list[bytes], dict[str, Pending]]:
    """The request lines of ``entries`` (a part of an exported wave) and the entries they hold; a request that cannot
    be written (a NaN or inf parameter) is failed, never sent (``batch_parts.sendable_lines``)."""
    lines, written = [], {}
    for entry, line in sendable_lines(entries):
        lines.append(line)
        written[entry.key] = entry
    return lines, written


class ImportRefused(WaveStop):
    """The results file does not answer the wave the run awaits (the runner turns it into an ``InputError``)."""

    def __init__(self, message: str):
        BaseException.__init__(self, message)
        self.message = message
        self.wave, self.n_requests, self.note = 0, 0, ""


def models_note(counts: Counter[str]) -> str:
    return ", ".join(f"{n:,} for {model}" for model, n in counts.most_common())


class ExportWave:
    """The wave handler of ``export-requests``: writes the awaited requests to ``out`` (or only counts them when
    ``out`` is None) and stops the run there (``WaveStop``)."""

    def __init__(self, out: Path | None):
        self.out = out
        self.exported = 0

    async def __call__(self, wave: list[Pending]) -> None:
        models: Counter[str] = Counter()
        lines = self._lines(wave, models)
        first = next(lines, None)  # a wave none of whose requests can be written leaves ``out`` as it was
        if self.out is not None and first is not None:
            write_atomically(self.out, itertools.chain([first], lines))
        else:
            for _ in lines:
                pass
        self.exported = sum(models.values()) if self.out is not None else 0
        raise WaveStop(1, sum(models.values()), models_note(models))

    @staticmethod
    def _lines(wave: list[Pending], models: Counter[str]) -> Iterator[bytes]:
        """The request lines of ``wave``, made ``EXPORT_CHUNK`` at a time; ``models`` counts those written per model."""
        for start in range(0, len(wave), EXPORT_CHUNK):
            lines, written = batch_lines(wave[start:start + EXPORT_CHUNK])
            models.update(entry.client.spec.model for entry in written.values())
            yield from lines


class ImportReplies:
    """The wave handler of ``import-replies``: answers the first wave from ``results`` (all checked before any is
    used), then hands the next wave to ``then`` (export it, or count it)."""

    def __init__(self, results: ResultsIndex, where: str, then: ExportWave, store: Store):
        self.results, self.where, self.then, self.store = results, where, then, store
        self.answered = 0
        self.failed = 0
        self.skipped = 0  # lines of calls stored already (an import interrupted, then run again)
        self._used = False
        self._checked: dict[str, bytes | str] = {}

    async def __call__(self, wave: list[Pending]) -> None:
        if self._used:
            await self.then(wave)
            return
        self._used = True
        awaited = {e.key: e for e in wave}
        self._refuse_unmatched(awaited)
        self._checked = self._check(awaited)
        self.answered, self.failed = await answer_in_chunks(self.store, wave, self._unpacked)

    def _refuse_unmatched(self, awaited: dict[str, Pending]) -> None:
        """``ImportRefused`` for a line of a request the run does not await (unless its call is stored already) or
        an awaited request without a line."""
        unknown = [key for key in self.results if key not in awaited]
        stored = self.store.stored_calls(unknown) if unknown else set()
        self.skipped = len(stored)
        unknown = [key for key in unknown if key not in stored]
        if unknown:
            first = min(unknown, key=self.results.line)
            raise ImportRefused(f"{self.where}: line {self.results.line(first)}: custom_id {first[:12]}… is not a "
                                f"request this run awaits now (not in its plan, or not asked yet); {len(unknown)} such "
                                "lines; nothing was stored")
        missing = [key for key in awaited if key not in self.results]
        if missing:
            raise ImportRefused(f"{self.where}: no result for {len(missing)} of the {len(awaited)} requests the run "
                                f"awaits (the first: {missing[0][:12]}…); nothing was stored")

    def _check(self, awaited: dict[str, Pending]) -> dict[str, bytes | str]:
        """Every awaited body read back and turned into its reply: ``ImportRefused`` for the first that is not a
        usable chat completion, or for the replies of another model than their request's. Each reply is kept pickled
        (a fifth of its line; parsed, it took ~5× its line), each request's own error as its text."""
        checked: dict[str, bytes | str] = {}
        others: list[tuple[int, str]] = []  # (line, why)
        try:
            for result in self.results.read(awaited):
                if result.error is not None:
                    checked[result.custom_id] = result.error
                    continue
                entry = awaited[result.custom_id]
                try:
                    checked[entry.key] = pickle.dumps(reply_to(result, entry.client, entry.request), _PROTOCOL)
                except OtherModel as exc:
                    others.append((result.line, str(exc)))
                except CallError as exc:
                    raise ImportRefused(f"{self.where}: line {result.line}: not a usable chat completion ({exc}); "
                                        "nothing was stored") from None
        except InputError as exc:
            raise ImportRefused(f"{exc}; nothing was stored") from None
        if others:
            line, why = min(others)
            count = f"{len(others):,} such lines" if len(others) > 1 else "the only such line"
            raise ImportRefused(f"{self.where}: line {line}: {why} ({count}); nothing was stored")
        return checked

    def _unpacked(self, chunk: list[Pending]) -> dict[str, Outcome]:
        """The checked replies (or errors) of ``chunk``, let go here as they are handed over."""
        out: dict[str, Outcome] = {}
        for entry in chunk:
            kept = self._checked.pop(entry.key)
            out[entry.key] = CallError(kept, retryable=False) if isinstance(kept, str) else pickle.loads(kept)
        return out
