"""Trust game: belief–behaviour consistency of role-playing agents (Mannekote et al. 2025, "Do
Role-Playing Agents Practice What They Preach?"), on the shared engine.

Modules: ``personas`` (attributes, seeded generated bank, splits, first-person descriptions),
``genagents`` (GenAgents bank loader with Big Five augmentation), ``game`` (payoffs, Trustee
archetypes), ``prompts`` (role play, belief elicitation, conditioning, forecasts, rounds),
``parse`` (amount extraction, JSON beliefs and forecasts validated with pydantic), ``perturb``
(imposed priors at a target Spearman), ``effects`` (η², rankings, weighted versions for the
bootstrap), ``consistency`` (population and conditioning metrics), ``forecasting`` (individual
MAE), ``plan``/``tables``/``population``/``individual``/``method`` (runs, registered as 'trust'),
``cli`` (``run trust`` options, ``metrics trust --json``).
"""

from __future__ import annotations

from typing import Literal

# The paper's three belief elicitation strategies (Table 2), by their paper names.
Strategy = Literal["NoCtx+Tr", "Ctx+Tr", "Ctx+$"]
STRATEGIES: tuple[str, ...] = ("NoCtx+Tr", "Ctx+Tr", "Ctx+$")
# Accepted spellings on the command line ('$' needs quoting in shells, hence the aliases).
STRATEGY_ALIASES: dict[str, str] = {
    "noctx+tr": "NoCtx+Tr", "noctx-tr": "NoCtx+Tr", "noctx_tr": "NoCtx+Tr",
    "ctx+tr": "Ctx+Tr", "ctx-tr": "Ctx+Tr", "ctx_tr": "Ctx+Tr",
    "ctx+$": "Ctx+$", "ctx-usd": "Ctx+$", "ctx_usd": "Ctx+$", "ctx-dollars": "Ctx+$", "ctx+usd": "Ctx+$",
}
TRUST_STRATEGIES: tuple[str, ...] = ("NoCtx+Tr", "Ctx+Tr")  # rank by interpersonal trust, state η²
DOLLAR_STRATEGY = "Ctx+$"  # mean and SD of dollars sent per level

Conditioning = Literal["none", "self", "weak", "strong"]
CONDITIONINGS: tuple[str, ...] = ("none", "self", "weak", "strong")
# Imposed priors: target Spearman correlation with the originally elicited ranking (Sec. 4.3).
PRIOR_TARGETS: dict[str, float] = {"weak": 0.8, "strong": 0.2}

Level = Literal["population", "individual"]
DEFAULT_ENDOWMENT = 10
ABLATION_ENDOWMENTS: tuple[int, ...] = (10, 44, 100)
MULTIPLIER = 3
DEFAULT_ROUNDS = 6
#: The largest endowment (dollars per round) and number of rounds a plan takes: the paper's are $10 to $100 and 6.
MAX_ENDOWMENT = 1_000_000
MAX_ROUNDS = 100
DEFAULT_ARCHETYPES: tuple[int, ...] = (1, 3, 5)
