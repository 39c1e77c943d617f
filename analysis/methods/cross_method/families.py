"""The campaign as one design for the comparability rule (``analysis.runs.comparable``): campaigns pool only when
their plans (personas, methods, every part's plan) are equal; a model's report uses its newest campaign."""

from analysis.runs.comparable import Family

FAMILY = Family(method="cross_method", name="campaign")
