"""AppTest: the Run page estimates a plan, runs it in a background worker against a stub endpoint, cancels and resumes."""

from __future__ import annotations

import json
import time

import pytest

from analysis.runs.store import Store
from app.jobs import registry
from tests.stub_server import messages_hash


def _wait_for_job(run_id: str, timeout: float = 120.0) -> None:
    job = registry().get(run_id)
    deadline = time.monotonic() + timeout
    while job.running and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not job.running, f"run {run_id} still running after {timeout:.0f} s"


def _configure(at, stub_url: str, personas: int, items: int):
    at.selectbox(key="run_model").set_value("other").run()
    at.text_input(key="run_spec").input(f"stub-model@{stub_url}").run()
    at.multiselect(key="run_contexts").set_value(["no_conv"]).run()  # one context: the calls are personas × items
    at.number_input(key="run_personas").set_value(personas).run()
    at.number_input(key="run_items").set_value(items).run()
    at.number_input(key="run_concurrency").set_value(1).run()
    return at


def test_estimate_before_starting(app_on_fixture):
    """The default embedded plan (3 personas x 10 items x 2 contexts: 60 answers and 3 x 3 conversation messages)
    shows its 69 calls; on no_conv alone, 30 calls, tokens by prompt length, and no cost."""
    assert {m.label: m.value for m in app_on_fixture("run").metric}["LLM calls"] == "69"
    at = app_on_fixture("run", run_contexts="no_conv")
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["LLM calls"] == "30"
    assert metrics["Cost (est.)"] == "free"
    tokens_in, tokens_out = (int(x.replace(",", "")) for x in metrics["Tokens in / out (est.)"].split(" / "))
    assert tokens_out == 60 and 30 * 150 < tokens_in < 30 * 600  # "(" + letter per logprob answer; prompts of ~150-600 tokens


def test_run_completes_in_background_and_shows_results(app_on_fixture, stub_server, tmp_path):
    """A 1-persona x 3-item run against the stub finishes in the worker; the page reports it and the store holds 3 answers."""
    at = _configure(app_on_fixture("run"), stub_server.url, personas=1, items=3)
    assert {m.label: m.value for m in at.metric}["LLM calls"] == "3"
    at.button(key="run_start").click().run()
    assert not at.error, [e.value for e in at.error]
    run_id = at.session_state["run_job"]
    _wait_for_job(run_id)
    at.run()
    assert not at.exception
    assert any("Run completed" in s.value for s in at.success), [s.value for s in at.success]
    with Store(tmp_path / "user.db", read_only=True) as store:
        answers = store.table("values_answers", [run_id])
        assert len(answers) == 3 and answers["valid"].sum() == 3
        assert store.get_run(run_id)["status"] == "completed"
    assert len(stub_server.calls()) == 3
    at.button[[b.label for b in at.button].index("Show the results")].click().run()
    assert not at.exception
    assert at.session_state["store"] == "user" and at.title[0].value == "Leaderboard"
    assert at.dataframe[0].value["model"].tolist() == ["stub-model@127.0.0.1:" + stub_server.url.split(":")[-1].split("/")[0]]


def test_cancel_then_resume_makes_only_missing_calls(app_on_fixture, stub_server, tmp_path):
    """Cancelling stops the worker with part of the calls stored; resuming finishes the plan without repeating any call."""
    stub_server.configure(latency_s=0.3)
    at = _configure(app_on_fixture("run"), stub_server.url, personas=2, items=10)
    at.button(key="run_start").click().run()
    assert not at.error, [e.value for e in at.error]
    run_id = at.session_state["run_job"]
    deadline = time.monotonic() + 60
    while registry().get(run_id).tracker.snapshot().done < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    at.run()
    at.button(key=f"cancel-{run_id}").click().run()
    _wait_for_job(run_id)
    at.run()
    assert registry().get(run_id).status == "cancelled"
    with Store(tmp_path / "user.db", read_only=True) as store:
        first = len(store.table("values_answers", [run_id]))
        stored = store.frame("SELECT c.request FROM run_calls r JOIN calls c USING (cache_key) WHERE r.run_id=?", [run_id])
    stored_hashes = {messages_hash(json.loads(r)["messages"]) for r in stored["request"]}
    assert 0 < first < 20 and len(stored_hashes) == first
    stub_server.configure(latency_s=0.0)
    before = len(stub_server.calls())
    assert at.selectbox(key="resume_id").value == run_id
    at.button(key="resume_start").click().run()
    _wait_for_job(run_id)
    at.run()
    with Store(tmp_path / "user.db", read_only=True) as store:
        assert len(store.table("values_answers", [run_id])) == 20
        assert store.get_run(run_id)["status"] == "completed"
    resumed = [c["hash"] for c in stub_server.calls()[before:]]
    assert len(resumed) == 20 - first and not set(resumed) & stored_hashes  # only the missing calls were made


