"""Issue 61 item 3: a server that refuses the top logprobs a run asks for (vLLM above its ``--max-logprobs``, default
20) is named in one line with the setting to change: before the run is created when the run asks more than 20 (one
probe, ``max_tokens`` 1), after it from its stored failures when the server was started below 20."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.runs.store import Store
from tests.stub_server import FaultRule, StubServer

VALUES = ["--limit-personas", "3", "--limit-items", "6", "--contexts", "no_conv", "--max-attempts", "1", "--quiet"]


def _named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, max_top_logprobs: int) -> str:
    """A models.toml naming the stub as ``vllm-like`` with ``max_top_logprobs``, read by ``--model vllm-like``."""
    path = tmp_path / "models.toml"
    path.write_text(f'[models.vllm-like]\nspec = "stub@{url}"\nmax_top_logprobs = {max_top_logprobs}\n', encoding="utf-8")
    monkeypatch.setattr("analysis.llm.specs.DEFAULT_MODELS_FILE", path)
    return "vllm-like"


def test_vllms_wording_is_read() -> None:
    from analysis.llm.check import logprob_limit

    refusal = ('HTTP 400: {"error":{"message":"Requested sample logprobs of 200, which is greater than max allowed: 20 '
               '(parameter=logprobs, value=200)","type":"BadRequestError","param":"logprobs","code":400}}')
    limit = logprob_limit(refusal)
    assert limit is not None and (limit.asked, limit.allowed) == (200, 20)
    assert logprob_limit('{"object":"error","message":"Requested sample logprobs of 21, which is greater than max '
                         'allowed: 5","code":400}').allowed == 5  # older vLLM: no suffix, the error at the top level
    assert logprob_limit("HTTP 400: Requested prompt logprobs of 21, which is greater than max allowed: 20") is None


def test_a_run_asking_more_logprobs_than_the_server_allows_is_refused_before_it_is_created(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.db"
    with StubServer() as server:
        server.configure([FaultRule("max_logprobs", modulo=1, times=None, max_logprobs=20)])  # vLLM as started
        model = _named(tmp_path, monkeypatch, server.url, 200)
        capfd.readouterr()
        assert main(["run", "values", "--model", model, "--store", str(store), *VALUES]) == 2
        err = capfd.readouterr().err.strip().splitlines()
        assert err == ["error: vllm-like: the server allows at most 20 top logprobs and the request asks for 200: set "
                       "max_top_logprobs = 20 for this model in models.toml (or start vLLM with --max-logprobs 200)"]
        assert not store.exists()  # no run, no store
        probe, = server.calls()
        assert probe["params"]["max_tokens"] == 1 and probe["params"]["top_logprobs"] == 200 and probe["status"] == 400

        # set as the line says: the run is made, and a run asking no more than 20 sends no probe
        model = _named(tmp_path, monkeypatch, server.url, 20)
        assert main(["run", "values", "--model", model, "--store", str(store), "--run-id", "ok", *VALUES]) == 0
        calls = server.calls()[1:]
        assert len(calls) == 18 and all(c["status"] == 200 and c["params"]["top_logprobs"] == 20 for c in calls)


def test_a_server_started_below_what_a_run_asks_is_named_after_it(tmp_path: Path,
                                                                   capfd: pytest.CaptureFixture[str]) -> None:
    """Not probed (it asks 20, what servers serve by default): every call is refused and stored as failed, and the
    run's last lines name the setting."""
    store = tmp_path / "s.db"
    with StubServer() as server:
        server.configure([FaultRule("max_logprobs", modulo=1, times=None, max_logprobs=10)])
        capfd.readouterr()
        assert main(["run", "values", "--model", f"stub@{server.url}", "--store", str(store), "--run-id", "low",
                     *VALUES]) == 1
        assert len(server.calls()) == 18
    err = capfd.readouterr().err.splitlines()
    with Store(store, read_only=True) as s:
        model = s.get_run("low")["model"]
    line = (f"{model}: the server allows at most 10 top logprobs and the request asks for 20: set max_top_logprobs = 10 "
            "for this model in models.toml (or start vLLM with --max-logprobs 20)")
    assert err.count(line) == 1, err
