"""Model specs: how a user names a model, resolved into one endpoint description.

Accepted forms (ARCHITECTURE.md, "One LLM path"):

- ``embedded``                 SmolLM2-135M-Instruct served in-process by xllamacpp
- ``openai:<model>``           api.openai.com, key from ``OPENAI_API_KEY``
- ``hf:<model>``               Hugging Face's OpenAI-compatible router, key from ``HF_TOKEN``
- ``<model>@<base_url>``       any OpenAI-compatible server (vLLM, Ollama, llama.cpp, ...),
                               key from ``ROLESCOPE_API_KEY`` if set (local servers need none)
- ``<name>``                   a named config in ``models.toml`` (repo root) or ``--models-file``
"""

from __future__ import annotations

import math
import os
import re
import tomllib
import unicodedata
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from analysis.errors import InputError

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MODELS_FILE = REPO_ROOT / "models.toml"

OPENAI_BASE_URL = "https://api.openai.com/v1"
HF_ROUTER_BASE_URL = "https://router.huggingface.co/v1"
EMBEDDED_MODEL = "SmolLM2-135M-Instruct"

Backend = Literal["embedded", "openai", "hf", "custom"]


# Generation parameters that are part of the request (and therefore of the cache key).
REQUEST_PARAMS = ("temperature", "top_p", "max_tokens", "seed", "logprobs", "top_logprobs", "stop", "presence_penalty",
                  "frequency_penalty", "response_format")
# Server-specific knobs sent in the body as extra fields (llama.cpp: cache_prompt = prefix reuse; top_k, which
# OpenAI's API rejects: a method sends it only to backends that accept it).
EXTRA_PARAMS = ("cache_prompt", "top_k")


