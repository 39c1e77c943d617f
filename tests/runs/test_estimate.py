"""The estimate shown before a run: modelled from prompt lengths, then measured on an earlier run and checked
against the run it predicts."""

from __future__ import annotations

import time

import pytest

from analysis.llm.specs import ModelSpec, parse_model_spec
from analysis.runs.estimate import (DEFAULT_LATENCY_S, MIN_MEASURED_CALLS, REPLY_FILL, PastLatency, estimate_run,
                                     measured_throughput, past_latency)
from analysis.methods import create_run, execute_run
from analysis.runs.store import Store
from analysis.methods.values.plan import build_values_plan



def _tokens(method: str, plan) -> tuple[float, float] | str:
    """The method's own token model of a plan (``Method.tokens``), as the Run page asks for it."""
    from analysis import methods

    return methods.get(method).tokens(plan if isinstance(plan, dict) else plan.model_dump())

def test_modelled_estimate_counts_calls_tokens_and_cost():
    """Calls equal plan.n_calls(); logprob answers are 2 tokens each ("(" and the letter); cost uses the spec's prices;
    free without prices."""
    spec = parse_model_spec("embedded")
    plan = build_values_plan(spec, limit_personas=2, limit_items=5, contexts=["no_conv", "topics_b"], messages=3)
    est = estimate_run("values", _tokens("values", plan), spec, plan.n_calls())
    assert est.n_calls == 2 * (5 + 5 + 3)
    assert est.cost is None and est.tokens_in > 0 and est.seconds > 0 and not est.measured
    priced = ModelSpec(name="p", backend="custom", model="p", base_url="http://x/v1", price_input_per_mtok=1.0,
                       price_output_per_mtok=2.0, max_top_logprobs=200)
    plan2 = build_values_plan(priced, limit_personas=2, limit_items=5)
    est2 = estimate_run("values", _tokens("values", plan2), priced, plan2.n_calls())
    assert est2.tokens_out == 20  # 2 personas x 5 items x 2 tokens
    assert est2.cost == pytest.approx((est2.tokens_in * 1.0 + 20 * 2.0) / 1e6)
    assert est2.seconds == 10 * DEFAULT_LATENCY_S  # no past call of this endpoint: the stated default, said so
    assert "assumed 2 s per call at 1 concurrent (no past calls of this model)" in est2.basis
    est3 = estimate_run("values", _tokens("values", plan2), priced, plan2.n_calls(), latency=PastLatency(0.5, 40),
                        concurrency=4)
    assert est3.seconds == pytest.approx(10 * 0.5 / 4) and "median latency of this model's 40 past calls" in est3.basis


def test_methods_without_a_token_model_say_so():
    spec = parse_model_spec("embedded")
    est = estimate_run("trust", _tokens("trust", {"personas": []}), spec, 12)
    assert (est.n_calls, est.tokens_in, est.seconds, est.basis) == (12, None, None, "not modelled: its prompts hold replies not yet made; measured after a first run")


def _stub_spec(url: str) -> ModelSpec:
    return parse_model_spec(f"stub-model@{url}")


def test_no_measurement_without_enough_calls(tmp_path, stub_server):
    spec = _stub_spec(stub_server.url)
    with Store(tmp_path / "s.db") as store:
        plan = build_values_plan(spec, limit_personas=1, limit_items=MIN_MEASURED_CALLS - 1)
        run_id = create_run(store, "values", spec, plan.model_dump())
        execute_run(store, run_id, concurrency=1)
        assert measured_throughput(store, spec.name, "values") is None
        assert measured_throughput(store, "another-model", "values") is None


def test_measured_estimate_predicts_the_next_run(tmp_path, stub_server):
    """A first run measures throughput and tokens per call; the estimate of a second run on other personas
    (no cache hits) is checked against what that run then took and used.

    Tolerances: tokens within 10 % (the same items, other personas: prompts differ by the persona text only);
    time within 0.7-1.4x: every call waits the stub's 0.1 s latency at concurrency 1, so the ~2 ms per call the
    runner adds and a shared machine's noise stay well inside that band."""
    stub_server.configure(latency_s=0.1)
    spec = _stub_spec(stub_server.url)
    with Store(tmp_path / "s.db") as store:
        first = build_values_plan(spec, limit_personas=1, limit_items=8)
        run1 = create_run(store, "values", spec, first.model_dump())
        execute_run(store, run1, concurrency=1)
        measured = measured_throughput(store, spec.name, "values")
        assert measured is not None and measured.run_id == run1 and measured.n_calls == 8

        whole = build_values_plan(spec, limit_personas=4, limit_items=8)
        second = whole.model_copy(update={"personas": whole.personas[1:]})
        est = estimate_run("values", _tokens("values", second), spec, second.n_calls(), measured)
        assert est.measured and est.n_calls == 24
        run2 = create_run(store, "values", spec, second.model_dump())
        t0 = time.perf_counter()
        execute_run(store, run2, concurrency=1)
        took = time.perf_counter() - t0
        used = store.frame("SELECT SUM(tokens_in) AS tin, SUM(tokens_out) AS tout, COUNT(*) AS n FROM calls "
                           "WHERE run_id = ?", [run2]).iloc[0]
    assert int(used["n"]) == 24  # every call made, none from the cache
    assert est.tokens_in == pytest.approx(float(used["tin"]), rel=0.10)
    assert est.tokens_out == pytest.approx(float(used["tout"]), rel=0.10)
    assert 0.7 <= est.seconds / took <= 1.4, (est.seconds, took)


