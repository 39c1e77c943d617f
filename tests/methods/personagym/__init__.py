"""Tests of the PersonaGym method."""

#: ``run personagym`` options of a small plan, for the contract test over every method (tests/test_method_contract.py).
CONTRACT_RUN = ["--personas", "2", "--questions-per-task", "1"]

#: ``parse KIND`` lines read by hand: (input line, expected {valid, value}); the contract test runs them through the CLI.
PARSE_SAMPLES = {
    "personagym-grade": [({"reply": "The answer stays in character.\nFinal score: 4"}, (True, 4.0)),
                         ({"reply": "A thoughtful answer."}, (False, None))],
    "personagym-refusal": [({"reply": "As an AI language model, I cannot have hobbies."}, (True, True)),
                           ({"reply": "I dive every Saturday."}, (True, False))],
}


#: The seed offset of this method's answers in the app fixture store (``tests/app/fixture_store.py``: model k's seed is
#: k + FIXTURE_SEED; the store writes methods in this order).
FIXTURE_SEED = 31

#: Why ``tests/app/test_default_plans.py`` cannot run this method's default plan to a headline on the stub.
STUB_CANNOT_ANSWER = ("the stub gives no rubric grade a PersonaGym reader can use; the plan's analyses are checked by "
                      "can_show")
