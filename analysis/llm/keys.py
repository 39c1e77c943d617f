"""API keys: looked up at call time, sent only to endpoints the user configured, never stored.

Lookup order: a key held by the caller (the app keeps a password field in session state only), the environment
variable the spec names, then ``.streamlit/secrets.toml`` (read with tomllib so that ``analysis`` never imports
streamlit).

**Where a key may go.** ``resolve_api_key`` hands out a key only for an endpoint the user configured for it: the
built-in forms (``openai:`` with ``OPENAI_API_KEY``, ``hf:`` with ``HF_TOKEN``), a ``[models.*]`` table of
``models.toml``, a spec parsed from the user's own input in this process (the command line: ``specs.USER_INPUT``),
or a URL the user confirmed (``--trust-endpoint``; the Run page passes the endpoints typed into its
own fields or confirmed by a tick naming the host as ``confirmed``, per session). A ``base_url`` read
from a store, a plan or a link is none of these: a key for it raises ``UntrustedEndpoint`` before anything is sent.

**The scrubber.** ``redact`` removes every secret in play from a text: the keys registered by this process, the
values of every key variable a configured spec names, the usual key variables (``*_API_KEY``, ``*_TOKEN``,
``*SECRET*``, ``*PASSWORD*``), every string of ``.streamlit/secrets.toml``, and key-shaped tokens (``sk-…``,
``hf_…``) never seen. Besides whole keys it removes any run of ``FRAGMENT_MIN`` or more characters of a known key (a
key cut somewhere, or split by a separator). ``clip`` is the one way to shorten a text that may hold one: it
redacts, then cuts. ``redact_token_rows`` also checks a call's logprob tokens joined, so a key spelled across tokens
is removed from every token that spells it. The store applies these to every string it writes
(``analysis.runs.store``); exports apply them again.
"""

from __future__ import annotations

import os
import re
import threading
import time
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from analysis.errors import InputError
from analysis.llm.specs import (HF_ROUTER_BASE_URL, OPENAI_BASE_URL, REPO_ROOT, ModelSpec,
                                user_endpoints)

REDACTED = "***"
#: A run of this many characters of a known key is a leak wherever it appears.
FRAGMENT_MIN = 11
_ANCHOR = 6  # every run of FRAGMENT_MIN = 2 * _ANCHOR - 1 characters holds one aligned anchor of the key
#: Secrets shorter than this are ignored (an empty or one-word variable would redact ordinary text).
MIN_SECRET = 6
#: Key variables scrubbed whenever they are set, whether or not a configured spec names them.
USUAL_KEY_VARIABLES = ("OPENAI_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACEHUB_API_TOKEN",
                       "ROLESCOPE_API_KEY", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "OPENROUTER_API_KEY",
                       "TOGETHER_API_KEY", "GROQ_API_KEY", "MISTRAL_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
_SECRET_NAME = re.compile(r"API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|ACCESS_KEY", re.IGNORECASE)
# Key-shaped strings are scrubbed even when we never saw them (e.g. echoed back by a server).
_KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-]{16,}|hf_[A-Za-z0-9]{16,})")
_FILE_TTL_S = 2.0

_lock = threading.Lock()
_registered: set[str] = set()  # frozen per lookup: a frozenset of a few keys is cheap to hash


class UntrustedEndpoint(InputError):
    """A key would go to an endpoint the user did not configure (read from a store, plan or link)."""

    def __init__(self, spec: ModelSpec):
        self.url = spec.base_url or ""
        self.host = urlsplit(self.url).hostname or self.url
        super().__init__(
            f"model '{spec.name}': the endpoint {self.url} was read from a store or link, not configured by you "
            f"(models.toml, --model, the Run page); its key ${spec.api_key_env} is not sent there. To send it, "
            f"pass --trust-endpoint {self.url}")


# -- which secrets are in play ---------------------------------------------------------------------------------------
def register_secret(value: str | None) -> None:
    """Remember a secret so that ``redact`` removes it wherever it shows up."""
    if value and len(value) >= MIN_SECRET:
        with _lock:
            _registered.add(value)


@lru_cache(maxsize=1024)
def _is_key_variable(name: str) -> bool:
    return name in USUAL_KEY_VARIABLES or bool(_SECRET_NAME.search(name))


