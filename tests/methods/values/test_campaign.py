"""The leaderboard campaign (reference ``Leaderboard/run_scripts/run_stability_leaderboard.sh``): its plans from a
copy of the reference layout, its two runs pooled as one configuration, and who may stand beside the published
figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.errors import InputError
from analysis.llm.specs import parse_model_spec
from analysis.methods.values.families import FAMILY
from analysis.runs import comparable
from analysis.runs.store import Store
from analysis.methods.values.campaign import leaderboard_campaign, off_protocol, reference_openings
from analysis.methods.values.metrics import values_metrics
from tests.stub_server import StubServer

REPO = Path(__file__).resolve().parents[3]
REFERENCE = REPO.parent / "shared/anchors/stick_to_your_role"
EMBEDDED = parse_model_spec("embedded", models_file=None)
needs_reference = pytest.mark.skipif(not (REFERENCE / "personas").is_dir(), reason=f"reference copy not at {REFERENCE}")


@needs_reference
def test_campaign_plans_from_the_reference_copy() -> None:
    """Nine evaluations on 50 personas: PVQ-40 over no_conv, 5 chunks, chess, grammar; the SVS on no_conv.
    Calls by hand: per persona 8 x 40 PVQ items + 7 x 3 turns + 57 SVS items + 4 picks = 402; x 50 = 20,100."""
    c = leaderboard_campaign(EMBEDDED, REFERENCE)
    assert [x.label for x in c.pvq.contexts] == ["no_conv", "chunk_0", "chunk_1", "chunk_2", "chunk_3", "chunk_4",
                                                  "chess", "grammar"]
    assert [x.label for x in c.svs.contexts] == ["no_conv"]
    assert (c.pvq.instrument.name, len(c.pvq.instrument.items), c.svs.instrument.kind, len(c.svs.instrument.items)) == (
        "pvq-40", 40, "svs", 57)
    assert len(c.pvq.personas) == len(c.svs.personas) == 50
    assert (c.pvq.answer_mode, c.pvq.messages, c.pvq.campaign, c.svs.campaign) == ("cot", 3, "leaderboard", "leaderboard")
    assert c.n_calls() == 50 * (8 * 40 + 7 * 3 + 57 + 4) == 20_100
    # chess: the reference's interlocutor file, entry i for persona i
    chess = c.pvq.contexts[6]
    partners = json.loads((REFERENCE / "interlocutors/real_world_people/chunk_0/interlocutors.json").read_text())
    assert [p.name for p in chess.partners] == [p["name"] for p in partners]
    assert "grammar interlocutors: a seeded random derangement" in " ".join(c.sources)  # chunk_1 is not in this copy
    reduced = leaderboard_campaign(EMBEDDED, REFERENCE, limit_personas=2, answer_mode="logprob")
    assert reduced.n_calls() == 2 * 402 and reduced.pvq.answer_mode == "logprob"


@needs_reference
def test_a_campaign_takes_the_answer_length_and_is_then_off_protocol() -> None:
    """``--campaign leaderboard --answer-max-tokens 500``: both runs' chains of thought are cut at 500 tokens, and
    such a campaign does not stand beside the published figures."""
    from analysis.__main__ import build_parser
    from analysis.methods.values.cli import plans_from_args

    args = build_parser().parse_args(["run", "values", "--model", "embedded", "--campaign", "leaderboard",
                                      "--reference", str(REFERENCE), "--limit-personas", "2", "--answer-max-tokens", "500"])
    plans = dict(plans_from_args(args, EMBEDDED))
    assert [(p["answer_mode"], p["cot_max_tokens"]) for p in plans.values()] == [("cot", 500)] * 2
    capped = {"configurations": [{"used": True, "signature": {"campaign": "leaderboard", **plans["pvq"]}}],
              "contexts": {f"c{i}": {} for i in range(9)}, "n_personas": 50}
    assert off_protocol(capped) == "off the leaderboard's protocol: cot_max_tokens 500 (the leaderboard's: 2000)"


def test_reference_openings_read_without_executing(tmp_path: Path) -> None:
    """The chess and grammar openings come from the clone's dictionary literal; the file is parsed, never run."""
    (tmp_path / "simulate_conversation_utils.py").write_text(
        "import sys\nsys.exit('executed!')\nx = open('nope')\n"
        "opening_questions_for_themes = {'chess': '1. e4', 'grammar': 'Check this sentence?', 'code': f'{x}'}\n")
    assert reference_openings(tmp_path / "simulate_conversation_utils.py") == {"chess": "1. e4", "grammar": "Check this sentence?"}
    (tmp_path / "bad.py").write_text("def (:\n")
    with pytest.raises(InputError, match="not readable as Python"):
        reference_openings(tmp_path / "bad.py")


