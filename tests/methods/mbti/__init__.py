"""Tests of the MBTI method (ChatGPT-MBTI)."""

#: ``run mbti`` options of a small plan, for the contract test over every method (tests/test_method_contract.py).
CONTRACT_RUN = ["--subjects", "Men,Women", "--testings", "2", "--limit-statements", "6", "--order", "fixed", "--answer-mode", "text"]

#: ``parse KIND`` lines read by hand: (input line, expected {valid, value}); the contract test runs them through the CLI.
PARSE_SAMPLES = {"mbti-verdict": [
    ({"reply": "Mostly correct."}, (True, 1)),
    ({"reply": "Wrong."}, (True, 6)),
    ({"reply": "I cannot say."}, (False, None)),
]}
