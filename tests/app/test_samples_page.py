"""AppTest: the Samples page on the fixture store: filters from the URL, a sample opened in full, A vs B, the
matrix, the export (three formats, built on click), and a run named and tagged in the user's store, its tag then a
filter."""

from __future__ import annotations

import pytest

from analysis.runs.store import Store
from analysis.samples import agreement, filter_samples, side_by_side, store_samples


@pytest.fixture(scope="module")
def fixture_samples(tmp_path_factory: pytest.TempPathFactory):
    from tests.app.fixture_store import build_fixture_store

    with Store(build_fixture_store(tmp_path_factory.mktemp("samples-page") / "f.db"), read_only=True) as store:
        return store_samples(store)


def _caption(at, needle: str) -> str:
    return next(c.value for c in at.caption if needle in c.value)


def test_filters_from_the_url_count_what_the_samples_hold(app_on_fixture, fixture_samples):
    at = app_on_fixture("samples", s_valid="invalid", s_model="smollm2-t07", s_method="values")
    assert not at.exception
    expected = filter_samples(fixture_samples, valid=False, model=["smollm2-t07"], method=["values"])
    assert _caption(at, " samples · ").startswith(f"**{len(expected):,}** of {len(fixture_samples):,} samples")
    assert len(at.dataframe[0].value) == min(50, len(expected))
    assert at.dataframe[0].proto.placeholder == "—"


def test_a_sample_opens_in_full_with_its_call(app_on_fixture, fixture_samples):
    """The fixture's drill-down run has stored calls: the opened sample shows its reading and the messages sent."""
    with_call = fixture_samples[fixture_samples["cache_key"].notna() & (fixture_samples["method"] == "values")].iloc[0]
    at = app_on_fixture("samples", s_method="values", s_open=with_call["sample_id"])
    assert not at.exception
    assert any(s.value.startswith("Read as: ") for s in at.success)
    assert any(m.value == "#### The sample" for m in at.markdown)
    assert any("Call `" in c.value for c in at.caption)  # the stored call: tokens, latency, params


def test_a_vs_b_counts_the_pairing_and_shows_both_replies(app_on_fixture, fixture_samples):
    paired = side_by_side(filter_samples(fixture_samples, method=["mbti"]), "smollm2-greedy", "smollm2-t07",
                          only_differ=True)
    counts = agreement(side_by_side(filter_samples(fixture_samples, method=["mbti"]), "smollm2-greedy", "smollm2-t07"))
    first = paired.iloc[0]
    at = app_on_fixture("samples", s_view="pair", s_method="mbti", s_a="smollm2-greedy", s_b="smollm2-t07",
                        s_differ="1", s_pair_open=f"mbti|{first['prompt']}")
    assert not at.exception
    assert _caption(at, "prompts both answered").startswith(f"{counts['prompts']:,} prompts both answered")
    assert f"**{counts['differ']:,} differ**" in _caption(at, "prompts both answered")
    assert len(at.dataframe[0].value) == min(50, len(paired))
    shown = [x.value for x in [*at.success, *at.error]]
    assert f"**smollm2-greedy**: {first['answer_a']}" in shown and f"**smollm2-t07**: {first['answer_b']}" in shown


def test_the_matrix_capped_and_filtered(app_on_fixture, fixture_samples):
    at = app_on_fixture("samples", s_view="matrix", s_method="mbti", s_persona="People")
    assert not at.exception
    n = len(filter_samples(fixture_samples, method=["mbti"], persona=["People"]).drop_duplicates("prompt"))
    assert n > 200 and f"(200 prompts × 2 models)" in _caption(at, "prompts ×")  # capped, and said so
    assert any(w.value.startswith(f"{n:,} prompts: the matrix shows the first 200") for w in at.warning)
    at = app_on_fixture("samples", s_view="matrix", s_method="mbti", s_persona="People", s_context="fixed · testing 0")
    assert "(60 prompts × 2 models)" in _caption(at, "prompts ×") and not at.warning
    assert list(at.dataframe[0].value.columns) == ["method", "kind", "persona", "item", "context", "smollm2-greedy",
                                                   "smollm2-t07"]


