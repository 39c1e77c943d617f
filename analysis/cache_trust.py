"""Whether a document kept in a store (a cached report, a part of the null draws) may be believed.

A store is a file anyone can write: one handed over by someone else may hold a "cached report" it never computed (a
forged ``n_answers``, null draws that flip a chance verdict), or an entry that is no document at all. So an entry is
used only when every rule holds, and is computed again otherwise (never an error, never a non-document):

- **sealed by this user**: each entry carries ``mac``, an HMAC-SHA256 of its table, its key and its bytes under a
  secret kept in the user's config folder (``secret``: ``$ROLESCOPE_CACHE_KEY_FILE``, default
  ``~/.config/rolescope/cache-key``, 32 random bytes created on first use, readable by the user only). An entry
  another user (or no one) sealed is a miss: a store handed over gets its reports recomputed, the user's own stay valid;
- **bounded**: the document is stored as a BLOB and one larger than ``MAX_ENTRY_BYTES`` is never loaded (its size is
  read with SQL ``length()``, which for a BLOB reads the record header, not the bytes); an entry stored as anything but
  a BLOB (an older RoleScope's TEXT, a forged one) is a miss without loading it either;
- **well-formed**: the caller parses it and checks its schema (``analysis.report_cache``, ``analysis.chance``).

When the config folder cannot be written, or the key file could have been read or written by someone else
(``checked_key``: a regular file of this user's, mode 0600 or stricter, in a folder others cannot write; never a FIFO
or a device, which would hang or grow without bound), a key made for this process only is used, with one line on
stderr saying why: entries it writes are believed by this process, and computed again by the next one (slower, never
wrong). Standard library only: the bundled demo's
unpacking seals its entries too (``analysis.demo_store``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import stat
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

KEY_ENV = "ROLESCOPE_CACHE_KEY_FILE"
#: The largest cached document read back (bytes); a larger one is computed again, never loaded. The bundled demo's
#: largest report is ~0.7 MB, its largest part of the null draws ~70 kB.
MAX_ENTRY_BYTES = 16 * 1024 * 1024
#: The tables of sealed documents: table -> (key column, document column).
SEALED_TABLES = {"report_cache": ("key", "doc"), "null_draws": ("design_key", "draws")}


class Queryable(Protocol):
    def query_one(self, sql: str, params: Any = ()) -> dict[str, Any] | None: ...


def key_path() -> Path:
    """Where the user's secret is kept: ``$ROLESCOPE_CACHE_KEY_FILE``, else ``$XDG_CONFIG_HOME`` (default
    ``~/.config``) ``/rolescope/cache-key``."""
    if os.environ.get(KEY_ENV):
        return Path(os.environ[KEY_ENV]).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(config) / "rolescope" / "cache-key"


def secret() -> bytes:
    """The user's secret (``key_path``), created on first use; a key of this process only when it cannot be kept."""
    return _secret_at(str(key_path()))


@lru_cache(maxsize=8)
def _secret_at(path: str) -> bytes:
    try:
        return _read_or_create(Path(path))
    except UntrustedKey as why:
        print(f"rolescope: the cache key {path} is not used ({why}); cached reports are sealed for this process "
              "only and computed again by the next one", file=sys.stderr)
    except (OSError, ValueError):
        pass  # an unwritable config folder
    return secrets.token_bytes(32)  # believed by this process only


class UntrustedKey(OSError):
    """A key file another user could have written or read (``checked_key``)."""


#: The most a key file may hold (a key is 64 hex digits and a newline): a larger file is no key of ours.
MAX_KEY_BYTES = 256


