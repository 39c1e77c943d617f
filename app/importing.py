"""Uploaded files -> the analysis importers (size-limited, validated, one clear line per problem)."""

from __future__ import annotations

import hashlib
import re
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from analysis.errors import InputError, RoleScopeError
from analysis.importers.files import decode, parse_json
from analysis.runs.store import Store
from app.methods.base import ImportKind

MAX_FILE_MB = 20


def kinds() -> dict[str, ImportKind]:
    """Every format a method's view imports (``MethodView.imports``), by key."""
    from app.methods import views

    return {kind.key: kind for view in views() for kind in view.imports}


@dataclass(frozen=True)
class ImportOutcome:
    ok: bool
    lines: list[str]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "upload"


def check_size(name: str, size: int, limit_mb: int = MAX_FILE_MB) -> None:
    if size > limit_mb * 1024 * 1024:
        raise InputError(f"{name}: {size / 1e6:.1f} MB is over the {limit_mb} MB limit; "
                         "use the CLI (python -m analysis import) for large files")
    if size == 0:
        raise InputError(f"{name}: the file is empty")


def _strings(doc: object) -> Iterator[str]:
    """Every string of a parsed JSON document, keys included (iteratively: a deep document is no problem)."""
    stack = [doc]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def check_text(name: str, content: bytes) -> None:
    """An uploaded JSON file must be UTF-8 and hold no lone surrogate escape (``"\\ud800"`` parses into a string no
    store or page can encode): an InputError naming the file otherwise. Other JSON errors are left to the importer,
    which names them; CSV files are read by their importer (UTF-8, else Windows-1252: neither yields a surrogate)."""
    if not name.lower().endswith(".json"):
        return
    text = decode(content, name)
    try:
        doc = parse_json(text, name)
    except InputError:
        return
    for string in _strings(doc):
        try:
            string.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InputError(f"{name}: a lone surrogate (\\u{ord(string[exc.start]):04x}) in a JSON string is not text; "
                             "nothing was imported") from None


def check_store_text(path: Path, name: str) -> None:
    """Every text cell of a store file decodes as UTF-8 (else each page reading it would fail): an InputError naming
    the file, table and column otherwise."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            quoted = '"' + table.replace('"', '""') + '"'
            columns = [r[1] for r in con.execute(f"PRAGMA table_info({quoted})")]
            for column in columns:
                col = '"' + column.replace('"', '""') + '"'
                for (blob,) in con.execute(f"SELECT CAST({col} AS BLOB) FROM {quoted} WHERE typeof({col}) = 'text'"):
                    try:
                        blob.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        raise InputError(f"{name}: table {table}, column {column} holds text that is not UTF-8 "
                                         f"(byte {exc.start}); not opened") from None
    except sqlite3.Error as exc:
        raise InputError(f"{name}: cannot be read ({exc}); not opened") from None
    finally:
        con.close()


def import_uploads(store: Store, kind: str, files: list[tuple[str, bytes]], folder: str) -> ImportOutcome:
    """Write the uploads to a temporary ``<folder>/`` (the importers read the context label or model
    name from the folder) and import them into ``store``. Never raises for bad input."""
    spec = kinds().get(kind)
    if spec is None:
        return ImportOutcome(False, [f"unknown import kind '{kind}'"])
    if not files:
        return ImportOutcome(False, ["choose at least one file"])
    if not folder.strip():
        return ImportOutcome(False, [f"{spec.folder_hint} is empty"])
    try:
        for name, content in files:
            check_size(name, len(content))
            if not name.lower().endswith(spec.extensions):
                raise InputError(f"{name}: expected a .{' / .'.join(spec.extensions)} file for {spec.label}")
            check_text(name, content)
    except InputError as exc:
        return ImportOutcome(False, [str(exc)])
    with tempfile.TemporaryDirectory(prefix="rolescope-import-") as tmp:
        label = _safe(folder.strip())
        paths = []
        for k, (name, content) in enumerate(files):
            where = Path(tmp) / (f"{label}-{k}" if spec.folder_per_file and len(files) > 1 else label)
            where.mkdir(exist_ok=True)
            target = where / (spec.file_name or _safe(name))
            target.write_bytes(content)
            paths.append(target)
        try:
            ok, lines = spec.load(store, paths)
            return ImportOutcome(ok, [line.replace(str(Path(tmp)) + "/", "").replace(str(Path(tmp)), "") for line in lines])
        except RoleScopeError as exc:
            return ImportOutcome(False, [str(exc).replace(str(Path(tmp)) + "/", "")])
        except UnicodeError as exc:  # text no check above foresaw: still one line, nothing imported
            names = ", ".join(name for name, _ in files)
            return ImportOutcome(False, [f"{names}: holds text that cannot be stored ({type(exc).__name__}); "
                                         "nothing was imported"])


def save_store_upload(content: bytes, name: str, folder: Path) -> Path:
    """Validate an uploaded store file (opens read-only, checks the schema) and keep it under ``folder``."""
    check_size(name, len(content), limit_mb=200)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{Path(_safe(name)).stem}-{hashlib.sha256(content).hexdigest()[:10]}.db"
    if not path.exists():
        path.write_bytes(content)
    try:
        Store(path, read_only=True).close()
        check_store_text(path, name)
    except RoleScopeError:
        path.unlink(missing_ok=True)
        raise
    return path
