"""A 100,000-call plan exported as a batch file and its replies imported (issue 46): seconds and peak memory of each.

The plan: values, no conversation, PVQ-40 answered by logprobs (the default answer mode: each request asks
``logprobs: true, top_logprobs: 20``) by 2,500 generated personas (40 × 2,500 = 100,000 calls, one wave). Steps, each
in a fresh process so its peak RSS and CPU time are its own:

1. ``run values ... --via export --out requests.jsonl`` (creates the run, writes the wave);
2. a stand-in for ``vllm run_batch`` writes one result line per request: the stub's reply (``tests/stub_server.py``),
   its two logprob positions ("(" then the letter) padded to the 20 alternatives asked, as vLLM writes them (token,
   float32 logprob, bytes), with vLLM's other fields (not timed as ours);
3. ``import-replies RUN replies.jsonl`` (checks the file, stores 100,000 replies and answers, completes the run).

Targets (issue 61): import ≤ 1 GiB peak RSS and ≤ 60 s CPU (user + system), export ≤ 600 MiB peak RSS. Usage:
``.venv/bin/python bench/bench_batch.py [--personas 2500]`` (40 calls each).
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _timed(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of one command, from that child's own rusage
    (``os.wait4``)."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])}: exit {proc.returncode}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


#: Tokens a model ranks below the stub's alternatives (vocabulary pieces; none is an option letter after "(").
_FILLER = ["I", " (", "**", "The", "My", "Answer", "\n", "As", "Based", "This", "It", "In", "You", "1", "Well", "Not",
           "Very", "Somewhat", "Like", "\u2019", "Hmm", "Option", "Sure", "For", "None", "Yes", "No", "[", "\"", "("]


def _f32(x: float) -> float:
    """``x`` as vLLM reports a logprob: a float32 widened to a double (``-1.2345670461654663``)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _realistic(body: dict, asked: int) -> dict:
    """The stub's reply as vLLM writes it: each logprob position with ``asked`` alternatives (the stub gives a few),
    float32 logprobs, and the fields vLLM adds to a chat completion."""
    choice = body["choices"][0]
    for position in (choice.get("logprobs") or {}).get("content") or []:
        top = position["top_logprobs"]
        for entry in [position, *top]:
            entry["logprob"] = _f32(entry["logprob"] - 0.00012345)
        seen = {t["token"] for t in top}
        floor = min(t["logprob"] for t in top)
        for j, token in enumerate(t for t in _FILLER if t not in seen):
            if len(top) >= asked:
                break
            top.append({"token": token, "logprob": _f32(floor - 1.37 - 0.61 * j), "bytes": list(token.encode())})
    choice["message"] |= {"refusal": None, "annotations": None, "audio": None, "function_call": None, "tool_calls": [],
                          "reasoning_content": None}
    choice["stop_reason"] = None
    body["usage"]["prompt_tokens_details"] = None
    return body | {"service_tier": None, "system_fingerprint": None, "prompt_logprobs": None, "kv_transfer_params": None}


def _answer(requests: Path, replies: Path) -> int:
    sys.path.insert(0, str(REPO))
    from tests.stub_server import StubApp

    app = StubApp()
    n = 0
    with open(requests, "rb") as src, open(replies, "w", encoding="utf-8") as out:
        for n, raw in enumerate(src, start=1):
            request = json.loads(raw)
            status, body = app._batch_answer(request["body"], None, "bench")
            if status == 200:
                body = _realistic(body, int(request["body"].get("top_logprobs") or 0))
            out.write(json.dumps({"id": f"r{n}", "custom_id": request["custom_id"],
                                  "response": {"status_code": status, "body": body}, "error": None}) + "\n")
    return n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--personas", type=int, default=2500, help="personas (40 calls each)")
    args = parser.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store, requests, replies = root / "s.db", root / "requests.jsonl", root / "replies.jsonl"
        population = root / "personas.json"
        population.write_text(json.dumps([
            {"name": f"Persona {i}", "gender": "FM"[i % 2],
             "description": f"Persona {i} (born {1940 + i % 60}), who works as a {['nurse', 'baker', 'pilot'][i % 3]} "
                            f"and spends weekends {['hiking', 'reading', 'painting', 'fishing'][i % 4]}."}
            for i in range(args.personas)]))
        export_s, export_cpu, export_mb = _timed([py, "-m", "analysis", "run", "values", "--model", "bench@http://127.0.0.1:9/v1",
                                      "--store", str(store), "--run-id", "big", "--contexts", "no_conv",
                                      "--population", str(population), "--answer-mode", "logprob",
                                      "--via", "export", "--out", str(requests), "--yes", "--quiet"])
        n = _answer(requests, replies)
        import_s, import_cpu, import_mb = _timed([py, "-m", "analysis", "import-replies", "big", str(replies),
                                                  "--store", str(store), "--quiet"])
        sys.path.insert(0, str(REPO))
        from analysis.runs.store import Store

        with Store(store, read_only=True) as s:
            status = s.get_run("big")["status"]
            calls = s.query_one("SELECT COUNT(*) AS n FROM calls")["n"]
            answers = s.query_one("SELECT COUNT(*) AS n FROM values_answers WHERE valid=1")["n"]
        print(f"load average (1 min): {os.getloadavg()[0]:.2f}")
        print(f"plan: {n:,} requests in one wave ({requests.stat().st_size / 2**20:.0f} MiB of requests, "
              f"{replies.stat().st_size / 2**20:.0f} MiB of replies)")
        print(f"export: {export_s:.1f} s, {export_cpu:.1f} s CPU, peak RSS {export_mb:.0f} MiB (target <= 600 MiB)")
        print(f"import: {import_s:.1f} s, {import_cpu:.1f} s CPU, peak RSS {import_mb:.0f} MiB (target <= 60 s CPU, "
              "<= 1024 MiB)")
        print(f"store: run {status}, {calls:,} calls, {answers:,} valid answers")


if __name__ == "__main__":
    main()