def checked_key(path: Path) -> bytes:
    """The key in ``path``, only when no one else could have read or written it: a regular file (not a FIFO, a device
    or a link to one: opened without blocking, checked on the open file), owned by this user, with no permission for
    group or others (0600 or stricter), in a folder group and others cannot write; at most ``MAX_KEY_BYTES`` read.
    ``UntrustedKey`` says which rule failed."""
    folder = path.parent.stat()
    if folder.st_mode & 0o022:
        raise UntrustedKey(f"its folder is writable by others (mode {stat.S_IMODE(folder.st_mode):04o})")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UntrustedKey("not a regular file")
        if info.st_uid != os.getuid():
            raise UntrustedKey("owned by another user")
        if info.st_mode & 0o077:
            raise UntrustedKey(f"mode {stat.S_IMODE(info.st_mode):04o}: readable or writable by others (needs 0600)")
        raw = os.read(fd, MAX_KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(raw) > MAX_KEY_BYTES:
        raise UntrustedKey(f"larger than {MAX_KEY_BYTES} bytes")
    return raw


def _read_or_create(path: Path) -> bytes:
    """The key in ``path``; when there is none, a new one written beside it and linked into place (``os.link`` fails
    when another process got there first: both then read the same key, never half a file)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32))
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
    key = bytes.fromhex(checked_key(path).decode("ascii").strip())
    if len(key) < 16:
        raise OSError(f"{path}: too short to be a key")
    return key


def seal(table: str, key: str, doc: bytes) -> str:
    """The ``mac`` of the document ``doc`` kept in ``table`` under ``key`` (bound to all three: an entry moved to
    another key or table no longer verifies)."""
    message = b"\0".join((b"rolescope-cache-1", table.encode(), key.encode(), doc))
    return hmac.new(secret(), message, hashlib.sha256).hexdigest()


def read_sealed(source: Queryable, table: str, key: str) -> bytes | None:
    """The bytes kept in ``table`` under ``key`` when they are a BLOB of at most ``MAX_ENTRY_BYTES`` sealed by this
    user (``seal``); None otherwise (absent, too large, not a BLOB, unsealed, sealed by someone else, unreadable)."""
    key_col, doc_col = SEALED_TABLES[table]
    try:
        head = source.query_one(
            f'SELECT CASE WHEN typeof("{doc_col}") = \'blob\' THEN length("{doc_col}") END AS n, mac '
            f'FROM "{table}" WHERE "{key_col}" = ?', (key,))
        if head is None or head["n"] is None or head["n"] > MAX_ENTRY_BYTES or not isinstance(head["mac"], str):
            return None
        row = source.query_one(f'SELECT "{doc_col}" AS doc FROM "{table}" WHERE "{key_col}" = ?', (key,))
    except sqlite3.Error:
        return None  # a table without ``mac`` (an older store), a damaged one: a miss
    doc = None if row is None else row["doc"]
    if not isinstance(doc, bytes) or len(doc) > MAX_ENTRY_BYTES:
        return None  # changed between the two reads
    return doc if hmac.compare_digest(seal(table, key, doc), head["mac"]) else None


def read_sealed_object(source: Queryable, table: str, key: str) -> dict[str, Any] | None:
    """``read_sealed`` parsed, when it is a JSON object; None otherwise (absent, unsealed, too large, not JSON, a JSON
    list, number or string)."""
    raw = read_sealed(source, table, key)
    if raw is None:
        return None
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def reseal(conn: sqlite3.Connection) -> int:
    """Seal, with this user's secret, every BLOB document of ``conn``'s sealed tables that has a ``mac`` column (a
    store this user takes as their own: the bundled demo, unpacked from the repository's archive). Returns how many."""
    done = 0
    for table, (key_col, doc_col) in SEALED_TABLES.items():
        columns = {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}
        if not {key_col, doc_col, "mac"} <= columns:
            continue
        rows = conn.execute(f'SELECT "{key_col}", "{doc_col}" FROM "{table}" WHERE typeof("{doc_col}") = \'blob\' '
                            f'AND length("{doc_col}") <= ?', (MAX_ENTRY_BYTES,)).fetchall()
        conn.executemany(f'UPDATE "{table}" SET mac = ? WHERE "{key_col}" = ?',
                         [(seal(table, k, d), k) for k, d in rows])
        done += len(rows)
    conn.commit()
    return done


def key_id() -> str:
    """A short public name of this user's secret (not the secret: an HMAC of a constant)."""
    return hmac.new(secret(), b"rolescope-key-id", hashlib.sha256).hexdigest()[:8]
