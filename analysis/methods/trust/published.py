"""The figures the paper publishes for real models, bundled in ``data/trust/paper_tables.json`` with their
source (``analysis.published``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.methods.base import Published


def rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Table 3's median Spearman and |difference| per strategy, and Table 4's conditioning rows."""
    out = []
    source = doc["source"]
    for strategy, attrs in doc["table3"]["strategies"].items():
        for model, pair in attrs["Median"].items():
            for metric, better in (("spearman", "higher"), ("abs_diff", "lower")):
                out.append({"model": model, "metric": f"median_{metric}/{strategy}", "value": pair[metric],
                            "better": better, "source": f"{source}, Table 3, row 'Median' of {strategy}"})
    for condition, models in doc["table4"]["conditions"].items():
        for model, value in models.items():
            out.append({"model": model, "metric": f"conditioning/{condition}", "value": value,
                        "better": "higher", "source": f"{source}, Table 4, row '{condition}'"})
    return out


PUBLISHED = Published("trust/paper_tables.json", rows)
