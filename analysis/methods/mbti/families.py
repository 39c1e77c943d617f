"""Which MBTI runs pool (``analysis.runs.comparable``): subjects and option orders are cells of one design. The number
of testings is not: s_c depends on it (a testing's expected distance to the mean of n grows as √((n−1)/n) for
independent noise), so runs of different testing counts are different configurations."""

from analysis.runs.comparable import Family

FAMILY = Family("mbti", "mbti", frozenset({"subjects", "orders"}))
