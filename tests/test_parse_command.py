"""``python -m analysis parse KIND``: every reader a method declares (``Method.readers``), run on the lines read by
hand in ``tests/methods/<m>/__init__.py`` (``PARSE_SAMPLES``), in a process of its own as users run it; bad input is
one line naming the stdin line, exit 2, and nothing on stdout."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis import methods

REPO = Path(__file__).resolve().parents[1]
KINDS = {r.kind: m.name for m in methods.all_methods() for r in m.readers}


def _samples(kind: str) -> list:
    return importlib.import_module(f"tests.methods.{KINDS[kind]}").PARSE_SAMPLES[kind]


def _parse(kind: str, lines: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "analysis", "parse", kind], input="\n".join(lines) + "\n", cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_every_method_offers_its_readers() -> None:
    """Each method declares at least one reader (a composite one's replies are its parts') and every reader has
    hand-read samples."""
    assert {m.name for m in methods.all_methods() if m.readers} == {m.name for m in methods.all_methods() if m.parts is None}
    assert all(_samples(kind) for kind in KINDS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_command_reads_as_the_runs_do(kind: str) -> None:
    samples = _samples(kind)
    done = _parse(kind, [json.dumps(line) for line, _ in samples])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(o["valid"], o["value"]) for o in out] == [expected for _, expected in samples]
    assert all(set(o) == {"valid", "value", "reason"} for o in out)
    assert all(o["reason"] for o in out if not o["valid"])  # invalid always says why
    reader = next(r for m in methods.all_methods() for r in m.readers if r.kind == kind)
    for (line, _), o in zip(samples, out):  # the same function the sessions call, in this process
        direct = reader.read(line["reply"], line.get("finish_reason"), {**reader.defaults, **line})
        assert (direct.valid, direct.value, direct.reason) == (o["valid"], o["value"], o["reason"])


@pytest.mark.parametrize("lines, needle", [
    (['{"reply": "Amount: $3"}', "not json"], "stdin line 2: not JSON"),
    (['{"text": "Amount: $3"}'], 'stdin line 1: needs a "reply" string'),
    (['{"reply": "Amount: $3", "endowment": "ten"}'], "stdin line 1:"),
])
def test_bad_input_is_one_line_and_prints_nothing(lines: list[str], needle: str) -> None:
    done = _parse("trust-amount", lines)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and needle in done.stderr, done.stderr


def test_a_missing_context_field_is_named() -> None:
    done = _parse("trust-forecast-upfront", ['{"reply": "{}"}'])
    assert done.returncode == 2 and "needs rounds" in done.stderr


DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "9" * 5000  # past Python's 4,300-digit limit on converting an integer


@pytest.mark.parametrize("line, needle", [
    ('{"reply": "Amount: $3", "x": ' + DEEP + "}", "stdin line 2: not JSON (nested too deeply)"),
    ("[" * 100_000, "stdin line 2: not JSON (nested too deeply)"),
    ('{"reply": "Amount: $3", "endowment": ' + HUGE + "}", "stdin line 2: not JSON (a number of more than 4,300 digits)"),
    ('{"reply": "Amount: $3", "x": [' + HUGE + "]}", "stdin line 2: not JSON (a number of more than 4,300 digits)"),
])
def test_deep_nesting_and_huge_integers_are_bad_input(line: str, needle: str) -> None:
    """Issue 58: a RecursionError and the integer-digits ValueError of the JSON parser were exit 1."""
    done = _parse("trust-amount", ['{"reply": "Amount: $3"}', line])
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and needle in done.stderr, done.stderr[:300]


def test_nesting_at_the_parsers_limit_is_read_or_refused_never_a_crash(monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Depths around Python's recursion limit (1,000 frames, some already in use): each line is read (exit 0) or
    refused in one line (exit 2), whatever the stack holds when it is read."""
    import io
    import sys as _sys

    from analysis.__main__ import main

    limit = _sys.getrecursionlimit()
    codes = set()
    for depth in range(limit - 150, limit + 10, 4):
        line = json.dumps({"reply": "Amount: $3"})[:-1] + ', "x": ' + "[" * depth + "]" * depth + "}"
        monkeypatch.setattr("sys.stdin", io.StringIO(line + "\n"))
        code = main(["parse", "trust-amount"])
        captured = capsys.readouterr()
        assert code in (0, 2), (depth, captured.err)
        if code == 2:
            assert captured.err == "error: stdin line 1: not JSON (nested too deeply)\n" and captured.out == ""
        codes.add(code)
    assert codes == {0, 2}
    for digits in (4300, 4301):
        monkeypatch.setattr("sys.stdin", io.StringIO('{"reply": "Amount: $3", "x": ' + "9" * digits + "}\n"))
        assert main(["parse", "trust-amount"]) == (0 if digits == 4300 else 2)
        assert capsys.readouterr().err.count("\n") == (0 if digits == 4300 else 1)