def test_missing_reference_parts_are_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a folder"):
        leaderboard_campaign(EMBEDDED, tmp_path / "nowhere")
    with pytest.raises(InputError, match=r"personas/real_world_people/personas.json not found \(and 7 more\)"):
        leaderboard_campaign(EMBEDDED, tmp_path)


def test_campaign_runs_pool_and_ordinary_runs_do_not() -> None:
    """A campaign's PVQ and SVS runs are one configuration (instrument is coverage for them); the same two plans
    without ``campaign`` are two."""
    base = {"method": "values", "population": "p", "answer_mode": "cot", "params": {}}
    runs = [("a", {**base, "instrument": {"name": "pvq-40"}, "contexts": ["no_conv", "chess"]}),
            ("b", {**base, "instrument": {"name": "svs"}, "contexts": ["no_conv"]})]
    import pandas as pd

    for campaign, n_configs in (("leaderboard", 1), (None, 2)):
        frame = pd.DataFrame([{"run_id": r, "method": "values", "model": "m", "created_at": float(i),
                               "plan": {**plan, **({"campaign": campaign} if campaign else {})}}
                              for i, (r, plan) in enumerate(runs)])
        assert len(comparable.configurations(frame, FAMILY)["m"]) == n_configs


def test_off_protocol_says_why() -> None:
    def doc(sig: dict, contexts: int, personas: int) -> dict:
        return {"configurations": [{"used": True, "signature": sig}], "contexts": {f"c{i}": {} for i in range(contexts)},
                "n_personas": personas}

    from analysis.methods.values.campaign import LEADERBOARD_PROTOCOL

    campaign = {"campaign": "leaderboard", **LEADERBOARD_PROTOCOL}
    assert off_protocol(doc(campaign, 9, 50)) is None
    # a campaign by name run with logprob answers, the in-character prompt or the old structure is another experiment
    assert off_protocol(doc(campaign | {"answer_mode": "logprob", "persona_prompt": "in-character"}, 9, 50)) == (
        "off the leaderboard's protocol: answer_mode 'logprob' (the leaderboard's: 'cot'); persona_prompt "
        "'in-character' (the leaderboard's: 'reference')")
    assert off_protocol(doc(campaign | {"answer_format": "json"}, 9, 50)) == (
        "off the leaderboard's protocol: answer_format 'json' (the leaderboard's: free text)")
    old = {k: v for k, v in campaign.items() if k != "structure"}
    assert off_protocol(doc(old, 9, 50)) == "off the leaderboard's protocol: structure not recorded (an older run)"
    assert off_protocol(doc({"imported": True, "source": "x"}, 9, 50)) is None
    assert off_protocol(doc({}, 9, 50)).startswith("not run as the leaderboard campaign")
    assert off_protocol(doc(campaign, 8, 50)) == "8 of the 9 evaluations"
    assert off_protocol(doc(campaign, 9, 2)) == "2 personas, not 50 (a reduced campaign)"


@needs_reference
def test_cli_runs_a_reduced_campaign(stub_server: StubServer, tmp_path: Path) -> None:
    """``run values --campaign leaderboard --reference PATH --limit-personas 2`` on the stub: sources and estimate
    first, two runs, one configuration with the nine (context, instrument) cells."""
    store = tmp_path / "c.db"
    proc = subprocess.run([sys.executable, "-m", "analysis", "run", "values", "--model", f"stub-model@{stub_server.url}",
                           "--campaign", "leaderboard", "--reference", str(REFERENCE), "--limit-personas", "2",
                           "--store", str(store), "--run-id", "lb", "--quiet"],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "PVQ: 2 personas x 8 contexts, 682 calls" in proc.stderr and "SVS: 2 personas x 1 contexts, 122 calls" in proc.stderr
    assert proc.stderr.index("calls,") < proc.stderr.index("run lb-pvq created")
    with Store(store) as s:
        (doc,) = values_metrics(s, n_boot=0)["models"].values()
        assert sorted(doc["contexts"]) == sorted(["no_conv (pvq-40)", "no_conv (svs)", "chunk_0", "chunk_1", "chunk_2",
                                                  "chunk_3", "chunk_4", "chess", "grammar"])
        assert [c["runs"] for c in doc["configurations"]] == [["lb-pvq", "lb-svs"]]
    assert off_protocol(doc) == "2 personas, not 50 (a reduced campaign)"
    bad = subprocess.run([sys.executable, "-m", "analysis", "run", "values", "--model", "embedded", "--campaign",
                          "leaderboard", "--store", str(store)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines()[-1].endswith(
        "--campaign leaderboard needs --reference PATH (your clone of flowersteam/value_stability)")
