"""Model specs, named configs, API keys and redaction, call cache keys, retry delays, error classification."""

from __future__ import annotations

import json
import random
from pathlib import Path

import httpx
import pytest

from analysis.__main__ import main
from analysis.errors import InputError
from analysis.llm.client import CallError, ChatRequest, http_status_error, classify_error
from analysis.llm.keys import REDACTED, redact, register_secret, resolve_api_key
from tests.conftest import trust_spec
from analysis.llm.specs import (
    EMBEDDED_MODEL, HF_ROUTER_BASE_URL, OPENAI_BASE_URL, ModelSpec, load_named_models, parse_model_spec,
)
from analysis.runs.executor import RetryPolicy


# -- spec strings -----------------------------------------------------------------------------

def test_embedded() -> None:
    """'embedded' is the in-process SmolLM2 with no URL and no key."""
    spec = parse_model_spec("embedded", models_file=None)
    assert (spec.backend, spec.model, spec.base_url, spec.api_key_env) == ("embedded", EMBEDDED_MODEL, None, None)
    assert spec.max_top_logprobs >= 200


def test_openai() -> None:
    """openai:<model> -> api.openai.com/v1 with OPENAI_API_KEY."""
    spec = parse_model_spec("openai:gpt-4o-mini", models_file=None)
    assert (spec.name, spec.backend, spec.model) == ("openai:gpt-4o-mini", "openai", "gpt-4o-mini")
    assert spec.base_url == OPENAI_BASE_URL == "https://api.openai.com/v1"
    assert spec.api_key_env == "OPENAI_API_KEY"


def test_hf() -> None:
    """hf:<org>/<model> -> the Hugging Face router with HF_TOKEN."""
    spec = parse_model_spec("hf:meta-llama/Llama-3.1-8B-Instruct", models_file=None)
    assert (spec.backend, spec.model, spec.base_url, spec.api_key_env) == (
        "hf", "meta-llama/Llama-3.1-8B-Instruct", HF_ROUTER_BASE_URL, "HF_TOKEN")


@pytest.mark.parametrize("text, model, base_url, name", [
    ("model@http://localhost:8000/v1", "model", "http://localhost:8000/v1", "model@localhost:8000"),
    ("llama3.1:8b@http://localhost:11434/v1", "llama3.1:8b", "http://localhost:11434/v1", "llama3.1:8b@localhost:11434"),
    ("Qwen/Qwen2.5-7B-Instruct@https://vllm.example.org/v1/", "Qwen/Qwen2.5-7B-Instruct", "https://vllm.example.org/v1",
     "Qwen/Qwen2.5-7B-Instruct@vllm.example.org"),
    ("  org/m:q4@http://10.0.0.5:9000/v1  ", "org/m:q4", "http://10.0.0.5:9000/v1", "org/m:q4@10.0.0.5:9000"),
])
def test_custom_endpoint(text: str, model: str, base_url: str, name: str) -> None:
    """<model>@<url>: model names may hold ':' and '/'; trailing '/' dropped; key from ROLESCOPE_API_KEY."""
    spec = parse_model_spec(text, models_file=None)
    assert (spec.backend, spec.model, spec.base_url, spec.name) == ("custom", model, base_url, name)
    assert spec.api_key_env == "ROLESCOPE_API_KEY"


@pytest.mark.parametrize("text", ["", "   ", "gpt4o", "openai:", "hf:", "@http://localhost:8000/v1", "m@localhost:8000",
                                  "m@ftp://host/v1", "m@http:///v1"])
def test_invalid_forms(text: str) -> None:
    """Unrecognised strings -> InputError listing the accepted forms."""
    with pytest.raises(InputError, match=r"embedded.*openai:"):
        parse_model_spec(text, models_file=None)


@pytest.mark.parametrize("text", ["m@http://user:pw-secret@localhost:8000/v1", "m@https://:pw-secret@host/v1",
                                  "m@http://localhost:8000/v1?api_key=pw-secret"])
