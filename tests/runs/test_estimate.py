"""The estimate shown before a run: modelled from prompt lengths, then measured on an earlier run and checked
against the run it predicts."""

from __future__ import annotations

import time

import pytest

from analysis.llm.specs import ModelSpec, parse_model_spec
from analysis.runs.estimate import MIN_MEASURED_CALLS, REPLY_FILL, estimate_run, measured_throughput
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
    assert est2.seconds is None  # an endpoint's speed is unknown until measured


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
        assert est.tokens_in is None and est.seconds is None
        with pytest.raises(ValueError, match="cannot measure"):
            estimate_run("trust", _tokens("trust", {}), spec, 10, measured)


def test_uncapped_mbti_replies_are_not_modelled(stub_server):
    """MBTI text replies at the model's own length (the reference's protocol, no ``--max-tokens``): their tokens,
    which also enter every later prompt of the testing, cannot be modelled from prompt lengths; a cap can."""
    from analysis.methods.mbti.plan import build_mbti_plan

    spec = _stub_spec(stub_server.url)
    uncapped = build_mbti_plan(spec, subjects=["People"], testings=1, order="fixed", limit_statements=6, answer_mode="text")
    est = estimate_run("mbti", _tokens("mbti", uncapped), spec, uncapped.n_calls())
    assert est.n_calls == 6 and est.tokens_in is None and est.tokens_out is None and est.seconds is None
    assert "model's own length" in est.basis
    capped = build_mbti_plan(spec, subjects=["People"], testings=1, order="fixed", limit_statements=6, answer_mode="text",
                             text_max_tokens=20)
    est = estimate_run("mbti", _tokens("mbti", capped), spec, capped.n_calls())
    assert est.tokens_in > 0 and est.tokens_out == round(6 * 20 * REPLY_FILL)  # 6 replies, each modelled as 60 % of the cap
