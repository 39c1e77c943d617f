"""Tests of the trust-game method."""

#: ``run trust`` options of a small plan, for the contract test over every method (tests/test_method_contract.py).
CONTRACT_RUN = ["--personas", "20", "--limit-personas", "4", "--attributes", "age", "--strategies", "ctx-tr", "--attribute-set", "rolescope15"]
