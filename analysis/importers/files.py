"""Reading user files safely, and expanding the PATH... arguments of ``import``.

Every loader and importer reads through ``read_bytes`` / ``read_text`` / ``load_json``, so every bad file gets one
clear ``InputError`` naming it and the reason, never a traceback or a hang:

- only regular files are read: a folder, a FIFO (opening one would block forever), a device or a socket is refused;
  a missing file, a symlink loop and a permission problem are told apart;
- text must decode in the given encodings (UTF-8 by default), else the byte offset is named;
- CSV is read through ``csv_rows``: a malformed record or a field longer than ``csv.field_size_limit()`` (131,072
  characters) names the file and the row;
- JSON is parsed with NaN / Infinity refused (not JSON, and never a valid score), and a document nested too deeply
  (Python's parser recurses) or holding a number too long to convert (Python caps int digits) is refused; one line
  of a JSON-lines input (standard input, a batch results file) is read by ``parse_json_line``, which refuses the
  same, naming the line.

A file the user names for output (``report --out``, ``export-requests --out``) is checked by ``check_out_file`` (a
folder, a missing folder, and unless forced a symbolic link, FIFO, device or socket are refused) and written by
``write_atomically``: a temporary file in the target's folder renamed over the path, so a reader never sees half a
file and what is at the path is replaced, never written through.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from analysis.errors import InputError

#: Files larger than this are refused (RoleScope's inputs are instruments, personas, answer files: megabytes).
MAX_BYTES = 1 << 30


def check_regular_file(path: Path) -> os.stat_result:
    """The stat of a regular file at ``path`` (symlinks followed), or an InputError saying what is there instead."""
    try:
        info = path.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise InputError(f"{path}: broken symbolic link") from None
        raise InputError(f"{path}: file not found") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{path}: symbolic link loop") from None
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: is a folder, expected a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: is {_kind(info.st_mode)}, not a regular file")
    if info.st_size > MAX_BYTES:
        raise InputError(f"{path}: {info.st_size} bytes, more than the {MAX_BYTES} a RoleScope input may have")
    return info


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a regular file (see module docstring)."""
    path = Path(path).expanduser()
    check_regular_file(path)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None


def decode(content: bytes, path: str | Path, encodings: Sequence[str] = ("utf-8-sig",)) -> str:
    """``content`` decoded with the first encoding that fits, else an InputError naming the file and byte."""
    error: UnicodeDecodeError | None = None
    for encoding in encodings:
        try:
            return content.decode(encoding)
        except UnicodeDecodeError as exc:
            error = error or exc
    names = " or ".join(e.replace("-sig", "") for e in encodings).upper()
    raise InputError(f"{path}: not {names} text (byte {error.start if error else '?'})")