@pytest.mark.parametrize("method", ["mbti"])
def test_mbti_plan_estimate(app_on_fixture, method):
    """The MBTI form: People x 2 testings x 10 statements, permuted = 20 calls."""
    at = app_on_fixture("run", method=method)
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["LLM calls"] == "20"


def test_key_is_asked_for_and_kept_out_of_the_url(app_on_fixture, monkeypatch):
    """A priced named model without a key in the environment: the start button waits for a typed key, the cost is
    estimated from models.toml prices, and the key never reaches the URL."""
    import analysis.llm.keys as keys

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(keys, "_secrets_file_value", lambda name, path=None: None)  # ignore a developer's secrets.toml
    at = app_on_fixture("run")
    at.selectbox(key="run_model").set_value("gpt-4o-mini").run()
    assert at.button(key="run_start").disabled
    assert any("OPENAI_API_KEY" in w.value for w in at.warning)
    cost = {m.label: m.value for m in at.metric}["Cost (est.)"]
    assert cost.startswith("$") and float(cost[1:]) > 0
    at.text_input(key="run_api_key").input("sk-test-not-a-real-key-123456").run()
    assert not at.button(key="run_start").disabled
    assert "sk-test" not in str(dict(at.query_params))


def test_unreachable_endpoint_looks_failed_and_survives_a_reload(app_on_fixture, tmp_path):
    """Every call to a closed port fails: the panel is red with the first error and the counts (2 planned, 2 sent,
    0 answered, 2 failed), never a green box, and no results link; a new session opened on the run's URL (a reload)
    shows the same outcome."""
    at = _configure(app_on_fixture("run"), "http://127.0.0.1:9/v1", personas=1, items=2)
    at.number_input(key="run_concurrency").set_value(2).run()
    at.button(key="run_start").click().run()
    run_id = at.session_state["run_job"]
    _wait_for_job(run_id, timeout=240)
    at.run()
    assert not at.exception and not at.success
    assert at.query_params["run_job"] in (run_id, [run_id])
    red = " ".join(e.value for e in at.error)
    assert "Nothing to score: no call was answered" in red and "First error:" in red, red
    metrics = {m.label: m.value for m in at.metric}
    assert [metrics[k] for k in ("Planned", "Sent", "Answered", "Failed", "Not asked")] == ["2", "2", "0", "2", "0"]
    assert "Show the results" not in [b.label for b in at.button]
    reloaded = app_on_fixture("run", run_job=run_id)  # a new session: no session state, the URL only
    registry()._jobs.pop(run_id, None)  # as after a server restart: only the store remembers the run
    reloaded.run()
    assert not reloaded.exception
    assert any(f"Run `{run_id}`" in m.value for m in reloaded.markdown)
    assert "Nothing to score" in " ".join(e.value for e in reloaded.error)
    assert "Show the results" not in [b.label for b in reloaded.button]


def test_a_finished_run_stays_in_a_tab_opened_without_its_link_until_dismissed(app_on_fixture, stub_server):
    """A run started in one session is shown, finished, with its results link in another session opened on the bare
    Run page; dismissing it removes it from every tab."""
    at = _configure(app_on_fixture("run"), stub_server.url, personas=1, items=2)
    at.button(key="run_start").click().run()
    run_id = at.session_state["run_job"]
    _wait_for_job(run_id)
    other = app_on_fixture("run")  # another tab: no run_job in its URL
    assert any(f"Run `{run_id}`" in m.value for m in other.markdown)
    assert "Show the results" in [b.label for b in other.button]
    assert any("all 2 planned calls answered" in s.value for s in other.success)
    other.button(key=f"dismiss-{run_id}").click().run()
    assert not any(f"Run `{run_id}`" in m.value for m in other.markdown)
    assert not any(f"Run `{run_id}`" in m.value for m in app_on_fixture("run").markdown)


def test_connection_check_shows_the_exact_error(app_on_fixture, stub_server):
    at = _configure(app_on_fixture("run"), stub_server.url, personas=1, items=1)
    at.button(key="run_check").click().run()
    assert any(s.value.startswith("Connected: stub-model answered") for s in at.success)
    at = _configure(app_on_fixture("run"), "http://127.0.0.1:9/v1", personas=1, items=1)
    at.button(key="run_check").click().run()
    assert any(e.value.startswith("Connection failed: ") for e in at.error) and not at.exception


