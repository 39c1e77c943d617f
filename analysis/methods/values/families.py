"""Which values runs pool (``analysis.runs.comparable``): contexts and population are cells of one design; the runs
of a campaign (plan field ``campaign``: the leaderboard's PVQ and SVS runs) also cover its instruments."""

from analysis.runs.comparable import Family

FAMILY = Family("values", "values", frozenset({"contexts", "population"}),
                more_coverage=lambda plan: frozenset({"instrument"}) if plan.get("campaign") else frozenset())