_file_cache: dict[str, tuple[float, float, object]] = {}


def _cached_file(path: Path, read: object) -> object:
    """``read(path)`` at most every ``_FILE_TTL_S`` and again when the file changes; None when absent or broken."""
    now = time.monotonic()
    key = str(path)
    hit = _file_cache.get(key)
    if hit and now - hit[0] < _FILE_TTL_S:
        return hit[2]
    try:
        mtime = path.stat().st_mtime
    except OSError:
        mtime = -1.0
    if hit and hit[1] == mtime:
        _file_cache[key] = (now, mtime, hit[2])
        return hit[2]
    try:
        value = read(path) if mtime >= 0 else None  # type: ignore[operator]
    except (OSError, ValueError, tomllib.TOMLDecodeError):
        value = None
    _file_cache[key] = (now, mtime, value)
    return value


def _toml(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _configured_key_names() -> set[str]:
    """Every ``api_key_env`` a ``[models.*]`` table of models.toml names (read raw: a broken table still counts)."""
    from analysis.llm import specs  # read when called: a test or a user may point it elsewhere

    doc = _cached_file(specs.DEFAULT_MODELS_FILE, _toml)
    names: set[str] = set()
    models = doc.get("models") if isinstance(doc, dict) else None
    for table in models.values() if isinstance(models, dict) else ():
        if isinstance(table, dict) and isinstance(table.get("api_key_env"), str):
            names.add(table["api_key_env"])
    return names


def _secrets_files() -> list[Path]:
    return list(dict.fromkeys([Path.cwd() / ".streamlit/secrets.toml", REPO_ROOT / ".streamlit/secrets.toml"]))


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _environment_fingerprint() -> int:
    # os.environ's own store (bytes on POSIX): hashing it costs ~3 us, decoding every item ~150 us
    data = getattr(os.environ, "_data", None)
    return hash(tuple(data.items())) if isinstance(data, dict) else hash(tuple(os.environ.items()))


_files_seen: tuple[float, str, frozenset[str], frozenset[str]] | None = None  # (when, cwd, key names, file secrets)


def _file_secrets() -> tuple[frozenset[str], frozenset[str]]:
    """(key variable names configured in models.toml, strings of secrets.toml), looked at again every ``_FILE_TTL_S``."""
    global _files_seen
    now, cwd = time.monotonic(), os.getcwd()
    seen = _files_seen
    if seen is None or now - seen[0] >= _FILE_TTL_S or seen[1] != cwd:
        found: set[str] = set()
        for path in _secrets_files():
            found.update(_strings(_cached_file(path, _toml)))
        seen = _files_seen = (now, cwd, frozenset(_configured_key_names()), frozenset(found))
    return seen[2], seen[3]


@lru_cache(maxsize=16)
def _in_play(environment: int, names: frozenset[str], files: frozenset[str], registered: frozenset[str]) -> frozenset[str]:
    found = {value for name, value in os.environ.items() if (name in names or _is_key_variable(name))}
    found |= files | registered
    return frozenset(s for s in found if len(s) >= MIN_SECRET)


def secrets_in_play() -> frozenset[str]:
    """Every secret the scrubber removes now (see the module docstring). Recomputed only when the environment, the
    registered keys or the files change (a store write looks them up at every transaction)."""
    names, files = _file_secrets()
    with _lock:
        registered = frozenset(_registered)
    return _in_play(_environment_fingerprint(), names, files, registered)


# -- the scrubber ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Index:
    secrets: tuple[str, ...]  # longest first
    anchors: tuple[tuple[str, str, int], ...]  # (anchor, secret, offset of the anchor in the secret)
    #: every anchor in one pattern (one scan of a text finds them all), and where each anchor sits in which secret
    anchor_re: re.Pattern[str] | None = None
    places: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)