def test_only_a_run_of_the_same_method_measures(tmp_path, stub_server):
    """With runs of two methods, each measures only its own method; a third method has no measurement (its calls
    would have other lengths and counts), and an estimate refuses another method's run."""
    from analysis.methods.mbti.plan import build_mbti_plan

    spec = _stub_spec(stub_server.url)
    with Store(tmp_path / "s.db") as store:
        values = build_values_plan(spec, limit_personas=1, limit_items=6)
        execute_run(store, create_run(store, "values", spec, values.model_dump()), concurrency=1)
        mbti = build_mbti_plan(spec, subjects=["People"], testings=1, order="fixed", limit_statements=6, answer_mode="text")
        execute_run(store, create_run(store, "mbti", spec, mbti.model_dump()), concurrency=1)
        assert measured_throughput(store, spec.name, "values").method == "values"
        measured = measured_throughput(store, spec.name, "mbti")
        assert measured.method == "mbti" and measured_throughput(store, spec.name, "trust") is None
        est = estimate_run("trust", _tokens("trust", {}), spec, 10, None)
        assert est.tokens_in is None and est.seconds == 10 * DEFAULT_LATENCY_S
        latency = past_latency(store, spec.name)  # the model's calls of any method
        latencies = store.frame("SELECT latency_s FROM calls WHERE model = ?", [spec.name])["latency_s"]
        assert latency.n_calls == 12 and latency.median_s == pytest.approx(float(latencies.median()))
        with pytest.raises(ValueError, match="cannot measure"):
            estimate_run("trust", _tokens("trust", {}), spec, 10, measured)


def test_uncapped_mbti_replies_are_not_modelled(stub_server):
    """MBTI text replies at the model's own length (the reference's protocol, no ``--max-tokens``): their tokens,
    which also enter every later prompt of the testing, cannot be modelled from prompt lengths; a cap can."""
    from analysis.methods.mbti.plan import build_mbti_plan

    spec = _stub_spec(stub_server.url)
    uncapped = build_mbti_plan(spec, subjects=["People"], testings=1, order="fixed", limit_statements=6, answer_mode="text")
    est = estimate_run("mbti", _tokens("mbti", uncapped), spec, uncapped.n_calls())
    assert est.n_calls == 6 and est.tokens_in is None and est.tokens_out is None and est.seconds == 6 * DEFAULT_LATENCY_S
    assert "model's own length" in est.basis
    capped = build_mbti_plan(spec, subjects=["People"], testings=1, order="fixed", limit_statements=6, answer_mode="text",
                             text_max_tokens=20)
    est = estimate_run("mbti", _tokens("mbti", capped), spec, capped.n_calls())
    assert est.tokens_in > 0 and est.tokens_out == round(6 * 20 * REPLY_FILL)  # 6 replies, each modelled as 60 % of the cap


def test_a_calibrated_machine_times_the_embedded_model_by_its_speed(tmp_path, monkeypatch):
    """t = calls × overhead + tokens in / prompt tps + tokens out / gen tps (hand-worked), kept in the cache folder and
    read back; the estimate says it is calibrated."""
    import json

    from analysis.runs.calibration import EmbeddedSpeed, kept_path, kept_speed

    monkeypatch.setenv("ROLESCOPE_CACHE_DIR", str(tmp_path))
    assert kept_speed() is None
    speed = EmbeddedSpeed(overhead_s=0.5, prompt_tps=100.0, gen_tps=10.0, measured_at=0.0, load=0.3, cores=2, threads=2)
    assert speed.seconds(60, 12_000, 240) == pytest.approx(60 * 0.5 + 120 + 24)
    kept_path().parent.mkdir(parents=True, exist_ok=True)
    kept_path().write_text(json.dumps(speed.__dict__))
    assert kept_speed() == speed
    spec = parse_model_spec("embedded")
    est = estimate_run("inventory", (12_000.0, 240.0), spec, 60, speed=kept_speed())
    assert est.seconds == pytest.approx(174.0) and "calibrated on this machine" in est.basis
    assert "0.50 s per call, 100 prompt and 10 generated tokens/s" in est.basis
    uncalibrated = estimate_run("inventory", (12_000.0, 240.0), spec, 60)
    assert "this machine not calibrated yet" in uncalibrated.basis
    kept_path().write_text("{not json")
    assert kept_speed() is None  # an unreadable file is no calibration
