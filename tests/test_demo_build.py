"""The demo build: two reduced builds, each in a fresh process (its own embedded server), run at once, give identical
tables.

Both run every part in the same order. Replies under prefix reuse depend on what the server's KV cache held before
(measured: a second build that ran only some parts gave other sampled conversation turns for values at temperature
0.7), so only the same campaign in the same order is expected to reproduce every row.

Compared: every method table and the calls' requests, replies and logprobs. Left out: wall-clock columns
and ``cached_tokens`` (how much of a prompt the server found in its KV cache is accounting, not a result;
the replies are compared bit for bit).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.demo import CONFIGS, demo_parts

REPO = Path(__file__).resolve().parents[1]
NOT_RESULTS = {"created_at", "started_at", "finished_at", "updated_at", "latency_s", "cached_tokens"}
# trust_forecasts holds up-front forecasts only (--forecast upfront); the default per-round ones are on trust_rounds
METHOD_TABLES = ("values_answers", "values_conversations", "mbti_answers", "trust_beliefs", "trust_transfers",
                 "trust_rounds", "personagym_questions", "personagym_answers", "personagym_grades")


def command(store: Path) -> list[str]:
    return [sys.executable, "-m", "analysis", "demo", "build", "--store", str(store), "--size", "reduced"]


def build(store: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command(store), cwd=REPO, capture_output=True, text=True, timeout=1800)


def result_tables(path: Path) -> dict[str, list[str]]:
    """Every table's rows (sorted, as repr) without the columns listed in NOT_RESULTS."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        out = {}
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT IN ('meta', 'sqlite_sequence')"):
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[1] not in NOT_RESULTS]
            out[table] = sorted(map(repr, conn.execute(f"SELECT {', '.join(cols)} FROM {table}")))
        return out
    finally:
        conn.close()


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """Two builds at once, each in its own process with its own server (under the suite's one-thread model, two at
    once take as long as one)."""
    root = tmp_path_factory.mktemp("demo")
    builds = [subprocess.Popen(command(root / name), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for name in ("a.db", "b.db")]
    (_, first), (_, second) = (b.communicate(timeout=1800) for b in builds)
    assert builds[0].returncode == 0, first[-2000:]
    assert builds[1].returncode == 0, second[-2000:]
    return root / "a.db", root / "b.db", first


@pytest.mark.slow
@pytest.mark.timeout(3600)  # the module fixture's two builds run inside the first test that uses it
def test_two_builds_give_identical_tables(two_builds: tuple[Path, Path, str]) -> None:
    a, b, _ = two_builds
    ta, tb = result_tables(a), result_tables(b)
    assert ta.keys() == tb.keys()
    for table in ta:
        assert ta[table] == tb[table], f"{table}: {len(set(ta[table]) ^ set(tb[table]))} rows differ"


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_every_method_and_config_is_complete_and_recorded(two_builds: tuple[Path, Path, str]) -> None:
    a, _, log = two_builds
    conn = sqlite3.connect(f"file:{a}?mode=ro", uri=True)
    runs = {r[0]: r for r in conn.execute("SELECT run_id, status, model, plan FROM runs")}
    parts = {n: p for n, p in demo_parts().items() if p.needs is None}
    planned = {f"demo-{n}-{c.name}" for n, p in parts.items() for c in CONFIGS if c.covers(p)}
    assert planned <= set(runs)
    assert all(any(r.startswith(f"{p}-") for p in planned) for r in set(runs) - planned)  # the parts of a campaign
    assert {r[1] for r in runs.values()} == {"completed"}
    for config in (c for c in CONFIGS if c.covers(parts["values"])):
        plan = json.loads(runs[f"demo-values-{config.name}"][3])
        assert plan["answer_mode"] == config.answer_mode and plan["prefix_reuse"] is True
        # the configuration's generation parameters are in the stored plan; the values protocol sets the temperatures
        assert plan["params"] == {k: v for k, v in config.params.items() if k != "temperature"}
        assert (plan["structure"], plan["conversation_temperature"], plan["answer_temperature"]) == ("reference", 0.7, 0.0)
    for config in (c for c in CONFIGS if c.answer_format == "json"):
        for level in ("population", "individual"):
            assert json.loads(runs[f"demo-trust-{level}-{config.name}"][3])["answer_format"] == "json"
        # the grammar closes every reply: the structured configuration's games reach forecasts the text ones never read
        valid = conn.execute("SELECT COUNT(*) FROM trust_rounds WHERE model = ? AND forecast_valid = 1",
                             (config.name,)).fetchone()[0]
        assert valid > 0, f"{config.name}: no valid forecast"
    for table in METHOD_TABLES:
        assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] > 0, f"{table} is empty"
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # the file alone is the store
    assert "demo-values-smollm2-t07: completed" in log  # progress lines on stderr
    conn.close()


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_rebuild_of_a_complete_store_makes_no_calls(two_builds: tuple[Path, Path, str]) -> None:
    a, _, _ = two_builds
    before = result_tables(a)
    again = build(a)
    assert again.returncode == 0, again.stderr[-2000:]
    parts = [p for p in demo_parts().values() if p.needs is None]
    assert again.stderr.count("already complete") == sum(c.covers(p) for p in parts for c in CONFIGS)
    assert result_tables(a) == before


