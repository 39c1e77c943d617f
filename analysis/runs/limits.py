"""Limits shared by the CLI and the app."""

#: A plan making more calls than this in all starts only when the user confirms it (``--yes``, the Run page's tick).
CONFIRM_CALLS = 100_000
