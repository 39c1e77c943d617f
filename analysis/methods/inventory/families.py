"""Which inventory runs pool (``analysis.runs.comparable``): personas, option orders and inventories are cells of one
design (two inventories given to the same personas make the multitrait–multimethod table); answer mode, decoding and
shaping design split configurations."""

from analysis.runs.comparable import Family

FAMILY = Family("inventory", "inventory", frozenset({"personas", "orders", "inventory"}))