def test_the_export_offers_three_formats_built_on_click(app_on_fixture, fixture_samples, monkeypatch):
    """CSV, JSON and Parquet of what is filtered, each built only when clicked (a deferred callable: nothing is
    exported while the page draws), named after the store and the count, holding the samples with their calls."""
    import io

    import pandas as pd
    from streamlit.runtime.media_file_manager import MediaFileManager

    from analysis.sample_export import EXPORT_COLUMNS

    deferred = {}
    add = MediaFileManager.add_deferred

    def record(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        deferred[file_name] = (data_callable, mimetype)
        return add(self, data_callable, mimetype, coordinates, file_name, **kw)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    at = app_on_fixture("samples", s_valid="invalid")
    assert not at.exception
    buttons = at.get("download_button")
    n, total = int((~fixture_samples["valid"]).sum()), len(fixture_samples)
    assert [b.label for b in buttons] == [f"Export {n:,} as {f}" for f in ("CSV", "JSON", "Parquet")]
    assert all(b.proto.deferred_file_id and not b.proto.url for b in buttons)
    names = {f"samples-fixture-{n}-of-{total}-with-calls.{fmt}": fmt for fmt in ("csv", "json", "parquet")}
    assert {n for n in deferred if n.startswith("samples-")} == set(names)  # (the Overview offers its report too)
    build, mime = deferred[next(k for k, f in names.items() if f == "parquet")]
    assert mime == "application/vnd.apache.parquet"
    exported = pd.read_parquet(io.BytesIO(build()))
    assert list(exported.columns) == list(EXPORT_COLUMNS) and len(exported) == n and not exported["valid"].any()


def test_a_run_named_and_tagged_then_filtered_by_its_tag(app_on_fixture, stub_server, tmp_path):
    """A run in the user's store gets a name and tags; the tag filter then keeps its samples only."""
    from analysis.llm.specs import parse_model_spec
    from analysis.methods import create_run, execute_run
    from tests.conftest import trust_spec

    spec = parse_model_spec(f"stub-model@{stub_server.url}")
    trust_spec(spec)
    with Store(tmp_path / "user.db") as store:
        for n_items in (2, 3):
            from analysis.methods.values.cli import plans_from_args
            from analysis.methods.options import validate
            from analysis.methods.values.options import ValuesOptions

            plan = plans_from_args(validate(ValuesOptions, {"limit_personas": 1, "limit_items": n_items}), spec)[0][1]
            run_id = create_run(store, "values", spec, plan)
            execute_run(store, run_id, concurrency=1)
        runs = list(store.runs()["run_id"])
    at = app_on_fixture("samples", store="user", s_view="runs")
    assert not at.exception
    at.selectbox(key="s_label_run").set_value(runs[0]).run()
    at.text_input(key=f"s_label_name_{runs[0]}").input("pilot run")
    at.text_input(key=f"s_label_tags_{runs[0]}").input("pilot, stub")
    at.button[[b.label for b in at.button].index("Save")].click().run()
    assert not at.exception and not at.error
    at = app_on_fixture("samples", store="user", s_tag="pilot")
    assert not at.exception
    assert _caption(at, " samples · ").startswith("**3** of 5 samples")  # runs[0] is the newest: 3 items
    with Store(tmp_path / "user.db", read_only=True) as store:
        from analysis.runs.labels import labels

        assert labels(store).set_index("run_id").loc[runs[0], "tags"] == ["pilot", "stub"]


def test_a_drill_down_panel_links_its_runs_into_the_samples_view(app_on_fixture, fixture_samples):
    """The query a chart point's panel links with opens the Samples view on those runs, models and persona: the
    rows it lists there are the point's samples of every kind."""
    import pandas as pd

    from app.samples import samples_link

    rows = pd.DataFrame({"run_id": ["mbti-smollm2-t07"] * 2, "model": ["smollm2-t07"] * 2, "subject": ["Men"] * 2})
    link = samples_link(rows)
    assert link == {"s_run": ["mbti-smollm2-t07"], "s_model": ["smollm2-t07"], "s_persona": ["Men"]}
    at = app_on_fixture("samples", **link)
    assert not at.exception
    expected = filter_samples(fixture_samples, run_id=["mbti-smollm2-t07"], persona=["Men"])
    assert _caption(at, " samples · ").startswith(f"**{len(expected):,}** of")
    assert samples_link(rows.assign(subject=["Men", "Women"])) == {"s_run": ["mbti-smollm2-t07"],
                                                                   "s_model": ["smollm2-t07"]}


def test_the_matrix_with_a_model_missing_some_prompts(mixed_store, cache_dir, tmp_path, monkeypatch):
    """Real models' imported answers beside the embedded model's: prompts one model never saw are blank cells (a
    text column's NA), not an exception."""
    from analysis.methods.mbti.samples import samples
    from analysis.runs.store import Store
    from tests.app.conftest import _bind, open_app

    with Store(mixed_store, read_only=True) as store:
        imported = samples(store)
    context = imported.loc[imported["model"] == "GPT4", "context"].iloc[0]
    _bind(monkeypatch, mixed_store, tmp_path / "user.db", cache_dir)
    at = open_app("samples", s_view="matrix", s_method="mbti", s_persona="People",
                  s_context=sorted({context, "fixed · testing 0"}))
    assert not at.exception
    table = at.dataframe[0].value
    assert "GPT4" in table.columns and table["GPT4"].isna().any() and table["GPT4"].notna().any()