@lru_cache(maxsize=8)
def _index(secrets: frozenset[str]) -> _Index:
    ordered = tuple(sorted(secrets, key=lambda s: (-len(s), s)))
    anchors = []
    for secret in ordered:
        if len(secret) >= FRAGMENT_MIN:
            offsets = sorted(set(range(0, len(secret) - _ANCHOR + 1, _ANCHOR)) | {len(secret) - _ANCHOR})
            anchors.extend((secret[o:o + _ANCHOR], secret, o) for o in offsets)
    places: dict[str, list[tuple[str, int]]] = {}
    for anchor, secret, offset in anchors:
        places.setdefault(anchor, []).append((secret, offset))
    pattern = re.compile("|".join(map(re.escape, sorted(places)))) if places else None
    return _Index(ordered, tuple(anchors), pattern, {a: tuple(p) for a, p in places.items()})


def _fragment_spans(text: str, index: _Index) -> list[tuple[int, int]]:
    """Spans of ``text`` that are runs of ``FRAGMENT_MIN`` or more characters of one secret, other than letters only
    (a whole secret is replaced before this, whatever it is made of)."""
    spans = []
    found = index.anchor_re.search(text) if index.anchor_re else None
    while found:  # every occurrence of every anchor, overlapping ones too
        at = found.start()
        for secret, offset in index.places[found.group()]:
            left = 0
            while at - left > 0 and offset - left > 0 and text[at - left - 1] == secret[offset - left - 1]:
                left += 1
            right = _ANCHOR
            while at + right < len(text) and offset + right < len(secret) and text[at + right] == secret[offset + right]:
                right += 1
            # a run of letters alone is a word ("environment" of "from-environment-456"), not a key's cut end
            if left + right >= FRAGMENT_MIN and not text[at - left:at + right].isalpha():
                spans.append((at - left, at + right))
        found = index.anchor_re.search(text, at + 1)
    return spans


def _redact_with(text: str, index: _Index) -> str:
    for secret in index.secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    if index.anchors:
        spans = sorted(_fragment_spans(text, index))
        if spans:
            merged = [list(spans[0])]
            for start, end in spans[1:]:
                if start <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], end)
                else:
                    merged.append([start, end])
            for start, end in reversed(merged):
                text = text[:start] + REDACTED + text[end:]
    if "sk-" in text or "hf_" in text:
        text = _KEY_PATTERN.sub(REDACTED, text)
    return text


class Scrubber:
    """``redact`` with the secrets in play looked up once, for a batch of strings (one store write)."""

    def __init__(self) -> None:
        self._index = _index(secrets_in_play())

    def text(self, text: str) -> str:
        return _redact_with(text, self._index) if text else text

    def token_rows(self, rows: list[dict[str, float]] | None) -> list[dict[str, float]] | None:
        return _redact_token_rows(rows, self._index)


def redact(text: str) -> str:
    """``text`` without any secret in play (whole or a fragment of ``FRAGMENT_MIN``+ characters) or key-shaped token."""
    return Scrubber().text(text)


def clip(text: str, limit: int) -> str:
    """Redact, then cut to ``limit`` characters: the only safe order (cut first, a key straddling the cut leaves a
    prefix that no rule recognises)."""
    clean = redact(text)
    return clean if len(clean) <= limit else clean[: max(0, limit - 1)] + "…"


# -- logprob tokens, joined ------------------------------------------------------------------------------------------
def _split_secret_tokens(positions: list[list[str]], secret: str) -> set[tuple[int, str]]:
    """The (position, token) pairs that spell ``secret`` across consecutive positions, one token per position: the
    first token ends with the secret's start, middle tokens lie inside it, the last starts with its remainder."""
    n = len(secret)
    prefixes = {secret[:k] for k in range(1, n)}
    parents: dict[tuple[int, int], list[tuple[str, int | None]]] = {}
    finals: list[tuple[int, str, int]] = []
    reached: set[int] = set()
    for p, tokens in enumerate(positions):
        now: set[int] = set()
        for tok in tokens:
            if not tok:
                continue
            for o in reached:
                rest = secret[o:]
                if tok.startswith(rest):
                    finals.append((p, tok, o))
                elif rest.startswith(tok):
                    now.add(o + len(tok))
                    parents.setdefault((p, o + len(tok)), []).append((tok, o))
            if p + 1 < len(positions):
                for k in range(1, min(len(tok), n - 1) + 1):
                    if tok[-k:] in prefixes:
                        now.add(k)
                        parents.setdefault((p, k), []).append((tok, None))
        reached = now
    marked: set[tuple[int, str]] = set()
    stack: list[tuple[int, str, int | None]] = list(finals)
    seen: set[tuple[int, str, int | None]] = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        p, tok, o = node
        marked.add((p, tok))
        if o is not None:
            stack.extend((p - 1, t, o2) for t, o2 in parents.get((p - 1, o), []))
    return marked