class ModelSpec(BaseModel):
    """One model endpoint. Holds the *name* of the key's environment variable, never the key."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, description="Display name used in tables and leaderboards.")
    backend: Backend
    model: str = Field(min_length=1, description="Model id sent in the request body.")
    base_url: str | None = Field(default=None, description="None for embedded (port chosen at start).")
    api_key_env: str | None = Field(default=None, description="Name of the environment variable holding the key.")
    params: dict[str, Any] = Field(default_factory=dict, description="Default generation params.")
    price_input_per_mtok: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    price_output_per_mtok: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    batch_price_factor: float = Field(default=0.5, gt=0, le=1, allow_inf_nan=False,
                                      description="Batch API price as a share of the live price (OpenAI: half).")
    max_top_logprobs: int = Field(default=20, ge=0, description="Largest top_logprobs the endpoint accepts.")
    batch_max_requests: int = Field(default=50_000, ge=1,
                                    description="Most requests in one provider batch file (OpenAI: 50,000).")
    batch_max_bytes: int = Field(default=190_000_000, ge=1024,
                                 description="Most bytes in one provider batch file (OpenAI: 200 MB, less a margin).")
    batch_max_enqueued_tokens: int | None = Field(
        default=None, ge=1, description="Most input tokens enqueued at once in this model's provider batches (the "
                                        "provider's batch queue limit for your account); None: no budget.")
    timeout_s: float = Field(default=120.0, gt=0, allow_inf_nan=False)

    @field_validator("name", "model")
    @classmethod
    def _printable(cls, value: str) -> str:
        """No control characters (a newline in a name would forge lines in the CLI's output)."""
        if any(unicodedata.category(c) == "Cc" for c in value):
            raise ValueError("must not contain control characters (newlines, tabs, ...)")
        return value

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        """An http(s) URL with a host and, when given, a port in 1..65535."""
        if value is None:
            return value
        try:
            parts = urlsplit(value)
            port = parts.port  # raises for a port out of range or not a number
        except ValueError as exc:
            raise ValueError(f"not a valid URL ({exc})") from None
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ValueError("expected an http(s)://host[:port]/path URL")
        if port == 0:
            raise ValueError("port 0 is not a port a server listens on")
        if any(unicodedata.category(c) == "Cc" or c.isspace() for c in value):
            raise ValueError("must not contain spaces or control characters")
        return value

    @field_validator("params")
    @classmethod
    def _params(cls, value: dict[str, Any]) -> dict[str, Any]:
        """Generation params: the numeric ones are numbers, and no number is NaN or infinite (JSON has neither; an
        endpoint would get a bare NaN); and each is one RoleScope sends (``REQUEST_PARAMS``, ``EXTRA_PARAMS``)."""
        unknown = sorted(set(value) - set(REQUEST_PARAMS) - set(EXTRA_PARAMS))
        if unknown:
            raise ValueError(f"unknown generation params {unknown}; known: {', '.join(REQUEST_PARAMS + EXTRA_PARAMS)}")
        for key, item in value.items():
            if key in _NUMERIC_PARAMS and (isinstance(item, bool) or not isinstance(item, int | float)):
                raise ValueError(f"'{key}' must be a number, got {item!r}")
            bad = _non_finite(item)
            if bad:
                raise ValueError(f"'{key}' holds {bad}; give a finite number")
        return value

    @field_validator("api_key_env")
    @classmethod
    def _env_var_name(cls, value: str | None) -> str | None:
        """An environment variable *name*; the key itself written here (an easy mistake) is refused, never echoed."""
        if value is None:
            return value
        if not _ENV_NAME.fullmatch(value) or looks_like_key(value) or _is_a_value(value):
            raise ValueError("must name an environment variable (capitals, digits and _, e.g. OPENAI_API_KEY), "
                             "not hold the key; the value is not shown")
        return value

    @property
    def identity(self) -> str:
        """What a reply depends on besides the request: the model and where it is served."""
        return f"{self.backend}|{self.model}|{self.base_url or ''}"

    def cost(self, tokens_in: int, tokens_out: int) -> float | None:
        """Cost in the price's currency, or None when no price is configured."""
        if self.price_input_per_mtok is None and self.price_output_per_mtok is None:
            return None
        return (tokens_in * (self.price_input_per_mtok or 0.0) + tokens_out * (self.price_output_per_mtok or 0.0)) / 1e6

    def batch_cost(self, tokens_in: int, tokens_out: int) -> float | None:
        """Cost through the provider's batch API: the live cost times ``batch_price_factor``; None without a price."""
        live = self.cost(tokens_in, tokens_out)
        return None if live is None else live * self.batch_price_factor

    def public_dict(self) -> dict[str, Any]:
        """The spec as stored with a run: no secret can be in it (keys live only in env/secrets)."""
        data = self.model_dump()
        data["base_url"] = strip_url_credentials(self.base_url)
        return data


_NUMERIC_PARAMS = frozenset({"temperature", "top_p", "top_k", "min_p", "max_tokens", "max_completion_tokens",
                             "presence_penalty", "frequency_penalty", "repetition_penalty", "seed", "n"})


def _non_finite(value: Any) -> str | None:
    """'nan' / 'inf' when ``value`` is or holds (in lists and dicts) a NaN or infinite float, else None."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else "inf"
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        return next((bad for bad in map(_non_finite, value) if bad), None)
    return None


# Capitals only: a weak key ("hunter2", "letmein") would pass a looser rule and be stored and printed as a "name".
_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,63}")


def _is_a_value(text: str) -> bool:
    """Whether ``text`` is the value of an environment variable (a key pasted where its variable's name goes)."""
    return len(text) >= 6 and any(text == value for value in os.environ.values())
_KEYLIKE = re.compile(r"[A-Za-z0-9_]{20,}")


def looks_like_key(text: str) -> bool:
    """Whether ``text`` could be an API key: a known key prefix, or a token of 20+ letters, digits and _ mixing letters
    and digits, unless it is upper-case words joined by _ (``OPENAI_API_KEY_2`` is a name; ``a8Fk29...`` is a key;
    model ids such as ``gpt-4o-mini-2024-07-18`` have separators)."""
    text = text.strip()
    if re.match(r"(?:sk-|hf_|gsk_|xai-|AIza)", text):
        return True
    if not _KEYLIKE.fullmatch(text):
        return False
    has_digit, has_alpha = any(c.isdigit() for c in text), any(c.isalpha() for c in text)
    words = [w for w in text.split("_") if w]
    return has_digit and has_alpha and not (len(words) > 1 and all(w.isupper() or w.isdigit() for w in words))


def strip_url_credentials(url: str | None) -> str | None:
    """Drop ``user:password@`` and the query string from a URL before it is stored or shown."""
    if not url:
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _embedded_spec() -> ModelSpec:
    return ModelSpec(name="embedded", backend="embedded", model=EMBEDDED_MODEL, max_top_logprobs=1000, timeout_s=600.0)


def load_named_models(path: Path | None = None) -> dict[str, ModelSpec]:
    """Read named configs from a TOML file: ``[models.<name>]`` tables of ModelSpec fields.

    ``spec = "..."`` inside a table starts from a spec string and overrides its fields.
    """
    path = path or DEFAULT_MODELS_FILE
    if not path.exists():
        return {}
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML ({exc})") from None
    models = doc.get("models") or {}
    if not isinstance(models, dict):
        raise InputError(f"{path}: 'models' must be a table of [models.<name>] tables, got {_toml_type(models)}")
    specs: dict[str, ModelSpec] = {}
    for name, table in models.items():
        where = f"{path}: [models.{name}]"
        if not isinstance(table, dict):
            raise InputError(f"{where} must be a table, got {_toml_type(table)}")
        table = dict(table)
        if "spec" in table and not isinstance(table["spec"], str):
            raise InputError(f"{where} field 'spec': must be a model string such as 'openai:gpt-4o-mini', "
                             f"got {_toml_type(table['spec'])}")
        if "params" in table and not isinstance(table["params"], dict):
            raise InputError(f"{where} field 'params': must be a table such as {{ temperature = 0.7 }}, "
                             f"got {_toml_type(table['params'])}")
        try:
            base = parse_model_spec(table.pop("spec"), models_file=None) if "spec" in table else None
        except InputError as exc:
            raise InputError(f"{where} field 'spec': {exc}") from None
        fields = (base.model_dump() if base else {}) | {"name": name} | table
        if base is not None and "params" in table:
            fields["params"] = base.params | table["params"]
        try:
            spec = ModelSpec(**fields)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            msg = first["msg"].removeprefix("Value error, ")
            raise InputError(f"{where} field '{loc}': {msg}") from None
        if spec.backend != "embedded" and spec.base_url is None:
            raise InputError(f"{where} field 'base_url': a {spec.backend} model needs one (or give spec = \"...\")")
        specs[name] = spec
    return specs


def _toml_type(value: Any) -> str:
    kinds = {str: "a string", bool: "a boolean", int: "an integer", float: "a float", list: "an array",
             dict: "a table"}
    return next((what for kind, what in kinds.items() if isinstance(value, kind)), type(value).__name__)


_DEFAULT: Any = object()
#: Set while the user's own input is being read (the CLI's arguments): a spec parsed then is one the user configured,
#: so its key may go to its endpoint (``analysis.llm.keys``). Stored specs are never parsed from text.
USER_INPUT: ContextVar[bool] = ContextVar("rolescope_user_input", default=False)
_user_endpoints: set[tuple[str | None, str | None]] = set()


def user_endpoints() -> set[tuple[str | None, str | None]]:
    """(base_url, api_key_env) of every spec parsed from the user's own input in this process."""
    return set(_user_endpoints)


def parse_model_spec(spec: str, models_file: Path | None = _DEFAULT) -> ModelSpec:
    """Turn a user's model string into a ModelSpec (see module docstring for the forms); ``models_file`` defaults to
    ``DEFAULT_MODELS_FILE`` as it is when called. Parsed while ``USER_INPUT`` is set, its endpoint is the user's."""
    if models_file is _DEFAULT:
        models_file = DEFAULT_MODELS_FILE
    try:
        parsed = _parse_model_spec(spec, models_file)
    except ValidationError as exc:  # a field the string form fills (a URL with port 0, a newline in the model name)
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise InputError(f"model spec: field '{loc}': {first['msg'].removeprefix('Value error, ')}") from None
    if USER_INPUT.get() and parsed.base_url:
        _user_endpoints.add((parsed.base_url, parsed.api_key_env))
    return parsed


def _parse_model_spec(spec: str, models_file: Path | None) -> ModelSpec:
    spec = spec.strip()
    if not spec:
        raise InputError("model spec is empty; try 'embedded', 'openai:gpt-4o-mini' or 'llama3@http://localhost:11434/v1'")
    if spec == "embedded":
        return _embedded_spec()
    builtin = spec.startswith(("openai:", "hf:")) or re.search(r"@https?://", spec, flags=re.IGNORECASE)
    if models_file is not None and not builtin:  # a broken models.toml only breaks the names it defines
        named = load_named_models(models_file)
        if spec in named:
            return named[spec]
    if spec.startswith("openai:"):
        model = spec.removeprefix("openai:")
        if model:
            return ModelSpec(name=spec, backend="openai", model=model, base_url=OPENAI_BASE_URL, api_key_env="OPENAI_API_KEY")
    elif spec.startswith("hf:"):
        model = spec.removeprefix("hf:")
        if model:
            return ModelSpec(name=spec, backend="hf", model=model, base_url=HF_ROUTER_BASE_URL, api_key_env="HF_TOKEN")
    elif "@" in spec:
        # split before the URL, not at the last '@': "m@http://user:pw@host/v1" must reach the credentials check
        at = re.search(r"@(?=https?://)", spec, flags=re.IGNORECASE)
        model, base_url = (spec[: at.start()], spec[at.end():]) if at else spec.rpartition("@")[::2]
        try:
            parts = urlsplit(base_url)
            parts.port  # noqa: B018 - raises for a port out of range
        except ValueError as exc:
            shown = re.sub(r"://[^/@\s]*@", "://***@", base_url)  # never echo URL credentials
            raise InputError(f"model spec: the URL '{shown}' after '@' is not valid ({exc})") from None
        if model and parts.scheme in ("http", "https") and parts.hostname:
            if parts.username or parts.password or parts.query:
                raise InputError("model spec: put credentials in ROLESCOPE_API_KEY, not in the URL")
            name = f"{model}@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
            return ModelSpec(name=name, backend="custom", model=model, base_url=base_url.rstrip("/"), api_key_env="ROLESCOPE_API_KEY")
    shown = re.sub(r"://[^/@\s]*@", "://***@", spec)  # never echo URL credentials
    shown = "(not shown: it looks like an API key)" if looks_like_key(spec) else f"'{shown}'"
    raise InputError(
        f"model spec {shown} not understood: use 'embedded', 'openai:<model>', 'hf:<model>', "
        "'<model>@<http(s)://host:port/v1>' or a name from models.toml"
    )
