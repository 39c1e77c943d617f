"""The Trust Game (Berg et al. 1995) as the paper runs it: payoffs and the fixed Trustee archetypes.

Each round the Trustor receives the endowment E and sends a whole-dollar amount s in [0, E]; the
Trustee receives 3s. Archetype T_k returns min(k, 3s): $k, or everything it received when that is
less (Sec. 5.1, App. C.3), whatever was sent. The Trustor's round earnings are E − s + returned.
In the multi-round game every round starts with a fresh endowment E.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.methods.trust import MULTIPLIER


def trustee_return(k: int, sent: int, multiplier: int = MULTIPLIER) -> int:
    """What archetype T_k returns when ``sent`` dollars were sent: min(k, multiplier · sent)."""
    if k < 0 or sent < 0:
        raise ValueError("the archetype's k and the amount sent must be >= 0")
    return min(k, multiplier * sent)


@dataclass(frozen=True)
class RoundOutcome:
    """One played round: what was sent, what the Trustee received and returned, the Trustor's earnings."""

    round: int
    sent: int
    received: int
    returned: int
    earnings: int


def play_round(round_no: int, endowment: int, sent: int, k: int, multiplier: int = MULTIPLIER) -> RoundOutcome:
    """The outcome of sending ``sent`` of ``endowment`` to archetype T_k."""
    if not 0 <= sent <= endowment:
        raise ValueError(f"sent ${sent} is outside [0, {endowment}]")
    returned = trustee_return(k, sent, multiplier)
    return RoundOutcome(round_no, sent, multiplier * sent, returned, endowment - sent + returned)
