"""Tests of the values method (Stick to Your Role!)."""

#: ``run values`` options of a small plan, for the contract test over every method (tests/test_method_contract.py).
CONTRACT_RUN = ["--limit-personas", "3", "--limit-items", "10", "--contexts", "no_conv,topics_a", "--answer-mode", "text"]
