"""API keys: looked up at call time, never stored, and scrubbed from every message.

Lookup order: a key held by the caller (the app keeps a password field in session state only),
the environment variable the spec names, then ``.streamlit/secrets.toml`` (read with tomllib so
that ``analysis`` never imports streamlit). Every key that is looked up is registered so that
``redact`` can remove it from error messages, logs and exports.
"""

from __future__ import annotations

import os
import re
import threading
import tomllib
from pathlib import Path

from analysis.llm.specs import REPO_ROOT, ModelSpec

_lock = threading.Lock()
_secrets: set[str] = set()
# Key-shaped strings are scrubbed even when we never saw them (e.g. echoed back by a server).
_KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-]{16,}|hf_[A-Za-z0-9]{16,})")
REDACTED = "***"


def register_secret(value: str | None) -> None:
    """Remember a secret so that ``redact`` removes it wherever it shows up."""
    if value and len(value) >= 6:
        with _lock:
            _secrets.add(value)


def redact(text: str) -> str:
    """Replace every registered secret and every key-shaped token in ``text``."""
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return _KEY_PATTERN.sub(REDACTED, text)


def _secrets_file_value(name: str, path: Path | None = None) -> str | None:
    for candidate in [path] if path else [Path.cwd() / ".streamlit/secrets.toml", REPO_ROOT / ".streamlit/secrets.toml"]:
        if candidate and candidate.exists():
            try:
                value = tomllib.loads(candidate.read_text(encoding="utf-8")).get(name)
            except tomllib.TOMLDecodeError:
                continue
            if isinstance(value, str):
                return value
    return None


def resolve_api_key(spec: ModelSpec, override: str | None = None) -> str | None:
    """The key for ``spec``, or None when the endpoint needs none (embedded, local servers)."""
    if spec.backend == "embedded":
        return None
    key = override or (os.environ.get(spec.api_key_env) if spec.api_key_env else None)
    if not key and spec.api_key_env:
        key = _secrets_file_value(spec.api_key_env)
    register_secret(key)
    return key or None
