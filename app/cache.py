"""A small on-disk cache of JSON documents (metric documents), so a restarted app paints at once.

Key = kind + store path + store signature + a fingerprint of the ``analysis`` sources the kind
depends on (a code change there invalidates it). Files go to ``ROLESCOPE_CACHE_DIR`` (default ``.cache/app`` at
the repository root); when that folder is not writable the cache is skipped silently. Only the
newest few entries per kind and store are kept.

**Shipped documents.** The bundled demo comes with its documents computed at build time
(``data/demo/rolescope-demo.docs.json.gz``, written by ``python -m app.documents``), so a first visit paints
at once. On a miss in the folder above, a shipped document is used when the store's content signature, the
document's kind and extra key, and its kind's code fingerprint all match the current ones; after a code change
in the sources of a kind, that kind is computed as usual (and ``tests/test_demo_documents.py`` says the shipped
file is stale).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
KEEP_PER_STORE = 4
SHIPPED = REPO_ROOT / "data/demo/rolescope-demo.docs.json.gz"
#: When set (``app.documents``), every document served is also collected here: signature -> "kind|extra" -> entry.
RECORDER: dict[str, dict[str, dict[str, Any]]] | None = None


def cache_dir() -> Path:
    return Path(os.environ.get("ROLESCOPE_CACHE_DIR", REPO_ROOT / ".cache/app"))


def code_fingerprint(kind: str) -> str:
    """Hash of the analysis sources a document kind depends on (``analysis.report_cache.code_fingerprint``):
    ``<method>`` and ``chance-<method>`` read the method's folder and the shared modules it declares; any other kind,
    all of ``analysis`` (``analysis.methods.source_paths``)."""
    from analysis.methods import source_paths
    from analysis.report_cache import code_fingerprint as fingerprint

    return fingerprint(source_paths(kind.removeprefix("chance-")))


@lru_cache(maxsize=2)
def load_shipped(path: Path) -> dict[str, Any]:
    """A shipped documents file (``{"signature", "documents": {"kind|extra": {"code", "doc"}}}``), or {}."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return {}


def shipped_document(kind: str, signature: str, extra: str) -> Any | None:
    """The shipped document for this store content, kind and extra key, if its code is current; else None."""
    shipped = load_shipped(SHIPPED)
    if not shipped or shipped.get("signature") != signature:
        return None
    entry = (shipped.get("documents") or {}).get(f"{kind}|{extra}")
    if entry is None or entry.get("code") != code_fingerprint(kind):
        return None
    return entry["doc"]


def _prefix(kind: str, store_path: str, extra: str) -> str:
    where = hashlib.sha256(f"{Path(store_path).resolve()}|{extra}".encode()).hexdigest()[:16]
    return f"{kind}-{where}-"


def cached_json(kind: str, store_path: str, signature: str, compute: Callable[[], Any], extra: str = "") -> Any:
    """``compute()`` unless a document for this kind/store/signature/code is on disk."""
    folder = cache_dir()
    prefix = _prefix(kind, store_path, extra)
    key = hashlib.sha256(f"{signature}|{code_fingerprint(kind)}".encode()).hexdigest()[:20]
    path = folder / f"{prefix}{key}.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        doc = shipped_document(kind, signature, extra)
        if doc is None:
            doc = compute()
        _save(folder, prefix, path, doc)
    if RECORDER is not None:
        RECORDER.setdefault(signature, {})[f"{kind}|{extra}"] = {"code": code_fingerprint(kind), "doc": doc}
    return doc


def _save(folder: Path, prefix: str, path: Path, doc: Any) -> None:
    """Write ``doc`` to the cache folder (atomically) and drop the oldest entries of its kind and store."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(doc, allow_nan=False), encoding="utf-8")
        tmp.replace(path)
        old = sorted(folder.glob(f"{prefix}*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[KEEP_PER_STORE:]
        for stale in old:
            stale.unlink(missing_ok=True)
    except (OSError, ValueError):
        pass
