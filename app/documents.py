"""Compute the bundled demo's metric documents ahead of time: ``python -m app.documents``.

Every result page is rendered once on the demo store (Streamlit's AppTest, default views, default settings:
no ``ROLESCOPE_N_BOOT`` / ``ROLESCOPE_CHANCE_SIMS`` overrides) with an empty metric cache, and every document
the pages asked ``app.cache.cached_json`` for is written, with its kind's code fingerprint and the store's
content signature, to ``data/demo/rolescope-demo.docs.json.gz`` (gzip with a zero timestamp, sorted keys: the
same documents give the same bytes). ``analysis demo build`` runs this at its end; run it again after a change
in ``analysis/`` (``tests/test_demo_documents.py`` says when the shipped file is stale).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from app import cache

def _result_pages() -> tuple[str, ...]:
    """Pages whose first paint reads metric documents: all but Run and Data (they read tables only)."""
    from app.nav import TOOLS, pages

    return tuple(p.url for p in pages() if p not in TOOLS[1:])


PAGES = _result_pages()
APP = Path(__file__).resolve().parent / "main.py"


def render_pages(pages: tuple[str, ...] = PAGES) -> None:
    """Run ``app/main.py`` and switch to each page (as a visitor would) in one AppTest session; raise on an exception."""
    from streamlit.testing.v1 import AppTest

    from app.nav import page

    at = AppTest.from_file(str(APP), default_timeout=1800).run()
    for url in pages:
        if url != "overview":
            at.switch_page(page(url).script).run()
        if at.exception:
            raise RuntimeError(f"page {url}: {at.exception[0].message}")


def collect(demo_store: Path, pages: tuple[str, ...] = PAGES) -> dict[str, Any]:
    """The documents the pages read on ``demo_store`` (computed afresh in a temporary cache folder)."""
    from app import stores

    for name in ("ROLESCOPE_N_BOOT", "ROLESCOPE_CHANCE_SIMS"):
        if name in os.environ:
            raise RuntimeError(f"unset {name}: the shipped documents are computed with the defaults")
    signature = stores.ref_for(demo_store, True).signature
    saved = stores.DEMO_STORE, stores.USER_STORE, os.environ.get("ROLESCOPE_CACHE_DIR")
    with tempfile.TemporaryDirectory() as tmp:
        stores.DEMO_STORE, stores.USER_STORE = demo_store, Path(tmp) / "user.db"
        os.environ["ROLESCOPE_CACHE_DIR"] = tmp
        cache.RECORDER = {}
        try:
            render_pages(pages)
            documents = cache.RECORDER.get(signature, {})
        finally:
            cache.RECORDER = None
            stores.DEMO_STORE, stores.USER_STORE = saved[0], saved[1]
            if saved[2] is None:
                os.environ.pop("ROLESCOPE_CACHE_DIR", None)
            else:
                os.environ["ROLESCOPE_CACHE_DIR"] = saved[2]
    return {"signature": signature, "documents": documents}


def write(shipped: dict[str, Any], path: Path = cache.SHIPPED) -> None:
    tmp = path.with_name(path.name + ".tmp")
    text = json.dumps(shipped, sort_keys=True, allow_nan=False, separators=(",", ":"))
    with tmp.open("wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as out:
        out.write(text.encode("utf-8"))
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    from analysis.demo_store import bundled_demo_store

    parser = argparse.ArgumentParser(prog="python -m app.documents", description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=None, help="demo store (default: the bundled one)")
    parser.add_argument("--out", type=Path, default=cache.SHIPPED)
    args = parser.parse_args(argv)
    store = args.store or bundled_demo_store()
    if not store.exists():
        print(f"app.documents: demo store {store} not found (build it: python -m analysis demo build)", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    shipped = collect(store)
    write(shipped, args.out)
    print(f"{len(shipped['documents'])} documents of {store.name} (signature {shipped['signature']}) -> {args.out} "
          f"({args.out.stat().st_size / 1e6:.2f} MB, {time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
