"""Tests of the trust-game method."""

#: ``run trust`` options of a small plan, for the contract test over every method (tests/test_method_contract.py).
CONTRACT_RUN = ["--personas", "20", "--limit-personas", "4", "--attributes", "age", "--strategies", "ctx-tr", "--attribute-set", "rolescope15"]

#: ``parse KIND`` lines read by hand: (input line, expected {valid, value}); the contract test runs them through the CLI.
PARSE_SAMPLES = {
    "trust-amount": [({"reply": "I trust them a little.\nAmount: $4", "endowment": 10}, (True, 4)),
                     ({"reply": "Amount: $12", "endowment": 10}, (False, None))],
    "trust-numeric": [({"reply": "7", "endowment": 10}, (True, 7))],
    "trust-belief": [({"reply": '{"ranking": ["Female", "Male"], "effect_size": 0.1}', "attribute": "sex",
                       "strategy": "Ctx+Tr"}, (True, {"ranking": ["Female", "Male"], "effect_size": 0.1, "groups": {}})),
                     ({"reply": "no idea", "attribute": "sex", "strategy": "Ctx+Tr"}, (False, None))],
    "trust-forecast-round": [({"reply": '{"send": 3}', "endowment": 10}, (True, 3))],
    "trust-forecast-upfront": [({"reply": "nothing", "rounds": 2, "endowment": 10}, (False, None))],
}


#: The seed offset of this method's answers in the app fixture store (``tests/app/fixture_store.py``: model k's seed is
#: k + FIXTURE_SEED; the store writes methods in this order).
FIXTURE_SEED = 21

#: Why ``tests/app/test_default_plans.py`` cannot run this method's default plan to a headline on the stub.
STUB_CANNOT_ANSWER = ("the stub answers no trust-game amount (its replies name no dollar amount in [0, endowment]); "
                      "the plan's analyses are checked by can_show")
