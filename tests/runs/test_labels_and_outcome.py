"""A run's name, tags and note (``analysis.runs.labels``) and how a run ended (``analysis.runs.outcome``)."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from analysis.errors import InputError
from analysis.report_cache import content_signature
from analysis.runs.labels import all_tags, labels, parse_tags, set_label, tagged, with_labels
from analysis.runs.outcome import Counts, live_counts, outcome, store_counts
from analysis.runs.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "s.db") as s:
        for run_id in ("r1", "r2"):
            s.create_run(run_id, "values", "m", {"name": "m"}, {"method": "values"})
        yield s


def test_labels_are_kept_replaced_and_filter_runs(store: Store) -> None:
    set_label(store, "r1", name=" pilot ", tags=["gpt", " baseline", "gpt", ""], note="first try")
    set_label(store, "r2", tags=parse_tags("baseline, ablation"))
    got = labels(store).set_index("run_id")
    assert got.loc["r1", "name"] == "pilot" and got.loc["r1", "tags"] == ["gpt", "baseline"]
    assert got.loc["r1", "note"] == "first try" and got.loc["r2", "tags"] == ["baseline", "ablation"]
    runs = with_labels(store.runs(), labels(store))
    assert sorted(tagged(runs, ["baseline"])["run_id"]) == ["r1", "r2"]
    assert list(tagged(runs, ["baseline", "gpt"])["run_id"]) == ["r1"]
    assert len(tagged(runs, [])) == 2 and all_tags(labels(store)) == ["ablation", "baseline", "gpt"]
    set_label(store, "r1", name="renamed")  # replaces: tags and note cleared
    got = labels(store).set_index("run_id")
    assert got.loc["r1", "name"] == "renamed" and got.loc["r1", "tags"] == []


def test_a_label_changes_no_report_and_goes_with_its_run(store: Store) -> None:
    before = content_signature(store)
    set_label(store, "r1", tags=["x"])
    assert content_signature(store) == before  # a tag changes no number: reports are not recomputed
    store.delete_run("r1")
    assert "r1" not in set(labels(store)["run_id"])


def test_bad_labels_are_refused_and_nothing_written(store: Store) -> None:
    with pytest.raises(InputError, match="run 'nope' not found"):
        set_label(store, "nope", name="x")
    with pytest.raises(InputError, match="longer than 40"):
        set_label(store, "r1", tags=["t" * 41])
    assert labels(store).empty


def test_a_key_in_a_note_is_scrubbed_at_the_write_path(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "rk-" + secrets.token_hex(16)
    monkeypatch.setenv("ROLESCOPE_TEST_API_KEY", key)
    set_label(store, "r1", name=f"run with {key}", note=f"key {key} pasted")
    raw = store.frame("SELECT name, note FROM run_labels").to_string()
    assert key not in raw and key[:12] not in raw


# -- outcomes ------------------------------------------------------------------------------------------
def test_the_issue_personagym_stub_run_is_red_not_green() -> None:
    """24 planned, 4 sent and answered, nothing scored: red, 'nothing to score', 20 not asked."""
    result = outcome("completed", Counts(planned=24, answered=4, cached=0, failed=0), scored=0, valid=0)
    assert result.level == "error" and result.title.startswith("Nothing to score")
    assert (result.counts.sent, result.counts.not_asked) == (4, 20)
    assert "24 planned · 4 sent · 4 answered (0 from cache) · 0 failed · 20 not asked" in result.detail
    assert not result.has_results


def test_every_call_failed_is_red_with_the_first_error() -> None:
    result = outcome("completed_with_failures", Counts(2, 0, 0, 2), 0, 0, first_error="HTTP 500")
    assert result.level == "error" and "no call was answered" in result.title
    assert "First error: HTTP 500" in result.detail and result.counts.sent == 2


def test_green_only_when_every_planned_call_was_answered() -> None:
    assert outcome("completed", Counts(10, 10, 3, 0), 10, 7).level == "success"
    partial = outcome("completed_with_failures", Counts(10, 8, 0, 2), 8, 8, first_error="timeout")
    assert partial.level == "warning" and "2 failed" in partial.title and "timeout" in partial.detail
    fewer = outcome("completed", Counts(24, 12, 0, 0), 6, 6)
    assert fewer.level == "warning" and "12 not asked" in fewer.title


def test_cancelled_and_failed_runs() -> None:
    assert outcome("cancelled", Counts(10, 0, 0, 0), 0, 0).level == "error"  # nothing to score: no results link
    cancelled = outcome("cancelled", Counts(10, 4, 0, 0), 4, 4)
    assert cancelled.level == "warning" and cancelled.has_results
    failed = outcome("failed", Counts(10, 4, 0, 0), 4, 4, error="RunFailure: boom")
    assert failed.level == "error" and failed.title == "Run failed: RunFailure: boom"
    assert outcome("running", Counts(10, 4, 0, 0), None, None).level == "info"


def test_counts_from_a_progress_snapshot_and_from_the_store(store: Store) -> None:
    live = live_counts(total=24, done=24, cached=1, failed=2, skipped=18)  # the issue's "24 of 24 done"
    assert (live.answered, live.sent, live.not_asked) == (4, 5, 18)
    from analysis.llm.client import ChatReply, ChatRequest

    request = ChatRequest.build([{"role": "user", "content": "hi"}], {"max_tokens": 5})
    store.record_call("r1", "u1", request.cache_key("m"), "m", request, ChatReply("hello", "stop", None))
    store.link_cached_call("r1", "u2", request.cache_key("m"))
    store.record_failure("r1", "u3", "k3", "HTTP 500", 3)
    counts = store_counts(store, "r1", planned=5)
    assert (counts.answered, counts.cached, counts.failed, counts.sent, counts.not_asked) == (2, 1, 1, 2, 2)


def test_the_label_command_and_runs_by_tag(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    """`label` names and tags a run; `runs --tag` lists the tagged ones; an unknown run is one line, exit 2."""
    import json

    from analysis.__main__ import main

    path = str(store.path)
    assert main(["label", "r2", "--name", "second", "--tag", "a,b", "--tag", "c", "--store", path]) == 0
    capsys.readouterr()
    assert main(["runs", "--store", path, "--tag", "b", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(r["run_id"], r["name"], r["tags"]) for r in listed] == [("r2", "second", ["a", "b", "c"])]
    assert main(["label", "nope", "--tag", "x", "--store", path]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope" in err[0]


def test_not_asked_calls_say_why_and_the_tab_follows_the_url() -> None:
    """Issue 43, item 11: a completed run with calls never asked says why (the reasons its stored rows give, else the
    unusable step they depended on); the tab's title tells the run in ``?run_job=``, not another one shown."""
    import pandas as pd

    from analysis.runs.outcome import not_asked_reasons, titled_run

    counts = Counts(planned=42, answered=8, cached=0, failed=0)
    steps = pd.DataFrame({"kind": ["environments", "grade"], "reason": ["no environment read from the reply", None],
                          "valid": [0, 1], "scored": [False, True]})
    why = not_asked_reasons(steps)
    assert why == "environments: no environment read from the reply"
    told = outcome("completed", counts, 1, 1, not_asked_why=why)
    assert told.level == "warning" and "34 not asked" in told.title
    assert "Not asked (34): environments: no environment read from the reply." in told.detail
    moot = pd.DataFrame({"kind": ["grade", "grade"], "reason": ["not asked: answer failed: x", "not asked: answer failed: x"],
                         "valid": [0, 0], "scored": [True, True]})
    assert not_asked_reasons(moot) == "answer failed: x"
    assert "no reason stored" in outcome("completed", counts, 1, 1).detail
    assert titled_run(["other", "mine"], ["mine"]) == "mine" and titled_run(["mine", "other"], ["mine"]) == "mine"
    assert titled_run(["other"], ["mine"]) is None  # the URL's run still running: its progress stays the title
    assert titled_run(["a", "b"], []) == "b"
