"""What a campaign's plan can show before it runs (``Method.can_show``)."""

from __future__ import annotations

from typing import Any

from analysis.methods.base import Shows
from analysis.methods.cross_method.correlations import MIN_PERSONAS
from analysis.methods.cross_method.pairs import load_pairs
from analysis.methods.cross_method.plan import CampaignPlan


def can_show(plan: dict[str, Any], n_runs: int = 1) -> Shows:
    """The matrix needs two methods and 3 personas; the convergent summary a convergent pair both of whose methods run;
    the pattern 3 pairs of its methods with differing predictions. Whether each r is then defined depends on the
    answers (a method whose answers are all invalid scores no persona)."""
    p = CampaignPlan.model_validate(plan)
    ran = {part.method for part in p.parts}
    enough = len(p.personas) >= MIN_PERSONAS
    pairs = [q for q in load_pairs().pairs if {q.a.split(":")[0], q.b.split(":")[0]} <= ran]
    convergent = [q for q in pairs if q.kind == "convergent"]
    few = f"{len(p.personas)} personas; correlations need {MIN_PERSONAS}"
    lines = (
        ("MTMM matrix", enough and len(ran) >= 2, few if not enough else "needs two methods"),
        ("convergent validity", enough and bool(convergent), few if not enough else "no convergent pair links two of its methods"),
        ("pattern vs theory", enough and len(pairs) >= 3 and len({q.expected for q in pairs}) > 1,
         few if not enough else "fewer than 3 pairs link its methods"),
    )
    probes = {
        "MTMM matrix": lambda doc: any(r is not None for r in _column(doc.get("matrix"), "r")),
        "convergent validity": lambda doc: (doc.get("convergent") or {}).get("value") is not None,
        "pattern vs theory": lambda doc: (doc.get("pattern") or {}).get("value") is not None,
    }
    design = f"{len(p.personas)} personas × {len(ran)} methods ({', '.join(part.method for part in p.parts)})"
    return Shows(design, lines, probes)


def _column(frame: dict[str, Any] | None, name: str) -> list[Any]:
    if not frame or name not in frame["columns"]:
        return []
    i = frame["columns"].index(name)
    return [row[i] for row in frame["data"]]
