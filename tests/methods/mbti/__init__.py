"""Tests of the MBTI method (ChatGPT-MBTI)."""

#: ``run mbti`` options of a small plan, for the contract test over every method (tests/test_method_contract.py).
CONTRACT_RUN = ["--subjects", "Men,Women", "--testings", "2", "--limit-statements", "6", "--order", "fixed", "--answer-mode", "text"]
