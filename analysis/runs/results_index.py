"""Results files indexed, not held: where each ``custom_id``'s line is, read back when its reply is used.

A wave of 100,000 logprob replies is ~370 MB of JSON lines; kept as bytes they took as much memory, parsed ~10× more.
``ResultsIndex.add`` reads a file once, checking every line as ``batch_file.checked_results`` does (a bad line is
named, or listed in ``problems``), and keeps per ``custom_id`` only its line's offset, length and number, and the
text of a request's own error; ``read`` reads a few lines back by offset and parses them again. The files must stay
open (and unchanged) while the index is used: a line that no longer holds its ``custom_id`` is named.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from analysis.errors import InputError
from analysis.runs.batch_file import Result, checked_results, file_lines_at, parse_result


@dataclass(frozen=True, slots=True)
class Located:
    """Where one result line is: its file (the n-th added), byte offset, length and line number, and the error the
    request ended with (None: a chat completion, read back when used)."""

    file: int
    offset: int
    length: int
    line: int
    error: str | None


class ResultsIndex:
    """The results of one or more files by ``custom_id`` (the first file holding a ``custom_id`` keeps it)."""

    def __init__(self) -> None:
        self._files: list[tuple[BinaryIO, str]] = []
        self._at: dict[str, Located] = {}

    def add(self, handle: BinaryIO, where: str, problems: list[str] | None = None) -> None:
        """Index the file ``handle`` (read from its start), named ``where`` in messages: ``InputError`` for a bad line
        (nothing is added), or with ``problems`` given, that line described there and skipped."""
        handle.seek(0)
        number, seen = len(self._files), {}
        for offset, length, result in checked_results(file_lines_at(handle), where, seen, problems):
            seen[result.custom_id] = Located(number, offset, length, result.line, result.error)
        self._files.append((handle, where))
        if not self._at:
            self._at = seen
            return
        for key, located in seen.items():
            self._at.setdefault(key, located)

    def __len__(self) -> int:
        return len(self._at)

    def __contains__(self, key: object) -> bool:
        return key in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def line(self, key: str) -> int:
        return self._at[key].line

    def read(self, keys: Iterable[str]) -> Iterator[Result]:
        """The results of ``keys`` (each indexed), read back in file order: an error line from the index, a chat
        completion parsed again. ``InputError`` naming the line when it is no longer the one indexed."""
        for key in sorted(keys, key=lambda k: (self._at[k].file, self._at[k].offset)):
            at = self._at[key]
            if at.error is not None:
                yield Result(key, None, at.error, at.line)
                continue
            handle, where = self._files[at.file]
            handle.seek(at.offset)
            result = parse_result(handle.read(at.length), at.line, where)
            if result.custom_id != key or result.body is None:
                raise InputError(f"{where}: line {at.line}: changed while it was read (custom_id {key[:12]}… was here)")
            yield result
