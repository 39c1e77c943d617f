"""Tests of the inventory method (personality inventories, Serapio-García et al. 2023)."""

from pathlib import Path

#: ``run inventory`` options of a small plan, for the contract test over every method (tests/test_method_contract.py).
CONTRACT_RUN = ["--inventory", "rolescope-mini", "--domains", "E", "--levels", "1,5,9", "--biographies", "1",
                "--limit-items", "10", "--answer-mode", "text"]

#: ``parse KIND`` lines read by hand: (input line, expected {valid, value}); the contract test runs them through the CLI.
PARSE_SAMPLES = {"inventory-option": [
    ({"reply": "4"}, (True, 3)),
    ({"reply": "4", "order": "descending"}, (True, 1)),
    ({"reply": "I would rate this a 2 (moderately inaccurate)."}, (True, 1)),
    ({"reply": "Very accurate."}, (True, 4)),
    ({"reply": "3 or 4"}, (False, None)),
]}

ANCHORS = Path(__file__).resolve().parents[3].parent / "shared" / "anchors" / "ipip_neo"
