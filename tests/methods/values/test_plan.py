"""Values plans: call counts by hand, seeded option permutations, plan-building errors and params merge."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec, parse_model_spec
from analysis.methods.values.contexts import Context
from analysis.methods.values.instruments import Instrument, Item, Option, load_instrument
from analysis.methods.values.plan import build_values_plan
from analysis.methods.values.populations import Persona
from analysis.methods.values.questionnaire import ValuesPlan, option_seed, permuted_options

SVS_DIR = Path(__file__).resolve().parents[3].parent / "shared/anchors/stick_to_your_role/data/data_svs"
EMBEDDED = parse_model_spec("embedded", models_file=None)


def tiny_svs(n_list_1: int, n_list_2: int) -> Instrument:
    """An SVS-shaped instrument written here: two lists, 9 options."""
    items = [Item(id=str(n), value="Power" if n % 2 else None, text={"any": f"VALUE {n} (test)"}, list_no=1 if n <= n_list_1 else 2)
             for n in range(1, n_list_1 + n_list_2 + 1)]
    return Instrument(name="svs-test", kind="svs", options=[Option(label=str(s), score=s) for s in range(-1, 8)], items=items)


def plan(instrument: Instrument, contexts: list[Context], n_personas: int, messages: int = 3, samples: int = 1,
         structure: str = "reference") -> ValuesPlan:
    personas = [Persona(id=i, name=f"P{i}", description="test", gender="female") for i in range(n_personas)]
    return ValuesPlan(population="test", personas=personas, instrument=instrument, contexts=contexts,
                      messages=messages, samples=samples, structure=structure)


NO_CONV = Context(label="no_conv", kind="no_conv")
TOPIC = Context(label="t", kind="topic", openings=["hi"] * 5)
CHESS = Context(label="chess", kind="shared_opening", openings=["1. e4"], interlocutor="persona")


# -- n_calls ----------------------------------------------------------------------------------

def test_n_calls_pvq_no_conversation() -> None:
    """PVQ, no_conv only: one call per item per persona: 3 x 40 = 120."""
    assert plan(load_instrument("pvq"), [NO_CONV], 3).n_calls() == 120


def test_n_calls_pvq_with_conversations() -> None:
    """PVQ 10 items, 2 samples, 5 messages after the opening: no_conv 20 + topic (5 turns + 20) + chess (5 + 20)
    = 70 per persona, x3 = 210. The earlier protocol counted the opening: 4 turns each, 68 x 3 = 204."""
    inst = load_instrument("pvq").limited(10)
    assert len(inst.items) == 10
    assert plan(inst, [NO_CONV, TOPIC, CHESS], 3, messages=5, samples=2).n_calls() == 210
    assert plan(inst, [NO_CONV, TOPIC, CHESS], 3, messages=5, samples=2, structure="appended").n_calls() == 204


def test_n_calls_messages_one_means_one_persona_reply() -> None:
    """messages=1: the persona answers the opening, then the items: 2 personas x (40 + 1 + 40) = 162; the earlier
    protocol generated nothing (2 x 80 = 160)."""
    assert plan(load_instrument("pvq"), [NO_CONV, TOPIC], 2, messages=1).n_calls() == 162
    assert plan(load_instrument("pvq"), [NO_CONV, TOPIC], 2, messages=1, structure="appended").n_calls() == 160


def test_n_calls_svs() -> None:
    """SVS: items + 2 picks per list; 6+4 items, 2 lists: no_conv 14, topic 3 turns + 14 -> 31 per persona, x2 = 62."""
    assert plan(tiny_svs(6, 4), [NO_CONV], 2).n_calls() == 28
    assert plan(tiny_svs(6, 4), [NO_CONV, TOPIC], 2).n_calls() == 62
    assert plan(tiny_svs(6, 4).limited(5), [NO_CONV], 1).n_calls() == 5 + 2  # one list left: 2 picks
    assert plan(tiny_svs(6, 4), [NO_CONV], 1, samples=3).n_calls() == 3 * 14


@pytest.mark.skipif(not SVS_DIR.is_dir(), reason=f"reference SVS not found at {SVS_DIR}")
def test_n_calls_reference_svs() -> None:
    """Reference SVS (57 items, 2 lists): no_conv 61 + topic (3 + 61) = 125 per persona, x2 = 250."""
    assert plan(load_instrument(SVS_DIR), [NO_CONV, TOPIC], 2).n_calls() == 250


# -- option permutations ----------------------------------------------------------------------

def test_option_seed_pinned() -> None:
    """The seed formula is frozen: stored runs and resume depend on it (values computed once, pinned)."""
    inst = load_instrument("pvq")
    assert option_seed(0, 0, "no_conv", "1", 0) == 277066216550785
    assert permuted_options(inst, 277066216550785) == [2, 4, 5, 1, 3, 0]
    assert option_seed(7, 3, "topics_a", "12", 1) == 147818019553218
    assert permuted_options(inst, 147818019553218) == [1, 5, 4, 2, 3, 0]


def test_permutation_deterministic_and_varied() -> None:
    """Same inputs -> same order; orders are permutations and differ across items, personas, contexts, seeds."""
    inst = load_instrument("pvq")

    def order(seed: int = 0, persona: int = 0, ctx: str = "no_conv", item: str = "1", sample: int = 0) -> tuple[int, ...]:
        return tuple(permuted_options(inst, option_seed(seed, persona, ctx, item, sample)))

    assert order() == order()
    by_item = [order(item=i.id) for i in inst.items]
    assert all(sorted(o) == list(range(6)) for o in by_item)
    assert len(set(by_item)) >= 30  # 40 draws from 720 permutations: a few collisions at most
    for changed in (order(seed=1), order(persona=1), order(ctx="topics_a"), order(sample=1)):
        assert changed != order()
    assert sum(order(seed=1, item=i.id) != o for i, o in zip(inst.items, by_item)) >= 35


# -- build_values_plan ------------------------------------------------------------------------

def test_build_plan_defaults() -> None:
    """Default plan: bundled population and PVQ, no_conv, embedded params."""
    built = build_values_plan(EMBEDDED, limit_personas=4, limit_items=6)
    assert (len(built.personas), len(built.instrument.items), [c.label for c in built.contexts]) == (4, 6, ["no_conv"])
    assert built.n_calls() == 24 and built.top_logprobs == 200


def test_answer_max_tokens_is_the_length_of_the_answer_mode() -> None:
    """``run values --answer-max-tokens N``: the plan's text or cot length, by answer mode (the other keeps the
    protocol's); refused in one line with logprob answers, where it would do nothing."""
    from analysis.__main__ import build_parser
    from analysis.methods.values.cli import plans_from_args

    def lengths(*flags: str) -> tuple[int, int]:
        args = build_parser().parse_args(["run", "values", "--model", "embedded", "--limit-personas", "1",
                                          "--limit-items", "2", *flags])
        [(_, built)] = plans_from_args(args, EMBEDDED)
        return built["text_max_tokens"], built["cot_max_tokens"]

    assert lengths("--answer-mode", "text") == (10, 2000)  # the protocol's
    assert lengths("--answer-mode", "text", "--answer-max-tokens", "40") == (40, 2000)
    assert lengths("--answer-mode", "cot", "--answer-max-tokens", "500") == (10, 500)
    with pytest.raises(InputError, match=r"^--answer-max-tokens limits text and cot replies; a logprob answer is one "):
        lengths("--answer-max-tokens", "40")  # logprob, the default


