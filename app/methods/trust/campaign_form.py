"""The trust-game part of a composite campaign's Run form (the cross-method campaign): its own options, by name."""

from __future__ import annotations

from typing import Any

from app import state


def options(container: Any) -> dict[str, Any]:
    """Draw the trust game's campaign options in ``container``; returns {option of ``TrustOptions``: value}."""
    rounds = state.number_input("Trust game: rounds", 1, 10, 3, key="run_xm_trust_rounds", container=container,
                                help="Rounds against each trustee archetype (1, 3, 5).")
    return {"rounds": int(rounds)}