def test_url_credentials_refused(text: str) -> None:
    """Credentials in the URL -> InputError pointing at ROLESCOPE_API_KEY, without echoing them."""
    with pytest.raises(InputError, match="ROLESCOPE_API_KEY") as info:
        parse_model_spec(text, models_file=None)
    assert "pw-secret" not in str(info.value)


def test_unknown_form_does_not_echo_credentials() -> None:
    """Even an unparseable spec with user:password in it is not echoed with the password."""
    with pytest.raises(InputError) as info:
        parse_model_spec("m@ftp://user:pw-secret@host/v1", models_file=None)
    assert "pw-secret" not in str(info.value)


def test_public_dict_strips_credentials() -> None:
    """public_dict (what a run stores) has no user:password and no query string in base_url."""
    spec = ModelSpec(name="x", backend="custom", model="m", base_url="https://user:pw-secret@host.example:8443/v1?key=pw-secret",
                     api_key_env="ROLESCOPE_API_KEY")
    public = spec.public_dict()
    assert public["base_url"] == "https://host.example:8443/v1"
    assert "pw-secret" not in json.dumps(public)
    assert public["model"] == "m" and public["api_key_env"] == "ROLESCOPE_API_KEY"


# -- named configs ----------------------------------------------------------------------------

MODELS_TOML = """
[models.local]
spec = "llama3.1:8b@http://localhost:11434/v1"
params = { temperature = 0.7, max_tokens = 64 }
max_top_logprobs = 200

[models.mini]
spec = "openai:gpt-4o-mini"
price_input_per_mtok = 0.15
price_output_per_mtok = 0.60
api_key_env = "MY_OPENAI_KEY"

[models.greedy]
spec = "embedded"
params = { temperature = 0.0 }

[models.plain]
backend = "custom"
model = "phi3"
base_url = "http://gpu-box:8000/v1"
"""


@pytest.fixture
def models_file(tmp_path: Path) -> Path:
    path = tmp_path / "models.toml"
    path.write_text(MODELS_TOML, encoding="utf-8")
    return path


def test_named_config_inherits_from_spec(models_file: Path) -> None:
    """spec= gives backend/model/base_url; the table's fields override; name is the table name."""
    local = parse_model_spec("local", models_file=models_file)
    assert (local.name, local.backend, local.model, local.base_url) == ("local", "custom", "llama3.1:8b", "http://localhost:11434/v1")
    assert local.params == {"temperature": 0.7, "max_tokens": 64}
    assert local.max_top_logprobs == 200 and local.api_key_env == "ROLESCOPE_API_KEY"
    mini = parse_model_spec("mini", models_file=models_file)
    assert (mini.backend, mini.base_url, mini.api_key_env) == ("openai", OPENAI_BASE_URL, "MY_OPENAI_KEY")
    assert mini.cost(1_000_000, 500_000) == pytest.approx(0.15 + 0.30, abs=1e-12)
    greedy = parse_model_spec("greedy", models_file=models_file)
    assert (greedy.backend, greedy.params) == ("embedded", {"temperature": 0.0})
    assert greedy.identity == parse_model_spec("embedded", models_file=None).identity  # same model, same cache


def test_named_config_without_spec(models_file: Path) -> None:
    """A table of plain ModelSpec fields works; an unlisted name falls back to the string forms."""
    plain = parse_model_spec("plain", models_file=models_file)
    assert (plain.backend, plain.model, plain.base_url, plain.params) == ("custom", "phi3", "http://gpu-box:8000/v1", {})
    assert parse_model_spec("openai:gpt-4o", models_file=models_file).model == "gpt-4o"


@pytest.mark.parametrize("toml, message", [
    ('[models.bad]\nspec = "embedded"\ncolour = "blue"\n', r"\[models\.bad\] field 'colour'"),
    ('[models.bad]\nmodel = "m"\n', r"\[models\.bad\] field 'backend'"),
    ('[models.bad]\nspec = "embedded"\nmax_top_logprobs = "many"\n', r"\[models\.bad\] field 'max_top_logprobs'"),
    ('[models.bad\n', "not valid TOML"),
    ('[models]\nbad = 3\n', r"\[models\.bad\] must be a table"),
    ('[models.bad]\nspec = "nonsense"\n', "model spec 'nonsense' not understood"),
])
def test_named_config_errors(tmp_path: Path, toml: str, message: str) -> None:
    """Malformed models.toml -> InputError naming the file and the table/field."""
    path = tmp_path / "models.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        parse_model_spec("bad", models_file=path)