@pytest.mark.parametrize("method", ["trust", "personagym"])
def test_trust_and_personagym_runs_start_from_the_page(app_on_fixture, stub_server, method, tmp_path):
    """Both methods have their options on the Run page; a tiny run against the stub is created and executed."""
    at = app_on_fixture("run", method=method)
    at.selectbox(key="run_model").set_value("other").run()
    at.text_input(key="run_spec").input(f"stub-model@{stub_server.url}").run()
    if method == "trust":
        at.number_input(key="run_trust_personas").set_value(1).run()
        at.multiselect(key="run_trust_strategies").set_value(["Ctx+Tr"]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    calls = int({m.label: m.value for m in at.metric}["LLM calls"].replace(",", ""))
    assert calls >= 1
    at.button(key="run_start").click().run()
    run_id = at.session_state["run_job"]
    assert run_id.startswith(method)
    _wait_for_job(run_id, timeout=240)
    at.run()
    assert not at.exception
    # the results link only when the run's answers hold something to score (the stub's replies often do not)
    from analysis import methods
    from analysis.samples import scorable

    with Store(tmp_path / "user.db", read_only=True) as store:
        valid = scorable(methods.get(method).samples(store, [run_id]))[1]
    assert ("Show the results" in [b.label for b in at.button]) == (valid > 0)
    shown = " ".join(x.value for x in [*at.success, *at.warning, *at.error])
    assert ("Nothing to score" in shown) == (valid == 0), shown


def test_a_plan_that_can_show_nothing_says_so_before_it_starts(app_on_fixture):
    """What the metrics say when run on placeholder answers of this design (1 persona): each reason is theirs."""
    at = app_on_fixture("run", run_contexts="no_conv")
    at.number_input(key="run_personas").set_value(1).run()
    shows = next(m.value for m in at.markdown if m.value.startswith("**This run can show**"))
    assert "circumplex and Stress :orange[cannot show] (value structure needs at least 5 personas, got 1)" in shows
    assert "stability :orange[cannot show] (needs ≥ 2 contexts" in shows and "CFA fit :orange[cannot show] (" in shows
    assert any("produces no metric" in w.value for w in at.warning)


def test_a_b_pair_runs_both_models_and_opens_compare(app_on_fixture, stub_server, tmp_path):
    """'Run on A and B' creates one run per model with the same plan, shows both panels, and its Compare button lands
    on Compare with A and B set to the pair in the user's store."""
    at = _configure(app_on_fixture("run"), stub_server.url, personas=3, items=4)
    at.text_input(key="run_spec").input(f"stub-a@{stub_server.url}").run()
    at.toggle(key="run_ab").set_value(True).run()
    assert any(m.label == "LLM calls · embedded" for m in at.metric)  # model B starts as the embedded model
    at.selectbox(key="run_model_b").set_value("other").run()
    at.text_input(key="run_spec_b").input(f"stub-b@{stub_server.url}").run()
    labels = [m.label for m in at.metric]
    assert labels.count("Time (est.)") == 2 and any(label.startswith("LLM calls · stub-a@") for label in labels)
    assert at.button(key="run_start").label == "Run on A and B" and not at.button(key="run_start").disabled
    at.button(key="run_start").click().run()
    assert not at.error, [e.value for e in at.error]
    pair = at.session_state["run_jobs"]
    assert len(pair) == 2 and at.query_params["run_job"] == pair
    for run_id in pair:
        _wait_for_job(run_id)
    at.run()
    assert not at.exception
    assert sum("Run completed" in s.value for s in at.success) == 2
    with Store(tmp_path / "user.db", read_only=True) as store:
        runs = store.runs().set_index("run_id").loc[pair]
        assert sorted(m.split("@")[0] for m in runs["model"]) == ["stub-a", "stub-b"]
        plans = [json.loads(store.frame("SELECT plan FROM runs WHERE run_id = ?", [r])["plan"].iloc[0]) for r in pair]
    assert plans[0]["personas"] == plans[1]["personas"] and plans[0]["instrument"] == plans[1]["instrument"]
    compare = next(b for b in at.button if b.label.startswith("Compare stub-a@"))
    compare.click().run()
    assert not at.exception
    assert at.title[0].value == "Compare two models"
    assert at.session_state["a"].startswith("user::stub-a@") and at.session_state["b"].startswith("user::stub-b@")


def test_a_b_needs_two_different_models(app_on_fixture):
    at = app_on_fixture("run")
    at.toggle(key="run_ab").set_value(True).run()
    at.selectbox(key="run_model_b").set_value("embedded").run()
    assert any("A and B are both embedded" in w.value for w in at.warning)
    assert at.button(key="run_start").disabled


def test_the_estimate_after_a_first_run_is_measured(app_on_fixture, stub_server):
    """Before any run of the model: time at an assumed latency per call, said so; after one, tokens and time come from
    that run (said in the caption)."""
    at = _configure(app_on_fixture("run"), stub_server.url, personas=1, items=6)
    assert any("assumed 2 s per call" in c.value and "no past calls of this model" in c.value for c in at.caption)
    at.button(key="run_start").click().run()
    run_id = at.session_state["run_job"]
    _wait_for_job(run_id)
    at.run()
    at.number_input(key="run_personas").set_value(2).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Time (est.)"] != "—"
    assert any(c.value.startswith(f"Estimate measured on run {run_id} (6 calls at") for c in at.caption)


@pytest.mark.parametrize(("method", "query", "expected"), [
    ("trust", {"run_trust_personas": "3"}, "split-half reliability of behaviour :orange[cannot show] (needs ≥ 4 personas"),
    ("trust", {"run_trust_level": "individual", "run_trust_rounds": "1"}, "forecasts vs actions over rounds :orange[cannot show] (needs ≥ 2"),
    ("personagym", {}, "judge agreement (ICC) :orange[cannot show] (needs ≥ 2 evaluators"),
])
def test_trust_and_personagym_plans_say_what_they_can_show(app_on_fixture, method, query, expected):
    at = app_on_fixture("run", method=method, **query)
    shows = next(m.value for m in at.markdown if m.value.startswith("**This run can show**"))
    assert expected in shows, shows


def test_trust_protocol_options_reach_the_stored_plans(app_on_fixture, stub_server, tmp_path):
    """The Run page sets the options of ``run trust``: attribute set and answer form land in the plan; the endowment
    ablation plans one run per endowment ($10 last, the headline), estimated and started together."""
    at = app_on_fixture("run", method="trust")
    at.selectbox(key="run_model").set_value("other").run()
    at.text_input(key="run_spec").input(f"stub-model@{stub_server.url}").run()
    at.number_input(key="run_trust_personas").set_value(1).run()
    at.multiselect(key="run_trust_strategies").set_value(["Ctx+Tr"]).run()
    at.selectbox(key="run_trust_attrs").set_value("rolescope15").run()
    at.selectbox(key="run_trust_answer").set_value("numeric").run()
    at.toggle(key="run_trust_ablation").set_value(True).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.number_input(key="run_trust_endowment").disabled
    labels = [m.label for m in at.metric if m.label.startswith("LLM calls")]
    assert labels == ["LLM calls · $44", "LLM calls · $100", "LLM calls · $10"]
    assert "the endowment ablation (Table 9) :green[ok]" in next(m.value for m in at.markdown if m.value.startswith("**This run"))
    assert at.button(key="run_start").label == "Start 3 runs"
    at.button(key="run_start").click().run()
    started = at.session_state["run_jobs"]
    assert len(started) == 3
    for run_id in started:
        _wait_for_job(run_id, timeout=240)
    with Store(tmp_path / "user.db", read_only=True) as store:
        plans = [json.loads(store.frame("SELECT plan FROM runs WHERE run_id = ?", [r])["plan"].iloc[0]) for r in started]
    assert [p["endowment"] for p in plans] == [44, 100, 10]
    assert {p["attribute_set"] for p in plans} == {"rolescope15"} and {p["answer"] for p in plans} == {"numeric"}
    assert len({json.dumps(p["personas"]) for p in plans}) == 1


def test_trust_individual_level_offers_the_upfront_forecast(app_on_fixture):
    """Per-round forecasts (default) make one forecast call per round; the upfront option one per game."""
    at = app_on_fixture("run", method="trust", run_trust_level="individual", run_trust_personas="1",
                        run_trust_rounds="6", run_trust_archetypes=["1"])
    per_round = int({m.label: m.value for m in at.metric}["LLM calls"])
    at.selectbox(key="run_trust_forecast").set_value("upfront").run()
    assert not at.exception and not at.error
    upfront = int({m.label: m.value for m in at.metric}["LLM calls"])
    assert per_round - upfront == 5 and at.query_params["run_trust_forecast"] == "upfront"


def test_trust_paper_tables_plan_every_run_from_the_page(app_on_fixture):
    """'Every run of the paper's tables' plans the seven runs of ``run trust --paper-tables``, each estimate named by
    what sets it apart; both levels' options show and the conditioning and endowment ones do not."""
    at = app_on_fixture("run", method="trust", run_trust_personas="2", run_trust_strategies=["Ctx+Tr"])
    at.toggle(key="run_trust_paper").set_value(True).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    labels = [m.label for m in at.metric if m.label.startswith("LLM calls")]
    assert labels == ["LLM calls · individual · $10 · unconditioned", "LLM calls · population · $44 · unconditioned",
                      "LLM calls · population · $100 · unconditioned", "LLM calls · population · $10 · self-conditioned",
                      "LLM calls · population · $10 · weak-conditioned", "LLM calls · population · $10 · strong-conditioned",
                      "LLM calls · population · $10 · unconditioned"]
    keys = {w.key for w in (*at.selectbox, *at.number_input, *at.toggle)}
    assert {"run_trust_rounds", "run_trust_forecast", "run_trust_answer"} <= keys
    assert not {"run_trust_conditioning", "run_trust_endowment", "run_trust_ablation"} & keys
    assert at.button(key="run_start").label == "Start 7 runs"


def test_a_linked_endpoint_gets_no_key_without_a_tick_naming_its_host(app_on_fixture, monkeypatch, stub_server):
    """A link pre-fills a custom endpoint while ROLESCOPE_API_KEY is set: nothing can start (nor be tested) until the
    user ticks the box naming that host; the tick never reaches the URL; the run then sends the key there."""
    import hashlib

    key = "sk-test-linked-endpoint-0123456789"
    monkeypatch.setenv("ROLESCOPE_API_KEY", key)
    at = app_on_fixture("run", run_model="other", run_spec=f"m@{stub_server.url}")
    assert not at.exception
    assert at.button(key="run_start").disabled and at.button(key="run_check").disabled
    tick = at.checkbox(key="run_api_key_send_to_host")
    assert "127.0.0.1" in tick.label.replace("\\", "") and not tick.value  # markdown-escaped: 127\.0.0.1
    tick.check().run()
    assert not at.button(key="run_start").disabled
    assert "send_to_host" not in str(dict(at.query_params)) and key not in str(dict(at.query_params))
    at.button(key="run_check").click().run()
    assert any("Connected" in s.value for s in at.success)
    assert {c["auth_sha256"] for c in stub_server.calls()} == {hashlib.sha256(f"Bearer {key}".encode()).hexdigest()}


def test_a_very_large_plan_starts_only_when_confirmed(app_on_fixture, monkeypatch):
    """Above the call threshold (the CLI's --yes), the start button waits for a tick naming the number of calls."""
    monkeypatch.setattr("analysis.runs.limits.CONFIRM_CALLS", 5)
    at = app_on_fixture("run")
    assert not at.exception and at.button(key="run_start").disabled
    tick = at.checkbox(key="run_confirm_large")
    assert tick.label.startswith("Yes, start") and not tick.value
    tick.check().run()
    assert not at.button(key="run_start").disabled


def test_the_batch_api_choice_prices_and_runs_a_plan_in_waves(app_on_fixture, stub_server, tmp_path, monkeypatch):
    """'Provider batch API': the estimate gives the batch price (half the live one) and the waves; the run goes through
    the stub's /v1/batches (one batch per wave), the page shows the provider's counts while it waits."""
    import analysis.llm.keys as keys

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(keys, "_secrets_file_value", lambda name, path=None: None)
    at = app_on_fixture("run", run_contexts="no_conv")
    at.selectbox(key="run_model").set_value("gpt-4o-mini").run()
    live = float({m.label: m.value for m in at.metric}["Cost (est.)"][1:])
    at.segmented_control(key="run_via").set_value("batch").run()
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["Cost via batch (est.)"][1:]) == pytest.approx(live / 2, rel=0.01, abs=1e-4)
    assert metrics["Batches (waves)"] == "1"  # the default plan: no conversation, every item at once

    at = _configure(app_on_fixture("run"), stub_server.url, personas=2, items=3)
    assert not at.segmented_control(key="run_via").disabled
    at.segmented_control(key="run_via").set_value("batch").run()
    at.button(key="run_start").click().run()
    run_id = at.session_state["run_job"]
    _wait_for_job(run_id)
    at.run()
    assert not at.exception and any("Run completed" in s.value for s in at.success)
    with Store(tmp_path / "user.db", read_only=True) as store:
        assert store.batches(run_id)["status"].tolist() == ["completed, collected"]
    assert {c.get("batch") for c in stub_server.calls()} != {None} and len(stub_server.calls()) == 6


def test_the_embedded_model_answers_live_only(app_on_fixture):
    at = app_on_fixture("run")
    assert at.segmented_control(key="run_via").disabled
