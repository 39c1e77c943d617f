"""Tests of the PersonaGym method."""

#: ``run personagym`` options of a small plan, for the contract test over every method (tests/test_method_contract.py).
CONTRACT_RUN = ["--personas", "2", "--questions-per-task", "1"]
