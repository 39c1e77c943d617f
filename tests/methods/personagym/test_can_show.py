"""What a PersonaGym plan can show is what the report's metric functions compute on placeholder grades of its
design."""

from __future__ import annotations

from analysis.__main__ import build_parser
from analysis.llm.specs import parse_model_spec
from analysis.methods.personagym.can_show import can_show
from analysis.methods.personagym.cli import plan_from_args

SPEC = parse_model_spec("embedded")


def _shows(*flags: str) -> dict[str, bool]:
    plan = plan_from_args(build_parser().parse_args(["run", "personagym", "--model", "embedded", "--personas", "1",
                                                     "--questions-per-task", "1", *flags]), SPEC)
    return {name: ok for name, ok, _ in can_show(plan).lines}


def test_judges_follow_the_evaluators():
    """No evaluator: self-graded, no agreement; one: independent, no agreement; two: ICC over the 5 answers."""
    assert _shows() == {"task scores and PersonaScore": True, "an independent judge": False,
                        "judge agreement (ICC)": False}
    one = _shows("--evaluators", "a@http://127.0.0.1:9/v1")
    assert one["an independent judge"] and not one["judge agreement (ICC)"]
    assert _shows("--evaluators", "a@http://127.0.0.1:9/v1,b@http://127.0.0.1:8/v1")["judge agreement (ICC)"]
