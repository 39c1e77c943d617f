"""Tests of the values method (Stick to Your Role!)."""

#: ``run values`` options of a small plan, for the contract test over every method (tests/test_method_contract.py).
CONTRACT_RUN = ["--limit-personas", "3", "--limit-items", "10", "--contexts", "no_conv,topics_a", "--answer-mode", "text"]

#: ``parse KIND`` lines read by hand: (input line, expected {valid, value}); the contract test runs them through the CLI.
PARSE_SAMPLES = {"values-option": [
    ({"reply": "(B) Like me", "options": ["Not like me at all", "Like me", "Very much like me"]}, (True, 1)),
    ({"reply": "Very much like me.", "options": ["Not like me at all", "Like me", "Very much like me"]}, (True, 2)),
    ({"reply": "Either (A) or (B).", "options": ["Not like me at all", "Like me"]}, (False, None)),
    ({"reply": "I weigh it up.\nAnswer: (A)", "options": ["Not like me at all", "Like me"], "mode": "cot"}, (True, 0)),
]}


#: The seed offset of this method's answers in the app fixture store (``tests/app/fixture_store.py``: model k's seed is
#: k + FIXTURE_SEED; the store writes methods in this order).
FIXTURE_SEED = 1
