"""``import chatgpt-behavioral`` into the trust method: the investor sessions of Mei, Xie, Yuan & Jackson 2024
(PNAS; github yutxie/ChatGPT-Behavioral @ 69ec557, MIT), read from ``../shared/anchors/chatgpt_behavioral``: one
imported population run per model × condition, one unit per session, the amount the reply highlights as ``[$x]``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from analysis.errors import InputError
from analysis.methods.trust.behavioral import BANKER_ONLY, build_runs, highlighted, parse_paths, store_runs
from analysis.methods.trust.cli import report
from analysis.runs.store import Store

SOURCE = Path(__file__).resolve().parents[4] / "shared" / "anchors" / "chatgpt_behavioral"
needs_source = pytest.mark.skipif(not SOURCE.is_dir(), reason="../shared/anchors/chatgpt_behavioral not present")


@pytest.fixture(scope="module")
def runs() -> tuple[list, list]:
    parsed = parse_paths([SOURCE])
    return build_runs(parsed), parsed.skipped


def test_the_highlighted_amount_is_read_as_the_prompt_asks() -> None:
    assert highlighted("I would invest [$50] with the Banker.", 100) == (50.0, True, None)
    assert highlighted("I invest [$30], which grows to [$90].", 100) == (30.0, True, None)  # 3× is the growth
    assert highlighted("[$40] ... so [$40] it is", 100) == (40.0, True, None)
    assert highlighted("either [$20] or [$40]", 100) == (None, False, "ambiguous: highlights $20, $40")
    assert highlighted("I would invest $50.", 100) == (None, False, "no amount highlighted as [$x]")
    assert highlighted("[$150]", 100) == (150.0, False, "the highlighted $150 is above the $100 endowment")


@needs_source
def test_one_run_per_model_and_condition_and_banker_files_skipped(runs) -> None:
    built, skipped = runs
    got = {(r.model, r.condition): len(r.rows) for r in built}
    after = {f"investor after banker ${x}, reason asked" for x in (10, 50, 100)}
    assert got == {("gpt-4-0314", "investor"): 30, ("text-davinci-003", "investor"): 30,
                   ("gpt-4-0314", "investor, reason asked"): 90, ("gpt-3.5-turbo-0301", "investor, reason asked"): 90,
                   **{(m, c): 30 for m in ("gpt-4-0314", "gpt-3.5-turbo-0301") for c in after}}
    assert len(skipped) == 12 and {s["reason"] for s in skipped} == {BANKER_ONLY}
    assert all(Path(s["path"]).name.split("_")[1] in "234" for s in skipped)
    # each model's base condition is stored last: the configuration its page opens on
    last = {r.model: r.condition for r in built}
    assert last == {"gpt-4-0314": "investor", "text-davinci-003": "investor",
                    "gpt-3.5-turbo-0301": "investor, reason asked"}
    for r in built:
        assert len({row["persona_id"] for row in r.rows}) == len(r.rows)
        assert {row["endowment"] for row in r.rows} == {100}


@needs_source
def test_amounts_equal_the_replies_single_highlight(runs) -> None:
    built, _ = runs
    (record,) = SOURCE.glob("records/trust_1_gpt4_*.json")
    doc = json.loads(record.read_text(encoding="utf-8"))
    replies = [conv[-1]["content"] for conv in doc["messages"]]
    expected = [float(found[0]) if len(set(found)) == 1 else None
                for found in (re.findall(r"\[\$(\d+)\]", reply) for reply in replies)]
    (run,) = [r for r in built if (r.model, r.condition) == ("gpt-4-0314", "investor")]
    assert [row["source_amount"] for row in run.rows] == expected
    assert sum(e is not None for e in expected) == run.plan["summary"]["source_valid"] == 28


@needs_source
def test_metrics_show_each_condition_as_an_imported_configuration(tmp_path: Path, runs) -> None:
    built, _ = runs
    with Store(tmp_path / "s.db") as store:
        assert all(store_runs(store, built).values())
        assert not any(store_runs(store, built).values())  # twice: nothing stored twice
        doc = report(store, n_boot=0)
    entries = {e["condition"]: e for e in doc["models"]["gpt-4-0314"]["imported"].values()}
    assert len(entries) == 5 and entries["investor"]["used"] is True
    (run,) = [r for r in built if (r.model, r.condition) == ("gpt-4-0314", "investor")]
    valid = [row["source_amount"] for row in run.rows if row["source_valid"]]
    amount = entries["investor"]["amount_sent"]
    assert amount["n"] == 30 and amount["valid"] == 28
    assert amount["mean"]["value"] == pytest.approx(np.mean(valid))
    assert amount["sd"]["value"] == pytest.approx(np.std(valid, ddof=1))


@needs_source
def test_a_named_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "results.json"
    other.write_text("{}")
    with pytest.raises(InputError, match="not a ChatGPT-Behavioral trust_"):
        parse_paths([other])
    with pytest.raises(InputError, match="no records/trust_"):
        parse_paths([tmp_path])
    (banker,) = SOURCE.glob("records/trust_2_turbo_*.json")
    with pytest.raises(InputError, match="no investor session to import"):
        parse_paths([banker])
