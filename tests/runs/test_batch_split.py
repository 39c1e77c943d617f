"""Batches that fit (issue 61, item 1): a wave cut into batch files within a model's request, byte and token limits;
a kill between batches resumed by adopting the open ones; a token budget queueing a batch until another ends."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.runs.batch_parts import BatchLimits, TokenQueue, enqueued_tokens
from analysis.runs.store import Store
from tests.runs.test_batch import _numbers
from tests.stub_server import StubServer

pytestmark = pytest.mark.timeout(900)

REPO = Path(__file__).resolve().parents[2]
PERSONAS = 65  # × 40 PVQ items: a wave of 2,600 calls


def _population(path: Path) -> Path:
    path.write_text(json.dumps([{"name": f"Persona {i}", "gender": "FM"[i % 2],
                                 "description": f"Persona {i}, a {['nurse', 'baker', 'pilot'][i % 3]} who likes "
                                                f"{['hiking', 'reading', 'painting', 'fishing'][i % 4]}."}
                                for i in range(PERSONAS)]), encoding="utf-8")
    return path


def _models(path: Path, url: str, **limits: int) -> Path:
    fields = "".join(f"{k} = {v}\n" for k, v in limits.items())
    path.write_text(f'[models.stub]\nspec = "stub@{url}"\n{fields}', encoding="utf-8")
    return path


def _run_args(tmp_path: Path, store: Path, run_id: str, poll: str = "0.02") -> list[str]:
    return ["run", "values", "--model", "stub", "--store", str(store), "--quiet", "--run-id", run_id,
            "--max-attempts", "1", "--population", str(_population(tmp_path / "personas.json")), "--contexts",
            "no_conv", "--answer-mode", "text", "--via", "batch", "--poll", poll]


def _uploaded(server: StubServer) -> list[list[bytes]]:
    """The request lines of every batch the stub was given, in creation order."""
    api = server.app.batches
    batches = sorted(api.batches.values(), key=lambda b: b.created_mono)
    return [[line for line in api.files[b.input_file_id][2].split(b"\n") if line.strip()] for b in batches]


def test_a_wave_is_cut_to_the_models_request_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """2,600 calls, at most 1,000 a batch: 3 batches (1,000, 1,000, 600), every request in exactly one, and the same
    numbers as the same wave sent as one batch."""
    with StubServer() as server:
        monkeypatch.setattr("analysis.llm.specs.DEFAULT_MODELS_FILE", _models(tmp_path / "m.toml", server.url))
        assert main(_run_args(tmp_path, tmp_path / "one.db", "one")) == 0
        assert [len(f) for f in _uploaded(server)] == [2600]
        server.app.batches.batches.clear()
        monkeypatch.setattr("analysis.llm.specs.DEFAULT_MODELS_FILE",
                            _models(tmp_path / "m.toml", server.url, batch_max_requests=1000))
        assert main(_run_args(tmp_path, tmp_path / "cut.db", "cut")) == 0
        files = _uploaded(server)
    assert [len(f) for f in files] == [1000, 1000, 600]
    keys = [json.loads(line)["custom_id"] for f in files for line in f]
    assert len(keys) == len(set(keys)) == 2600
    with Store(tmp_path / "cut.db", read_only=True) as s:
        kept = s.batches("cut")
        assert kept["n_requests"].tolist() == [1000, 1000, 600]
        assert set(kept["status"]) == {"completed, collected"}
    assert _numbers(tmp_path / "cut.db", "values") == _numbers(tmp_path / "one.db", "values")


def test_a_wave_is_cut_to_the_byte_limit_and_a_request_over_it_is_failed_by_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with StubServer() as server:
        monkeypatch.setattr("analysis.llm.specs.DEFAULT_MODELS_FILE",
                            _models(tmp_path / "m.toml", server.url, batch_max_bytes=300_000))
        assert main(_run_args(tmp_path, tmp_path / "s.db", "b")) == 0
        files = _uploaded(server)
    assert len(files) > 1 and all(sum(len(line) + 1 for line in f) <= 300_000 for f in files)
    assert sum(len(f) for f in files) == 2600

    long_one = tmp_path / "two.json"
    long_one.write_text(json.dumps([{"name": "Long", "gender": "F", "description": "A nurse. " * 300},
                                    {"name": "Short", "gender": "M", "description": "A pilot."}]), encoding="utf-8")
    with StubServer() as server:
        monkeypatch.setattr("analysis.llm.specs.DEFAULT_MODELS_FILE",
                            _models(tmp_path / "m.toml", server.url, batch_max_bytes=2048))
        assert main(["run", "values", "--model", "stub", "--store", str(tmp_path / "small.db"), "--quiet",
                     "--run-id", "small", "--max-attempts", "1", "--population", str(long_one), "--limit-items", "3",
                     "--contexts", "no_conv", "--answer-mode", "text", "--via", "batch", "--poll", "0.02"]) == 1
        sent = [json.loads(line)["body"]["messages"] for f in _uploaded(server) for line in f]
    assert len(sent) == 3 and not any("A nurse. A nurse." in json.dumps(m) for m in sent)
    with Store(tmp_path / "small.db", read_only=True) as s:
        errors = s.frame("SELECT error FROM call_failures WHERE run_id='small'")["error"].tolist()
    assert len(errors) == 3 and all(e.startswith("request not sent: its request line is ") and
                                    e.endswith("bytes, over this model's batch_max_bytes (2,048)") for e in errors)


def test_a_kill_between_batches_resumes_with_the_missing_batch_only_queued_by_the_token_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    """Limits of 1,000 requests a batch and a token budget holding two of them: the third waits; SIGKILL while it
    waits; ``resume`` adopts the two open batches, creates the third only once one of them has ended (the stub,
    enforcing the same budget, refuses none), and gives the numbers of an uninterrupted run: 3 batches in all."""
    with StubServer() as server:
        monkeypatch.setattr("analysis.llm.specs.DEFAULT_MODELS_FILE",
                            _models(tmp_path / "m.toml", server.url, batch_max_requests=1000))
        assert main(_run_args(tmp_path, tmp_path / "ref.db", "ref")) == 0
        tokens = [sum(enqueued_tokens(line + b"\n") for line in f) for f in _uploaded(server)]
        assert len(tokens) == 3
        budget = tokens[0] + tokens[1] + tokens[2] // 2  # two batches fit, the third does not beside them
        server.app.batches.batches.clear()

        models = _models(tmp_path / "m.toml", server.url, batch_max_requests=1000, batch_max_enqueued_tokens=budget)
        server.configure(batch={"outcome": "hold", "token_budget": budget})
        store = tmp_path / "s.db"
        code = ("import sys; from pathlib import Path; import analysis.llm.specs as specs; "
                f"specs.DEFAULT_MODELS_FILE = Path({str(models)!r}); from analysis.__main__ import main; "
                f"sys.exit(main({_run_args(tmp_path, store, 'k', poll='0.05')!r}))")
        proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(REPO)})
        try:
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and not _recorded(store, 2):
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                time.sleep(0.1)
            assert _recorded(store, 2)
            polled = sum(b.polls for b in server.app.batches.batches.values())
            while sum(b.polls for b in server.app.batches.batches.values()) < polled + 6:
                time.sleep(0.05)  # polling on: the third is waiting, not being made
            assert server.app.batches.stats()["batches"] == 2
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)

        server.configure(batch={"polls": 3, "token_budget": budget})  # the provider works through them
        monkeypatch.setattr("analysis.llm.specs.DEFAULT_MODELS_FILE", models)
        capfd.readouterr()
        assert main(["resume", "k", "--store", str(store), "--quiet", "--poll", "0.02"]) == 0
        assert "provider batches: 1 created, 2 open ones collected" in capfd.readouterr().err
        batches = sorted(server.app.batches.batches.values(), key=lambda b: b.created_mono)
    assert len(batches) == 3 and {b.status for b in batches} == {"completed"}
    assert batches[2].created_mono > min(b.ended_at for b in batches[:2])
    with Store(store, read_only=True) as s:
        assert s.batches("k")["n_requests"].tolist() == [1000, 1000, 600]
        assert s.query_one("SELECT COUNT(*) AS n FROM calls")["n"] == 2600
    assert _numbers(store, "values") == _numbers(tmp_path / "ref.db", "values")


def _recorded(store: Path, n: int) -> bool:
    if not store.exists():
        return False
    with Store(store, read_only=True) as s:
        return "run_batches" in s.table_names() and len(s.batches("k")) >= n


def test_a_batch_over_the_providers_token_limit_names_the_setting(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a budget in models.toml, the provider's refusal (token_limit_exceeded) fails the calls naming
    ``batch_max_enqueued_tokens``; resume asks them again."""
    with StubServer() as server:
        monkeypatch.setattr("analysis.llm.specs.DEFAULT_MODELS_FILE", _models(tmp_path / "m.toml", server.url))
        server.configure(batch={"token_budget": 10})
        assert main(["run", "values", "--model", "stub", "--store", str(tmp_path / "s.db"), "--quiet", "--run-id",
                     "t", "--max-attempts", "1", "--limit-personas", "1", "--limit-items", "4", "--contexts",
                     "no_conv", "--answer-mode", "text", "--via", "batch", "--poll", "0.02"]) == 1
    with Store(tmp_path / "s.db", read_only=True) as s:
        errors = set(s.frame("SELECT error FROM call_failures WHERE run_id='t'")["error"])
    assert len(errors) == 1
    assert next(iter(errors)).startswith("batch failed: token_limit_exceeded: Enqueued token limit reached")
    assert "set batch_max_enqueued_tokens in models.toml" in next(iter(errors))


def test_the_token_queue_waits_for_room_and_never_for_an_empty_queue() -> None:
    asyncio.run(_queue_waits())


async def _queue_waits() -> None:
    queue = TokenQueue(100)
    await queue.acquire(60)
    await queue.acquire(40)
    waiting = asyncio.ensure_future(queue.acquire(30))
    await asyncio.sleep(0.01)
    assert not waiting.done() and queue.waited == 1
    await queue.release(60)
    await asyncio.wait_for(waiting, 1)
    assert queue.enqueued == 70
    empty = TokenQueue(10)
    await asyncio.wait_for(empty.acquire(50), 1)  # alone, whatever its size
    assert TokenQueue(None).fits(10**12)


def test_limits_come_from_the_model_spec() -> None:
    from analysis.llm.specs import ModelSpec

    spec = ModelSpec(name="m", backend="openai", model="m", base_url="http://localhost:1/v1")
    assert BatchLimits.of(spec) == BatchLimits(50_000, 190_000_000, None)
