"""Outside inputs are read with bounds (issue 58, item 5): a results file's lines are never buffered past
``MAX_LINE_BYTES`` (a 500 MB line is skipped as it streams, then refused by line number), and a provider's output file
is streamed to a file with a byte cap and an overall deadline."""

from __future__ import annotations

import asyncio
import io
from types import SimpleNamespace

import pytest

from analysis.errors import InputError
from analysis.llm.client import CallError
from analysis.runs import provider_batch
from analysis.runs.batch_file import LineSplitter, Oversized, checked_results, file_lines


def test_lines_split_across_chunks_and_an_oversized_one_is_never_held():
    splitter = LineSplitter(max_line=8)
    out = splitter.feed(b"abc\r\nde") + splitter.feed(b"f\n" + b"x" * 5) + splitter.feed(b"y" * 20 + b"\nok")
    out += splitter.close()
    assert out[:2] == [b"abc", b"def"] and out[3] == b"ok"
    assert isinstance(out[2], Oversized) and len(out[2]) == 25
    assert len(splitter._buffer) == 0  # noqa: SLF001 - nothing held after the stream


def test_a_line_at_the_limit_is_read_and_one_byte_past_it_is_refused_by_number():
    at = io.BytesIO(b"a" * 16 + b"\n" + b"b" * 17 + b"\n")
    lines = list(file_lines(at, max_line=16))
    assert lines[0] == b"a" * 16 and isinstance(lines[1], Oversized)
    with pytest.raises(InputError, match=r"replies.jsonl: line 1: over .* bytes, more than a result may hold"):
        list(checked_results([(0, Oversized(10**9))], "replies.jsonl", {}))


class _Stream:
    """A files.with_streaming_response.content(...) stand-in yielding ``chunks`` (after ``delay`` s each)."""

    def __init__(self, chunks: list[bytes], delay: float = 0.0) -> None:
        self.chunks, self.delay = chunks, delay

    async def __aenter__(self) -> _Stream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def iter_bytes(self):
        for chunk in self.chunks:
            await asyncio.sleep(self.delay)
            yield chunk


def _client(chunks: list[bytes], delay: float = 0.0) -> SimpleNamespace:
    content = lambda file_id: _Stream(chunks, delay)  # noqa: E731
    return SimpleNamespace(openai=SimpleNamespace(files=SimpleNamespace(
        with_streaming_response=SimpleNamespace(content=content))))


def _downloaded(chunks: list[bytes], **limits: float) -> list[bytes | Oversized]:
    """The non-blank lines of a provider file streamed to a file (``download_file``), as the indexer reads them."""
    into = io.BytesIO(b"left from before")
    asyncio.run(provider_batch.download_file(_client(chunks, limits.pop("delay", 0.0)), "file-1", into, **limits))
    into.seek(0)
    return [line for line in file_lines(into) if line.strip()]


def test_a_provider_file_at_the_byte_cap_is_read_and_past_it_refused():
    chunks = [b"\n" * 50, b'{"custom_id": "x"}\n', b"\n" * 31]  # 100 bytes, blank lines skipped when read
    assert _downloaded(chunks, max_bytes=100) == [b'{"custom_id": "x"}']
    with pytest.raises(CallError, match="file-1: more than 99 bytes: not read on"):
        _downloaded(chunks, max_bytes=99)


def test_a_provider_file_trickling_past_the_deadline_is_refused():
    slow = [b"x"] * 100
    with pytest.raises(CallError, match="file-1: download took more than 0 s"):
        _downloaded(slow, delay=0.01, deadline_s=0.2)
