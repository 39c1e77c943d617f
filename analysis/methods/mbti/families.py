"""Which MBTI runs pool (``analysis.runs.comparable``): subjects, option orders and testings are cells of one design."""

from analysis.runs.comparable import Family

FAMILY = Family("mbti", "mbti", frozenset({"subjects", "orders", "testings"}))