def test_campaign_on_an_openai_compatible_endpoint(stub_server, tmp_path: Path) -> None:
    """`demo build --model SPEC --store PATH` runs the same campaign on another endpoint: one config per spec,
    named after the spec, every run completed, evaluators default to the model (no embedded server needed)."""
    from analysis.demo import build_demo, campaign_configs

    store = tmp_path / "campaign.db"
    configs = campaign_configs([f"stub-model@{stub_server.url}"])
    lines: list[str] = []
    run_ids = build_demo(store, "reduced", configs=configs, log=lines.append)
    name = configs[0].name
    assert name.startswith("stub-model@127.0.0.1:")
    parts = [n for n, p in demo_parts().items() if p.needs is None]
    assert run_ids == [f"demo-{n}-stub-model-127.0.0.1-{name.rsplit(':', 1)[1]}" for n in parts]
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    assert {r[0] for r in conn.execute("SELECT status FROM runs")} == {"completed"}
    assert {r[0] for r in conn.execute("SELECT model FROM runs")} == {name}
    conn.close()
    calls = stub_server.calls()
    assert calls and {c["model"] for c in calls} == {"stub-model"}
    assert not any("cache_prompt" in c["params"] for c in calls)  # llama.cpp's knob goes to the embedded server only
    assert any(line.endswith("s") and "completed" in line for line in lines)