# -- keys and redaction -----------------------------------------------------------------------

KEY_ENV = "ROLESCOPE_TEST_ONLY_KEY"


@pytest.fixture
def keyed_spec(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> ModelSpec:
    """A custom spec whose key variable exists nowhere but in this test; cwd is an empty folder."""
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    spec = ModelSpec(name="k", backend="custom", model="m", base_url="http://localhost:1/v1", api_key_env=KEY_ENV)
    trust_spec(spec)  # as the command line does for a spec the user typed
    return spec


def write_secrets(tmp_path: Path, value: str) -> None:
    (tmp_path / ".streamlit").mkdir(exist_ok=True)
    (tmp_path / ".streamlit/secrets.toml").write_text(f'{KEY_ENV} = "{value}"\n', encoding="utf-8")


def test_key_lookup_order(keyed_spec: ModelSpec, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """override > environment > .streamlit/secrets.toml > None."""
    assert resolve_api_key(keyed_spec) is None
    write_secrets(tmp_path, "from-secrets-file-123")
    assert resolve_api_key(keyed_spec) == "from-secrets-file-123"
    monkeypatch.setenv(KEY_ENV, "from-environment-456")
    assert resolve_api_key(keyed_spec) == "from-environment-456"
    assert resolve_api_key(keyed_spec, "from-override-789") == "from-override-789"


def test_embedded_needs_no_key() -> None:
    """The embedded backend never gets a key, even when one is offered."""
    assert resolve_api_key(parse_model_spec("embedded", models_file=None), "offered-key-000") is None


def test_resolved_keys_are_redacted(keyed_spec: ModelSpec, monkeypatch: pytest.MonkeyPatch) -> None:
    """A key that was looked up is scrubbed from later messages."""
    monkeypatch.setenv(KEY_ENV, "plain-looking-secret-xyz")
    key = resolve_api_key(keyed_spec)
    assert redact(f"401: bad key {key} for user") == f"401: bad key {REDACTED} for user"


def test_redact_registered_and_key_shaped() -> None:
    """Registered secrets and sk-/hf_ shaped tokens are replaced; short or ordinary text is kept."""
    register_secret("my-registered-secret-42")
    register_secret("abc")  # too short to register: would redact ordinary words
    text = "a my-registered-secret-42 b sk-proj-AbC123dEf456GhI789 c hf_abcdefghijklmnopqrstuv d abc"
    assert redact(text) == f"a {REDACTED} b {REDACTED} c {REDACTED} d abc"
    assert redact("sk-short and hf_tiny and risk-free") == "sk-short and hf_tiny and risk-free"


# -- cache keys -------------------------------------------------------------------------------

MESSAGES = [{"role": "system", "content": "You are Ada."}, {"role": "user", "content": "Pick A or B."}]
IDENTITY = "custom|m|http://localhost:8000/v1"


def key(messages: list[dict[str, str]] = MESSAGES, params: dict | None = None, sample: int = 0, identity: str = IDENTITY) -> str:
    return ChatRequest.build(messages, params if params is not None else {"temperature": 0.0, "max_tokens": 1}, sample).cache_key(identity)


def test_cache_key_stable() -> None:
    """The same request gives the same 64-hex key; param order and None params do not matter."""
    k = key()
    assert k == key() and len(k) == 64 and int(k, 16) >= 0
    assert key(params={"max_tokens": 1, "temperature": 0.0}) == k
    assert key(params={"max_tokens": 1, "temperature": 0.0, "seed": None}) == k
    assert key(params={"stop": ["\n", "."]}) == key(params={"stop": ["\n", "."]})


def test_cache_key_changes() -> None:
    """Sample, params, messages (content, role, order) and model identity each change the key."""
    k = key()
    variants = [
        key(sample=1),
        key(params={"temperature": 0.7, "max_tokens": 1}),
        key(params={"temperature": 0.0, "max_tokens": 2}),
        key(params={"temperature": 0.0, "max_tokens": 1, "cache_prompt": True}),
        key(messages=[MESSAGES[0], {"role": "user", "content": "Pick A or B!"}]),
        key(messages=[MESSAGES[0], {"role": "assistant", "content": "Pick A or B."}]),
        key(messages=MESSAGES[::-1]),
        key(identity="custom|m|http://otherhost:8000/v1"),
        key(identity="custom|m2|http://localhost:8000/v1"),
        key(identity=parse_model_spec("embedded", models_file=None).identity),
    ]
    assert len({k, *variants}) == len(variants) + 1


def test_unknown_param_refused() -> None:
    """A generation param the engine does not know is a programming error, not silently cached."""
    with pytest.raises(ValueError, match="temprature"):
        ChatRequest.build(MESSAGES, {"temprature": 0.0})


# -- retries ----------------------------------------------------------------------------------

def test_retry_after_honoured_and_capped() -> None:
    """A server's Retry-After is used as is, up to max_retry_after_s."""
    policy, rng = RetryPolicy(max_retry_after_s=120.0), random.Random(0)
    assert policy.delay(0, 7.5, rng) == 7.5
    assert policy.delay(5, 0.0, rng) == 0.0
    assert policy.delay(0, 1000.0, rng) == 120.0


def test_backoff_within_jitter_bounds() -> None:
    """Without Retry-After: delay in [0.5, 1] * min(max_delay, base * 2**k), and actually jittered."""
    policy, rng = RetryPolicy(base_delay_s=0.5, max_delay_s=30.0), random.Random(1)
    for k in range(12):
        cap = min(30.0, 0.5 * 2**k)
        draws = [policy.delay(k, None, rng) for _ in range(200)]
        assert all(0.5 * cap <= d <= cap for d in draws)
        assert min(draws) < 0.6 * cap and max(draws) > 0.9 * cap


# -- error classification ---------------------------------------------------------------------

REQUEST = httpx.Request("POST", "http://localhost:8000/v1/chat/completions")


def status_error(status: int, headers: dict[str, str] | None = None, body: str = "") -> CallError:
    return http_status_error(httpx.Response(status, headers=headers or {}, text=body, request=REQUEST))


def test_rate_limit_with_retry_after() -> None:
    """429 with retry-after: 3 -> retryable, retry_after 3 s, status kept."""
    err = status_error(429, {"retry-after": "3"}, "slow down")
    assert (err.retryable, err.retry_after, err.status) == (True, 3.0, 429)
    assert "HTTP 429" in str(err) and "slow down" in str(err)
    assert status_error(429, {"retry-after-ms": "1500"}).retry_after == 1.5


def test_server_error_retryable() -> None:
    """500 -> retryable without a Retry-After; 408 and 409 are retryable too."""
    err = status_error(500, body="boom")
    assert (err.retryable, err.retry_after, err.status) == (True, None, 500)
    assert status_error(408).retryable and status_error(409).retryable


def test_bad_request_not_retryable() -> None:
    """400 (and 401) -> not retryable; a key echoed in the body is redacted."""
    err = status_error(400, body="model not found")
    assert (err.retryable, err.status) == (False, 400)
    auth = status_error(401, body="bad key sk-abcdefghijklmnopqrstuvwx")
    assert not auth.retryable and "sk-abcdefghijklmnopqrstuvwx" not in str(auth)


def test_timeout_and_connection_errors_retryable() -> None:
    """Timeouts, connection errors and undecodable bodies -> retryable with a one-line message."""
    timeout = classify_error(httpx.ReadTimeout("timed out", request=REQUEST))
    assert timeout.retryable and timeout.status is None and "timeout" in str(timeout)
    conn = classify_error(httpx.ConnectError("[Errno 111] Connection refused", request=REQUEST))
    assert conn.retryable and "connection error" in str(conn) and "\n" not in str(conn)
    bad = classify_error(json.JSONDecodeError("Expecting value", "<html>", 0))
    assert bad.retryable and str(bad).startswith("malformed reply")
    other = classify_error(RuntimeError("unexpected"))
    assert not other.retryable and str(other) == "RuntimeError: unexpected"


def test_embedded_requests_turn_llama_cpp_prompt_cache_off_unless_asked(stub_server, monkeypatch) -> None:
    """llama.cpp caches prompts by default, which makes replies depend on the previous request: the client sends
    cache_prompt=false to the embedded server unless the request sets it; other backends never get the knob."""
    import asyncio

    from analysis.llm import client as client_module
    from analysis.llm.client import LLMClient

    monkeypatch.setattr(client_module, "embedded_base_url", lambda: stub_server.url)

    async def send(spec: ModelSpec, params: dict) -> None:
        llm = LLMClient(spec)
        try:
            await llm.complete(ChatRequest.build([{"role": "user", "content": "Hi"}], params))
        finally:
            await llm.aclose()

    asyncio.run(send(parse_model_spec("embedded"), {"max_tokens": 4}))
    asyncio.run(send(parse_model_spec("embedded"), {"max_tokens": 4, "cache_prompt": True}))
    asyncio.run(send(parse_model_spec(f"stub-model@{stub_server.url}"), {"max_tokens": 4}))
    sent = [c["params"].get("cache_prompt", "absent") for c in stub_server.calls()]
    assert sent == [False, True, "absent"]


@pytest.mark.parametrize("value", ["sk-proj-" + "a1" * 20, "a8Fk29dkL3mQpZ7xW1nB4vC6", "OPENAI API KEY", "1KEY", "$HOME",
                                   "hunter2", "letmein", "HUNTER2HUNTER2"])
def test_api_key_env_must_be_a_variable_name(tmp_path: Path, value: str, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The key itself written as api_key_env is refused (it would be stored in runs.model_spec and printed by
    `models --json`), a weak one ("hunter2") too; the error names the file, table and field, never the value."""
    monkeypatch.setenv("SOME_SERVICE_KEY", "HUNTER2HUNTER2")  # a capitalised weak key: refused as a variable's value
    path = tmp_path / "models.toml"
    path.write_text(f'[models.mine]\nspec = "m@http://127.0.0.1:9/v1"\napi_key_env = "{value}"\n')
    with pytest.raises(InputError) as exc:
        load_named_models(path)
    assert "[models.mine] field 'api_key_env'" in str(exc.value) and value not in str(exc.value)
    monkeypatch.setattr("analysis.llm.specs.DEFAULT_MODELS_FILE", path)
    assert main(["models", "--json"]) == 2  # `models --json` refuses the file instead of printing the key
    out, err = capsys.readouterr()
    assert value not in out + err and "api_key_env" in err
    assert ModelSpec(name="x", backend="custom", model="m", api_key_env="MY_PROXY_KEY_2").api_key_env == "MY_PROXY_KEY_2"


def test_plain_key_as_model_is_not_echoed() -> None:
    key = "a8Fk29dkL3mQpZ7xW1nB4vC6e0"
    with pytest.raises(InputError) as exc:
        parse_model_spec(key, models_file=None)
    assert key not in str(exc.value) and "looks like an API key" in str(exc.value)
    with pytest.raises(InputError, match="'gpt-4o-mini' not understood"):  # a model name is still shown
        parse_model_spec("gpt-4o-mini", models_file=None)


def test_broken_models_toml_breaks_only_its_names(tmp_path: Path) -> None:
    """Type errors in models.toml used to break every run, even 'x@url' specs: built-in forms no longer read it."""
    path = tmp_path / "models.toml"
    path.write_text('[models.bad]\nspec = "m@http://127.0.0.1:9/v1"\ntimeout_s = "soon"\n')
    assert parse_model_spec("m@http://127.0.0.1:9/v1", models_file=path).model == "m"
    assert parse_model_spec("openai:gpt-4o", models_file=path).backend == "openai"
    with pytest.raises(InputError, match=r"\[models.bad\] field 'timeout_s'"):
        parse_model_spec("bad", models_file=path)
