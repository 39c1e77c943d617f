"""Where the bundled demo store lives: an xz archive in git, unpacked once on first use.

The store itself (~75 MB: every request, reply and kept logprob of the campaign, and the imported real models'
numbers) is too large for every clone to carry once per rebuild; xz (the standard library's ``lzma``) brings it to
under a tenth. ``demo build`` writes both the store (``data/demo/rolescope-demo.db``, git-ignored) and the archive
(``rolescope-demo.db.xz``, committed), the archive only when the store's content changed (``content_digest``).
A clone has only the archive: ``bundled_demo_store`` unpacks it into ``.cache/demo/`` under a name that
carries the archive's hash, so a new archive is unpacked again and an old one is never reused.
The reports and null draws the archive ships (``analysis.report_cache``) are believed only when sealed by the user
reading them (``analysis.cache_trust``); the archive is part of the repository, trusted as its code is, so unpacking
seals them with this user's secret (the name also carries the secret's public id: another user, or a new secret,
unpacks a copy of their own). A store handed over is never sealed so: its reports are computed again.
Standard library only: the dashboard calls this at start-up.
"""

from __future__ import annotations

import hashlib
import lzma
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

from analysis.cache_trust import key_id, reseal

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO_STORE = REPO_ROOT / "data/demo/rolescope-demo.db"
DEMO_ARCHIVE = DEMO_STORE.with_name(DEMO_STORE.name + ".xz")
UNPACK_DIR = REPO_ROOT / ".cache/demo"


#: Columns that record when or how fast, not what: two builds of the same campaign differ only in them
#: (``cached_tokens``: how much of a prompt the server's KV cache held is accounting, not a result; ``mac``: who
#: sealed a cached document, ``analysis.cache_trust``).
NOT_CONTENT = frozenset({"created_at", "started_at", "finished_at", "updated_at", "latency_s", "cached_tokens",
                         "expires_at", "mac"})


def content_digest(store: Path) -> str:
    """SHA-256 of every table's rows (sorted, wall-clock columns ``NOT_CONTENT`` left out): equal for two builds
    that reproduce the same rows, whatever their page layout or timing."""
    digest = hashlib.sha256()
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name != 'sqlite_sequence' ORDER BY name")]
        for table in tables:
            cols = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")') if r[1] not in NOT_CONTENT]
            digest.update(f"{table}({','.join(cols)})".encode())
            quoted = ", ".join(f'"{c}"' for c in cols)
            rows = sorted(repr(row) for row in conn.execute(f'SELECT {quoted} FROM "{table}"'))
            for row in rows:
                digest.update(row.encode())
    finally:
        conn.close()
    return digest.hexdigest()


def pack(store: Path, archive: Path) -> bool:
    """xz ``store`` into ``archive``, unless the archive already holds a store of the same content
    (``content_digest``): a rebuild that reproduces the same rows leaves the committed file untouched. Returns
    whether the archive was written."""
    if archive.exists():
        with tempfile.TemporaryDirectory() as tmp:
            old = Path(tmp) / "old.db"
            unpack(archive, old)
            if content_digest(old) == content_digest(store):
                return False
    tmp_archive = archive.with_name(archive.name + ".tmp")
    with store.open("rb") as src, lzma.open(tmp_archive, "wb", preset=6) as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    tmp_archive.replace(archive)
    return True


def unpack(archive: Path, store: Path, *, sealed: bool = False) -> None:
    """Decompress ``archive`` into ``store`` through a temporary file (two processes never see half a store); with
    ``sealed``, its cached documents sealed for this user first (``analysis.cache_trust.reseal``)."""
    store.parent.mkdir(parents=True, exist_ok=True)
    tmp = store.with_name(f"{store.name}.{os.getpid()}.tmp")
    with lzma.open(archive, "rb") as src, tmp.open("wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    if sealed:
        conn = sqlite3.connect(tmp)
        try:
            reseal(conn)
        finally:
            conn.close()
    tmp.replace(store)


def bundled_demo_store(store: Path = DEMO_STORE, archive: Path = DEMO_ARCHIVE, unpack_dir: Path = UNPACK_DIR) -> Path:
    """The demo store to open: a local build when there is one, else the archive unpacked into ``unpack_dir``.
    Returns ``store`` (which may not exist) when neither is there."""
    if store.exists() or not archive.exists():
        return store
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:16]
    target = unpack_dir / f"{store.stem}-{digest}-{key_id()}.db"
    if not target.exists():
        unpack(archive, target, sealed=True)
    return target