def test_campaign_needs_distinct_names_and_a_store() -> None:
    from analysis.demo import campaign_configs
    from analysis.errors import InputError

    with pytest.raises(InputError, match="share a display name"):
        campaign_configs(["openai:gpt-4o-mini", "openai:gpt-4o-mini"])
    done = subprocess.run([sys.executable, "-m", "analysis", "demo", "build", "--model", "openai:gpt-4o-mini"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2 and "give --store PATH" in done.stderr


def test_changed_plan_replaces_the_run_and_reuses_stored_calls(stub_server, tmp_path: Path, monkeypatch) -> None:
    """Rebuilding after the campaign changed (one more testing) replaces the run; only the new calls are made."""
    from analysis import demo
    from analysis.methods.mbti import demo as mbti_demo

    store, configs = tmp_path / "c.db", demo.campaign_configs([f"stub-model@{stub_server.url}"])
    demo.build_demo(store, "reduced", methods=["mbti"], configs=configs, log=lambda m: None)
    first_calls = len(stub_server.calls())
    reduced = mbti_demo.SIZES["reduced"]
    monkeypatch.setitem(mbti_demo.SIZES, "reduced", reduced | {"testings": reduced["testings"] + 1})
    lines: list[str] = []
    demo.build_demo(store, "reduced", methods=["mbti"], configs=configs, log=lines.append)
    assert any("plan changed; replacing the run" in line for line in lines)
    per_testing = len(reduced["subjects"]) * 2 * reduced["statements"]  # subjects x orders x statements
    assert len(stub_server.calls()) - first_calls == per_testing
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    n_answers = conn.execute("SELECT COUNT(*) FROM mbti_answers").fetchone()[0]
    conn.close()
    assert n_answers == per_testing * (reduced["testings"] + 1)


def test_interrupted_build_stops_after_the_current_run_and_resumes(stub_server, tmp_path: Path) -> None:
    """A set cancel event (Ctrl-C in the CLI) ends the build after the current run; building again completes it."""
    import threading

    from analysis import demo

    store, configs = tmp_path / "c.db", demo.campaign_configs([f"stub-model@{stub_server.url}"])
    cancel, lines = threading.Event(), []
    cancel.set()
    demo.build_demo(store, "reduced", methods=["mbti", "values"], configs=configs, log=lines.append, cancel=cancel)
    assert lines[-1] == "demo build interrupted; run it again to resume"
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    assert [r[0] for r in conn.execute("SELECT status FROM runs")] == ["cancelled"]  # values was never started
    conn.close()
    demo.build_demo(store, "reduced", methods=["mbti", "values"], configs=configs, log=lambda m: None)
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    assert [r[0] for r in conn.execute("SELECT status FROM runs")] == ["completed", "completed"]
    conn.close()


SVS = REPO.parent / "shared/anchors/stick_to_your_role/data/data_svs"


@pytest.mark.skipif(not SVS.is_dir(), reason=f"reference SVS not found at {SVS}")
def test_svs_campaign_needs_a_store_and_adds_no_conv_on_the_svs(stub_server, tmp_path: Path) -> None:
    """`--svs PATH` adds one values-svs run per configuration: no_conv, the SVS instrument, every answer stored."""
    from analysis.demo import build_demo, campaign_configs
    from analysis.errors import InputError

    done = subprocess.run([sys.executable, "-m", "analysis", "demo", "build", "--svs", str(SVS)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2 and "demo build --svs: give --store PATH" in done.stderr
    store, configs = tmp_path / "svs.db", campaign_configs([f"stub-model@{stub_server.url}"])
    with pytest.raises(InputError, match=r"values-svs needs --svs PATH"):
        build_demo(store, "reduced", methods=["values-svs"], configs=configs, log=lambda m: None)
    build_demo(store, "reduced", methods=["values-svs"], configs=configs, log=lambda m: None, svs=SVS)
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    (run_id, status, plan), = conn.execute("SELECT run_id, status, plan FROM runs").fetchall()
    assert run_id.startswith("demo-values-svs-") and status == "completed"
    plan = json.loads(plan)
    assert [c["label"] for c in plan["contexts"]] == ["no_conv"] and plan["instrument"]["kind"] == "svs"
    rows = conn.execute("SELECT DISTINCT context, instrument FROM values_answers").fetchall()
    conn.close()
    assert [r[0] for r in rows] == ["no_conv"] and len(rows) == 1


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_rederive_rebuilds_tables_from_stored_replies_without_new_calls(two_builds: tuple[Path, Path, str],
                                                                        tmp_path: Path) -> None:
    """``demo build --rederive`` (after a parser fix): every table is derived again from the call cache, stale rows go,
    and no request is sent (the calls table is unchanged)."""
    a, _, _ = two_builds
    c = tmp_path / "c.db"
    c.write_bytes(a.read_bytes())
    conn = sqlite3.connect(c)
    conn.execute("UPDATE trust_transfers SET sent = 99, valid = 1")  # what a wrong parser would have stored
    conn.execute("INSERT INTO mbti_answers (run_id, model, subject, order_mode, testing, statement_id) "
                 "SELECT run_id, model, 'Stale', order_mode, testing, statement_id FROM mbti_answers LIMIT 1")
    conn.commit()
    conn.close()
    out = subprocess.run([sys.executable, "-m", "analysis", "demo", "build", "--store", str(c), "--size", "reduced",
                          "--rederive"], cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "re-deriving" in out.stderr
    ta, tc = result_tables(a), result_tables(c)
    for table in (*METHOD_TABLES, "calls"):
        assert tc[table] == ta[table], f"{table}: {len(set(ta[table]) ^ set(tc[table]))} rows differ"


def test_pruning_drops_only_calls_no_run_uses(tmp_path: Path) -> None:
    """After a protocol change the replaced runs' calls stay in the cache; the bundled demo drops them before packing:
    3 calls stored, 2 used by a run -> 1 dropped, the used ones kept."""
    from analysis.demo import prune_unreferenced_calls
    from analysis.runs.store import Store

    with Store(tmp_path / "s.db") as store:
        store.create_run("r", "values", "m", {}, {"method": "values"})
    conn = sqlite3.connect(tmp_path / "s.db")
    conn.executemany("INSERT INTO calls (cache_key, model, request, reply, created_at) VALUES (?, 'm', '{}', 'x', 0)",
                     [("a",), ("b",), ("old",)])
    conn.executemany("INSERT INTO run_calls (run_id, unit, cache_key, cached, created_at) VALUES ('r', ?, ?, 0, 0)",
                     [("u1", "a"), ("u2", "b")])
    conn.commit()
    assert prune_unreferenced_calls(conn) == 1
    assert sorted(k for (k,) in conn.execute("SELECT cache_key FROM calls")) == ["a", "b"]
    conn.close()


def test_demo_reports_computes_the_default_reports_into_the_store_without_a_model(tmp_path: Path) -> None:
    """``demo reports --store PATH``: every method's report and chance bands as the dashboard asks for them by
    default, in the store's own report table; the file alone is the store afterwards. A missing store is one line."""
    from analysis import methods
    from analysis.runs.store import Store

    store = tmp_path / "s.db"
    Store(store).close()
    done = subprocess.run([sys.executable, "-m", "analysis", "demo", "reports", "--store", str(store), "--chance", "2"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    kinds = {r[0] for r in conn.execute("SELECT method FROM report_cache")}
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()
    names = {m.name for m in methods.all_methods()}
    assert names <= kinds and not {f"chance-{n}" for n in names} & kinds  # chance bands are in the reports
    missing = subprocess.run([sys.executable, "-m", "analysis", "demo", "reports", "--store", str(tmp_path / "no.db")],
                             cwd=REPO, capture_output=True, text=True, timeout=600)
    assert missing.returncode == 2 and missing.stderr.strip().splitlines()[-1].endswith(
        "not found (build it: python -m analysis demo build)")
