"""Sentences and rows the MBTI page shows about a report document (pure text from the JSON; no Streamlit)."""

from __future__ import annotations

from typing import Any

from analysis.methods.mbti import DIMENSIONS, POLES


def _ci(ci: Any) -> str:
    lo, hi = ci or (None, None)
    return "—" if lo is None or hi is None else f"[{lo:.1f}, {hi:.1f}]"


def decided_text(uncertainty: dict[str, Any] | None) -> str:
    """'EN[T/F]J-T: 3 of 4 letters decided; T/F undecided: 95 % CI [43.1, 70.8] includes 50 …', or '' without one."""
    if not uncertainty:
        return ""
    letters = uncertainty.get("letters") or {}
    undecided = [f"{'/'.join(POLES[d])}: {letters[d]['reason']}" for d in DIMENSIONS
                 if d in letters and not letters[d].get("decided")]
    head = f"{uncertainty.get('type')}: {uncertainty.get('n_decided', 0)} of 4 letters decided"
    return head + ("; undecided — " + "; ".join(undecided) if undecided else "")


def score_rows(scores: dict[str, Any], uncertainty: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Per dimension: the score, its 95 % CI over statements, the statements it rests on and the letter ('T/F' / 'X'
    with the reason when undecided)."""
    u = uncertainty or {}
    return [{"dimension": "/".join(POLES[d]), "score": scores.get(d), "95 % CI (statements)": _ci((u.get("scores_ci") or {}).get(d)),
             "statements": (u.get("n_statements") or {}).get(d),
             "letter": ((u.get("letters") or {}).get(d) or {}).get("letter"),
             "why undecided": ((u.get("letters") or {}).get(d) or {}).get("reason") or ""} for d in DIMENSIONS]


def gap_rows(gap: dict[str, Any], first: str, second: str) -> list[dict[str, Any]]:
    """Per dimension of a pair's type gap: the letters given to each, whether they differ, X_first − X_second and its
    paired 95 % CI over statements."""
    rows = []
    for d, g in (gap.get("dimensions") or {}).items():
        diff = g.get("diff") or {}
        la, lb = g.get("letters") or (None, None)
        rows.append({"dimension": "/".join(POLES[d]), first: la, second: lb, "letters differ": g.get("letters_differ"),
                     f"{first} − {second}": diff.get("value"), "95 % CI (statements, paired)": _ci(g.get("ci")),
                     "statements": g.get("n_statements")})
    return rows
