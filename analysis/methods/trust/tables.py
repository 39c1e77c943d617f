"""The trust method's answer tables (one row per finished unit, committed as it finishes).

- ``trust_beliefs``: one per (run, strategy, attribute): the validated ranking (most -> least),
  the stated η² (Tr strategies) or the per-level mean/SD (Ctx+$), or invalid with raw text and reason.
- ``trust_priors``: conditioned runs, one per attribute: the original (elicited) ranking, the one put
  in the role prompt (equal for 'self'), the target and achieved Spearman between them.
- ``trust_transfers``: population level, one per persona: the amount sent in the single round. Imported published
  answers (``analysis.methods.trust.importer``) also carry the source's ``condition``, the amount the source itself
  extracted (``source_amount``, with ``source_valid`` / ``source_reason``: in [0, endowment] or why not) next to
  RoleScope's own reading (``sent``/``valid``/``reason``), and ``reply_note`` where the reply's text was not stored.
- ``trust_forecasts``: individual level, one per (persona, archetype): the forecast send per round.
- ``trust_rounds``: individual level, one per (persona, archetype, round): the action, what the
  archetype returned, the round's earnings, and the forecast for that round (copied for the MAE); with
  per-round forecasts (the default) also that forecast call's explanation, validity, reason and raw reply.
"""

from __future__ import annotations

from analysis.runs.store import Table, register_table
from analysis.methods.trust import row_rules

_RUN = (("run_id", "TEXT"), ("model", "TEXT"), ("endowment", "INTEGER"))
_ANSWER = (("valid", "INTEGER"), ("reason", "TEXT"), ("raw", "TEXT"), ("finish_reason", "TEXT"), ("cache_key", "TEXT"))

BELIEFS = register_table(Table(
    "trust_beliefs",
    _RUN + (("strategy", "TEXT"), ("attribute", "TEXT"), ("levels", "TEXT"), ("ranking", "TEXT"), ("effect_size", "REAL"),
            ("groups", "TEXT"), ("explanation", "TEXT")) + _ANSWER,
    ("run_id", "strategy", "attribute"),
    row_rules.answer_flags,
))
PRIORS = register_table(Table(
    "trust_priors",
    _RUN + (("conditioning", "TEXT"), ("strategy", "TEXT"), ("attribute", "TEXT"), ("original", "TEXT"), ("imposed", "TEXT"),
            ("target", "REAL"), ("achieved", "REAL"), ("search_seed", "INTEGER"), ("reason", "TEXT")),
    ("run_id", "attribute"),
))
TRANSFERS = register_table(Table(
    "trust_transfers",
    _RUN + (("conditioning", "TEXT"), ("persona_id", "TEXT"), ("source", "TEXT"), ("split", "TEXT"), ("attributes", "TEXT"),
            ("sent", "INTEGER"), ("extraction", "TEXT")) + _ANSWER + (
            ("condition", "TEXT"), ("source_amount", "REAL"), ("source_valid", "INTEGER"), ("source_reason", "TEXT"),
            ("reply_note", "TEXT")),
    ("run_id", "persona_id"),
    row_rules.transfer_rules,
))
FORECASTS = register_table(Table(
    "trust_forecasts",
    _RUN + (("persona_id", "TEXT"), ("archetype", "INTEGER"), ("rounds", "INTEGER"), ("sends", "TEXT"),
            ("explanations", "TEXT")) + _ANSWER,
    ("run_id", "persona_id", "archetype"),
    row_rules.answer_flags,
))
ROUNDS = register_table(Table(
    "trust_rounds",
    _RUN + (("persona_id", "TEXT"), ("archetype", "INTEGER"), ("round", "INTEGER"), ("forecast", "INTEGER"), ("sent", "INTEGER"),
            ("received", "INTEGER"), ("returned", "INTEGER"), ("earnings", "INTEGER"), ("extraction", "TEXT"),
            ("thought", "TEXT")) + _ANSWER + (
            ("forecast_explanation", "TEXT"), ("forecast_valid", "INTEGER"), ("forecast_reason", "TEXT"),
            ("forecast_raw", "TEXT"), ("forecast_finish_reason", "TEXT"), ("forecast_cache_key", "TEXT")),
    ("run_id", "persona_id", "archetype", "round"),
    row_rules.round_rules,
))