def test_build_plan_merges_params() -> None:
    """Plan params = the model's params overridden by the user's; under the reference protocol a temperature or
    length there does not apply (the protocol's per-call fields do), under the earlier one it does."""
    spec = ModelSpec(name="x", backend="custom", model="m", base_url="http://localhost:1/v1",
                     params={"temperature": 0.7, "top_p": 0.9, "max_tokens": 50}, max_top_logprobs=20)
    built = build_values_plan(spec, limit_personas=1, params={"temperature": 0.0, "seed": 3})
    assert built.params == {"top_p": 0.9, "seed": 3}
    assert (built.conversation_temperature, built.answer_temperature, built.conversation_max_tokens) == (0.7, 0.0, 100)
    assert built.top_logprobs == 20
    earlier = build_values_plan(spec, limit_personas=1, params={"temperature": 0.0, "seed": 3}, structure="appended")
    assert earlier.params == {"temperature": 0.0, "top_p": 0.9, "max_tokens": 50, "seed": 3}


def test_build_plan_messages_odd_under_reference() -> None:
    """The reference conversation ends on the persona: an even number of generated messages is refused."""
    with pytest.raises(InputError, match="odd number"):
        build_values_plan(EMBEDDED, limit_personas=2, contexts=["topics_a"], messages=4)
    assert build_values_plan(EMBEDDED, limit_personas=2, contexts=["topics_a"], messages=4, structure="appended").messages == 4