def _redact_token_rows(rows: list[dict[str, float]] | None, index: _Index) -> list[dict[str, float]] | None:
    """Per generated position {token: logprob}: each token redacted alone, then every token that helps spell a secret
    across positions replaced by ``REDACTED`` (the highest logprob kept when two become one)."""
    if not rows:
        return rows
    out: list[dict[str, float]] = []
    for row in rows:
        clean: dict[str, float] = {}
        for tok, lp in row.items():
            t = _redact_with(tok, index) if tok else tok
            clean[t] = max(lp, clean[t]) if t in clean else lp
        out.append(clean)
    if len(out) > 1:
        positions = [list(r) for r in out]
        marked = set().union(*(_split_secret_tokens(positions, s) for s in index.secrets)) if index.secrets else set()
        if marked:
            for p, tok in marked:
                row = out[p]
                if tok in row:
                    lp = row.pop(tok)
                    row[REDACTED] = max(lp, row.get(REDACTED, lp))
    return out


def redact_token_rows(rows: list[dict[str, float]] | None) -> list[dict[str, float]] | None:
    """A call's logprob rows with every secret removed, alone and spelled across tokens."""
    return Scrubber().token_rows(rows)


# -- where a key may go ----------------------------------------------------------------------------------------------
def normalise_url(url: str | None) -> str:
    """Scheme and host lower-cased, no credentials, query or trailing slash: how endpoints are compared."""
    if not url:
        return ""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    netloc = host + (f":{port}" if port and port != default else "")
    return f"{parts.scheme.lower()}://{netloc}{parts.path.rstrip('/')}"


_BUILTIN_ENDPOINTS = {(normalise_url(OPENAI_BASE_URL), "OPENAI_API_KEY"), (normalise_url(HF_ROUTER_BASE_URL), "HF_TOKEN")}


def _configured_endpoints() -> set[tuple[str, str | None]]:
    from analysis.llm.specs import load_named_models

    try:
        named = load_named_models()
    except InputError:
        named = {}
    return _BUILTIN_ENDPOINTS | {(normalise_url(s.base_url), s.api_key_env) for s in named.values()}


def endpoint_trusted(spec: ModelSpec, confirmed: tuple[str, ...] = ()) -> bool:
    """Whether a key may be sent to ``spec.base_url``: configured by the user, or confirmed by URL."""
    if spec.backend == "embedded":
        return True
    url = normalise_url(spec.base_url)
    if url in {normalise_url(u) for u in confirmed}:
        return True
    trusted = {(normalise_url(u), env) for u, env in user_endpoints()}
    return (url, spec.api_key_env) in trusted or (url, spec.api_key_env) in _configured_endpoints()


def _secrets_file_value(name: str, path: Path | None = None) -> str | None:
    for candidate in [path] if path else _secrets_files():
        if candidate and candidate.exists():
            try:
                value = tomllib.loads(candidate.read_text(encoding="utf-8")).get(name)
            except tomllib.TOMLDecodeError:
                continue
            if isinstance(value, str):
                return value
    return None


def find_api_key(spec: ModelSpec, override: str | None = None) -> str | None:
    """The key the spec names, wherever it is, without deciding whether it may be sent (for showing 'key found')."""
    if spec.backend == "embedded":
        return None
    key = override or (os.environ.get(spec.api_key_env) if spec.api_key_env else None)
    if not key and spec.api_key_env:
        key = _secrets_file_value(spec.api_key_env)
    register_secret(key)
    return key or None


def resolve_api_key(spec: ModelSpec, override: str | None = None, *, confirmed: tuple[str, ...] = ()) -> str | None:
    """The key to send to ``spec``'s endpoint, or None when it needs none (embedded, a local server without a key).

    Raises ``UntrustedEndpoint`` when there is a key and the endpoint is not one the user configured or confirmed."""
    key = find_api_key(spec, override)
    if key and not endpoint_trusted(spec, confirmed):
        raise UntrustedEndpoint(spec)
    return key
