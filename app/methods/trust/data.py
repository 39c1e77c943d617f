"""Cached reads of the trust-game report and answers that its pages draw (``app.data``'s conventions: each function takes
a ``StoreRef`` so it is recomputed exactly when the store changes; nothing here computes a metric)."""

from __future__ import annotations

from typing import Any


from app.data import has_rows, report
from app.stores import StoreRef

def trust_doc(ref: StoreRef) -> dict[str, Any]:
    return report(ref, "trust")


def trust_models(ref: StoreRef) -> list[str]:
    tables = ("trust_transfers", "trust_beliefs", "trust_rounds")
    return sorted(trust_doc(ref)["models"]) if any(has_rows(ref, t) for t in tables) else []
