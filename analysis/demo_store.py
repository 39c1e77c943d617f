"""Where the bundled demo store lives: a gzip archive in git, unpacked once on first use.

The store itself (~40 MB: every request, reply and logprob of the campaign) is over the 25 MB the
repository allows for ``data/demo/``; gzip brings it to about a quarter. ``demo build`` writes both the
store (``data/demo/rolescope-demo.db``, git-ignored) and the archive (``rolescope-demo.db.gz``, committed).
A clone has only the archive: ``bundled_demo_store`` unpacks it into ``.cache/demo/`` under a name that
carries the archive's hash, so a new archive is unpacked again and an old one is never reused.
Standard library only: the dashboard calls this at start-up.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO_STORE = REPO_ROOT / "data/demo/rolescope-demo.db"
DEMO_ARCHIVE = DEMO_STORE.with_name(DEMO_STORE.name + ".gz")
UNPACK_DIR = REPO_ROOT / ".cache/demo"


def pack(store: Path, archive: Path) -> None:
    """gzip ``store`` into ``archive`` with a zero timestamp, so equal stores give equal archives."""
    tmp = archive.with_name(archive.name + ".tmp")
    with store.open("rb") as src, tmp.open("wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    tmp.replace(archive)


def unpack(archive: Path, store: Path) -> None:
    """Unzip ``archive`` into ``store`` through a temporary file (two processes never see half a store)."""
    store.parent.mkdir(parents=True, exist_ok=True)
    tmp = store.with_name(f"{store.name}.{os.getpid()}.tmp")
    with gzip.open(archive, "rb") as src, tmp.open("wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    tmp.replace(store)


def bundled_demo_store(store: Path = DEMO_STORE, archive: Path = DEMO_ARCHIVE, unpack_dir: Path = UNPACK_DIR) -> Path:
    """The demo store to open: a local build when there is one, else the archive unpacked into ``unpack_dir``.
    Returns ``store`` (which may not exist) when neither is there."""
    if store.exists() or not archive.exists():
        return store
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:16]
    target = unpack_dir / f"{store.stem}-{digest}.db"
    if not target.exists():
        unpack(archive, target)
    return target