def read_text(path: str | Path, encodings: Sequence[str] = ("utf-8-sig",)) -> str:
    """The text of a regular file in one of ``encodings`` (see module docstring)."""
    return decode(read_bytes(path), path, encodings)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(r"(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogate(doc: Any) -> str | None:
    """The first string (or key) of a parsed document holding a lone surrogate (JSON's ``"\\ud800"``: not a character,
    no UTF-8 encoding, so SQLite and every writer refuse it), else None. Iterative: documents may nest deeply."""
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _surrogate_error(text: str, path: str | Path, bad: str) -> InputError:
    code = f"\\u{ord(_SURROGATE.search(bad).group()):04x}"  # type: ignore[union-attr]
    where = ""
    for match in _ESCAPED_SURROGATE.finditer(text):
        if match.group().lower().endswith(code[1:]):
            line = text.count("\n", 0, match.start()) + 1
            where = f" at line {line}, column {match.end() - 6 - (text.rfind(chr(10), 0, match.start()) + 1) + 1}"
            break
    return InputError(f"{path}: invalid JSON text: a string holds {code}{where}, a lone surrogate (half of a UTF-16 "
                      "pair), not a character")


def _refusal(exc: RecursionError | ValueError) -> str:
    """Why ``json.loads`` refused a document, in a few words: nested past Python's stack, an integer longer than Python
    converts (``sys.get_int_max_str_digits``), bytes that are not UTF-8, a refused NaN/Infinity."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "integer string conversion" in text:
        return f"a number of more than {sys.get_int_max_str_digits():,} digits"
    return text[:120]


def parse_json_line(raw: str | bytes, where: str, *, constants: Callable[[str], Any] | None = None) -> Any:
    """One line of a JSON-lines input (standard input, a batch results file), or an InputError ``"<where>: not JSON
    (<why>)"``: malformed, nested too deeply, a number too long to convert, not UTF-8. Every reader of JSON lines from
    outside goes through it, so none of these leaves as a RecursionError or a bare ValueError (exit 1).

    ``constants``: as for ``parse_json`` (``float`` keeps NaN and Infinity as floats, for the caller to judge)."""
    try:
        return json.loads(raw, parse_constant=constants or _no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not JSON ({exc.msg})") from None
    except (RecursionError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        raise InputError(f"{where}: not JSON ({_refusal(exc)})") from None


def parse_json(text: str, path: str | Path, *, constants: Callable[[str], Any] | None = None) -> Any:
    """A JSON document, or an InputError naming the file and the reason (line and column when known). A string
    holding a lone surrogate (``"\\ud800"``) is refused: it cannot be stored or written as UTF-8.

    ``constants``: for a format known to hold them, what ``NaN``, ``Infinity`` and ``-Infinity`` become (called with
    the name; e.g. a marker the caller then stores as invalid); by default they are refused."""
    try:
        doc = json.loads(text, parse_constant=constants or _no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno} ({exc.msg})") from None
    except (RecursionError, ValueError) as exc:
        raise InputError(f"{path}: invalid JSON ({_refusal(exc)})") from None
    bad = _lone_surrogate(doc) if _SURROGATE.search(text) or "\\u" in text else None
    if bad is not None:
        raise _surrogate_error(text, path, bad)
    return doc


def load_json(path: str | Path, encodings: Sequence[str] = ("utf-8-sig",)) -> Any:
    """A JSON file (``read_text`` + ``parse_json``)."""
    return parse_json(read_text(path, encodings), path)


def expand_paths(paths: Sequence[str | Path], pattern: str, *, what: str,
                 accept: Callable[[Path], bool] = lambda p: True) -> list[Path]:
    """Files given directly, plus ``pattern`` matches below each folder; duplicates dropped, order kept.

    A folder without a match, a missing path, a FIFO, a symlink loop is an InputError naming it (``what`` describes the
    files).
    """
    files: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            found = [p for p in sorted(path.rglob(pattern)) if p.is_file() and accept(p)]
            if not found:
                raise InputError(f"{path}: no {what} in this folder")
            files.extend(found)
        else:
            check_regular_file(path)
            files.append(path)
    unique: dict[Path, Path] = {}
    for f in files:
        unique.setdefault(f.resolve(), f)
    return list(unique.values())


def csv_rows(reader: Iterable[Any], path: str | Path) -> list[Any]:
    """Every row of a ``csv.reader`` / ``csv.DictReader``, or an InputError naming the file, the row (the header is
    row 1) and the line it starts on: a field longer than ``csv.field_size_limit()`` or, with ``strict=True``, a
    malformed record (a quoted cell cut off)."""
    rows: list[Any] = []
    count, start = 0, 1  # rows read (the header included) and the line the next one starts on
    try:
        if isinstance(reader, csv.DictReader):
            _ = reader.fieldnames  # the header is read here; a bad header is row 1
            count, start = (1, reader.line_num + 1) if reader.fieldnames is not None else (0, 1)
        for row in reader:
            rows.append(row)
            count, start = count + 1, reader.line_num + 1  # type: ignore[attr-defined]
    except csv.Error as exc:
        where = f"row {count + 1} (line {start})"
        if "field larger than field limit" in str(exc):
            raise InputError(f"{path}: {where} has a field longer than {csv.field_size_limit():,} characters "
                             "(the CSV field size limit)") from None
        raise InputError(f"{path}: not a readable CSV file ({where}: {exc})") from None
    return rows


def read_csv_rows(path: Path, required: Sequence[str]) -> list[dict[str, str]]:
    """The rows of a CSV file with a header, as dicts of stripped strings (column names lower-cased); a missing
    required column, an empty file or an unreadable row (``csv_rows``) is an InputError naming the file."""
    text = read_text(path)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    records = csv_rows(reader, path)
    columns = [c.strip().lower() for c in reader.fieldnames or []]
    missing = [c for c in required if c not in columns]
    if missing:
        raise InputError(f"{path}: CSV without column(s) {', '.join(missing)} (header: {', '.join(columns) or 'none'})")
    rows = [{k.strip().lower(): (v or "").strip() for k, v in row.items() if k is not None} for row in records]
    if not rows:
        raise InputError(f"{path}: CSV has a header but no rows")
    return rows


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return ("a symbolic link" if stat.S_ISLNK(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a folder" if stat.S_ISDIR(mode) else "a device")


def check_out_file(path: Path, option: str, *, force: bool = False, expected: str = "a file") -> Path:
    """``path`` (``~`` expanded) as a file to write, or an ``InputError`` naming ``option`` and the path: a folder, a
    path whose folder does not exist, and unless ``force`` a symbolic link, a FIFO, a device or a socket (``force``
    replaces them: the link itself, never its target)."""
    path = path.expanduser()
    try:
        info = path.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise InputError(f"{option} {path}: cannot use this path ({exc.strerror})") from None
    kind = None if info is None else _kind(info.st_mode)
    if kind == "a folder":
        raise InputError(f"{option} {path}: is a folder, expected {expected}")
    if kind is not None and not force:
        raise InputError(f"{option} {path}: is {kind}, not a regular file; give --force to replace it (it is never "
                         "written through)")
    if not path.parent.is_dir():
        raise InputError(f"{option} {path}: folder {path.parent} does not exist")
    return path


def _new_file_mode() -> int:
    """The mode a file created now gets (0o666 less the umask); ``mkstemp`` makes its files 0o600."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: Path, chunks: Iterable[bytes]) -> None:
    """Write ``chunks`` to ``path`` through a temporary file in its folder (created if missing), renamed over ``path``
    when complete: a reader never sees half a file, and whatever is at ``path`` is replaced, not written through."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
        os.chmod(tmp, _new_file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