def test_stored_plan_without_structure_is_the_earlier_protocol() -> None:
    """A plan stored before the reference protocol (no ``structure`` field) validates as what it ran."""
    stored = plan(load_instrument("pvq"), [NO_CONV], 1).model_dump()
    for key in ("structure", "persona_prompt", "svs_order", "conversation_temperature", "answer_temperature",
                "pick_max_tokens"):
        stored.pop(key)
    stored["text_max_tokens"] = 48
    old = ValuesPlan.model_validate(stored)
    assert (old.structure, old.persona_prompt, old.svs_order, old.answer_temperature, old.pick_max_tokens) == (
        "appended", "in-character", "parallel", None, 48)


def test_derangement_seeded_per_context() -> None:
    """Chess and grammar get different seeded derangements, none pairs a persona with itself; same seed, same pairs."""
    built = build_values_plan(EMBEDDED, limit_personas=8, contexts=["chess", "grammar"], seed=5)
    chess, grammar = ([p.id for p in c.partners] for c in built.contexts)
    ids = [p.id for p in built.personas]
    assert sorted(chess) == sorted(grammar) == ids
    assert all(a != b for a, b in zip(ids, chess)) and all(a != b for a, b in zip(ids, grammar))
    assert chess != grammar
    again = build_values_plan(EMBEDDED, limit_personas=8, contexts=["chess", "grammar"], seed=5)
    assert [[p.id for p in c.partners] for c in again.contexts] == [chess, grammar]
    with pytest.raises(InputError, match="at least 2 personas"):
        build_values_plan(EMBEDDED, limit_personas=1, contexts=["chess"])


def test_build_plan_duplicate_context() -> None:
    """A context listed twice -> InputError."""
    with pytest.raises(InputError, match="lists a context twice"):
        build_values_plan(EMBEDDED, contexts=["no_conv", "chess", "no_conv"])


@pytest.mark.parametrize("limit", [0, -2])
def test_build_plan_limit_personas_must_be_positive(limit: int) -> None:
    """--limit-personas below 1 -> InputError."""
    with pytest.raises(InputError, match="--limit-personas must be >= 1"):
        build_values_plan(EMBEDDED, limit_personas=limit)


def test_build_plan_logprob_needs_enough_top_logprobs() -> None:
    """logprob mode on an endpoint returning fewer top logprobs than options -> InputError suggesting text mode."""
    spec = ModelSpec(name="narrow", backend="custom", model="m", base_url="http://localhost:1/v1", max_top_logprobs=5)
    with pytest.raises(InputError, match="--answer-mode text"):
        build_values_plan(spec, limit_personas=1)
    assert build_values_plan(spec, limit_personas=1, answer_mode="text").answer_mode == "text"


def test_build_plan_unknown_context() -> None:
    """An unknown context label -> InputError from the context loader."""
    with pytest.raises(InputError, match="context 'nope': unknown"):
        build_values_plan(EMBEDDED, contexts=["nope"], limit_personas=1)
