"""AppTest: the MBTI page (scores, type, consistency, answer distribution) and the Compare page (paired CIs, gaps)."""

from __future__ import annotations

from app import data

import json

import pytest

from analysis.methods.mbti.report import metrics_json
from analysis.runs.store import Store
from tests.methods.mbti.fixture import N_TESTINGS


@pytest.fixture(scope="module")
def mbti(fixture_store):
    with Store(fixture_store, read_only=True) as store:
        return metrics_json(store)


def test_mbti_page_shows_type_and_scores(app_on_fixture, mbti):
    """Type, consistency, robustness and the testings count equal the metrics document for the subject in the URL."""
    at = app_on_fixture("mbti", model="smollm2-t07", subject="Women")
    assert not at.exception
    doc = mbti["models"]["smollm2-t07"]
    subject = doc["subjects"]["Women"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Type"] == f"{subject['type']} ({subject['role']})"  # the role beside the code
    assert metrics["Consistency s_c ↑"] == f"{subject['consistency']:.3f}"
    assert any("Chance (95 % band)" in c.value and "random answers" in c.value for c in at.caption)
    assert any(c.value.startswith("Reliability — α per dimension") for c in at.caption)
    assert metrics["Robustness s_r ↑"] == f"{doc['robustness']['Women']:.3f}"
    assert metrics["Fairness s_f ↑"] == f"{doc['fairness']['Men|Women']:.3f}"
    assert metrics["Testings · invalid answers"] == f"{N_TESTINGS} · {subject['invalid']}"
    dims = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    assert dims["base"] == 50
    assert [round(50 + d, 6) for d in dims["x"]] == [round(subject["scores"][k], 6) for k in "ENTJA"]


def test_answer_distribution_counts_every_testing(app_on_fixture):
    """Per statement the option counts plus invalid add up to the number of testings, in both option orders."""
    at = app_on_fixture("mbti", model="smollm2-greedy", subject="People")
    for order in ("permuted", "fixed"):
        at.segmented_control(key="order").set_value(order).run()
        table = at.dataframe[-1].value
        counts = table[["Correct", "Generally correct", "Partially correct", "Neither correct nor wrong", "Partially wrong",
                        "Generally wrong", "Wrong", "invalid"]].sum(axis=1)
        assert len(table) == 60 and set(counts) == {N_TESTINGS}


def test_default_subject_is_people(app_on_fixture):
    """Without a URL selection the MBTI page opens on the 'People' subject."""
    at = app_on_fixture("mbti")
    assert at.selectbox(key="subject").value == "People"


def test_compare_page_paired_differences(app_on_fixture):
    """The stable model's rank-order stability (the headline row, as the values report holds it) exceeds the noisy
    one's with a paired CI above 0; A − B = A minus B wherever both are defined."""
    at = app_on_fixture("compare", a="demo::smollm2-greedy", b="demo::smollm2-t07")
    assert not at.exception
    table = at.dataframe[0].value.set_index("metric")
    ro = table.loc["Values: rank-order stability ↑"]
    assert ro["smollm2-greedy"] > ro["smollm2-t07"] + 0.3
    lo, hi = (float(x) for x in ro["95% CI of A − B"].strip("[]").split(","))
    assert 0 < lo <= ro["A − B"] <= hi
    for _, row in table.dropna(subset=["smollm2-greedy", "smollm2-t07"]).iterrows():
        assert row["A − B"] == pytest.approx(row["smollm2-greedy"] - row["smollm2-t07"], abs=2e-3)
    assert table.loc["MBTI: consistency ↑", "note"] == "CI undefined: 3 shared testing indices, a paired CI needs ≥ 5"
    against = at.dataframe[1].value.set_index("metric")
    # the stable one: p < 0.05; a verdict needs 100 draws (the app tests simulate 20 when tests/app is collected)
    stable = against.loc["Values: rank-order stability ↑", "smollm2-greedy"]
    verdict = "beyond chance" if data.CHANCE_SIMS >= 100 else "not enough draws for a verdict"
    assert float(stable.split("p = ")[1].split(" ")[0]) < 0.05 and stable.endswith(verdict)
    rates = at.dataframe[2].value.set_index(["method", "kind"])
    assert {"smollm2-greedy", "smollm2-t07"} <= set(rates.columns)
    assert rates.loc[("values", "invalid answers"), "smollm2-t07"].endswith(" %")
    items = at.dataframe[3].value
    gaps = (items["smollm2-greedy"] - items["smollm2-t07"]).abs().tolist()
    assert gaps == sorted(gaps, reverse=True) and items["text"].notna().all()
    assert len(at.get("plotly_chart")) >= 3


def test_compare_needs_two_models(app_on_fixture):
    """With one model picked in the sidebar the Compare page explains what it needs instead of failing."""
    at = app_on_fixture("compare", models="smollm2-t07")
    assert not at.exception
    assert "Comparing needs two models" in at.info[0].value


def test_compare_across_two_stores(app_on_fixture, fixture_store, tmp_path):
    """One side from the bundled store, the other from the user's: labelled by store, paired over the personas both
    were asked, the same numbers as within one store (the user store is a copy)."""
    import shutil

    shutil.copy(fixture_store, tmp_path / "user.db")
    within = app_on_fixture("compare", a="demo::smollm2-greedy", b="demo::smollm2-t07").dataframe[0].value
    at = app_on_fixture("compare", a="demo::smollm2-greedy", b="user::smollm2-t07")
    assert not at.exception
    assert "Comparing across stores" in at.info[0].value
    table = at.dataframe[0].value.set_index("metric")
    la, lb = "smollm2-greedy · Bundled demo (read-only)", "smollm2-t07 · Your store"
    assert {la, lb} <= set(table.columns)
    ro = table.loc["Values: rank-order stability ↑"]
    assert ro["A − B"] == pytest.approx(within.set_index("metric").loc["Values: rank-order stability ↑", "A − B"], abs=1e-12)
    assert not any("Ordinal" in m for m in table.index)
    same = app_on_fixture("compare", a="demo::smollm2-greedy", b="user::smollm2-greedy")  # one name, two stores
    assert not same.exception and {"smollm2-greedy · Bundled demo (read-only)", "smollm2-greedy · Your store"} <= set(
        same.dataframe[0].value.columns)



def test_mbti_page_shows_the_type_with_its_uncertainty_and_the_gender_gap(app_on_fixture, fixture_store):
    """The subject's type with undecided letters as both poles ('E/I') and the Men vs Women gap, exactly as the report (at the app's
    n_boot) holds them."""
    from analysis.methods.mbti.report_types import decided_text, gap_rows

    at = app_on_fixture("mbti", model="smollm2-t07", subject="Men")
    assert not at.exception
    with Store(fixture_store, read_only=True) as store:
        doc = metrics_json(store, n_boot=data.N_BOOT)["models"]["smollm2-t07"]
    uncertainty = doc["subjects"]["Men"]["uncertainty"]
    assert [m.value for m in at.markdown if m.value.startswith("**Type with its uncertainty:**")] == [
        f"**Type with its uncertainty:** {decided_text(uncertainty)}"]
    frames = [d.value for d in at.dataframe]
    scores = next(f for f in frames if "95 % CI (statements)" in f.columns)
    assert list(scores["letter"]) == [uncertainty["letters"][d]["letter"] for d in "ENTJA"]
    gap = next(f for f in frames if "letters differ" in f.columns)
    expected = gap_rows(doc["type_gaps"]["Men|Women"], "Men", "Women")
    assert list(gap["Men − Women"].round(6)) == [round(r["Men − Women"], 6) for r in expected]
    assert list(gap["letters differ"]) == [r["letters differ"] for r in expected]
