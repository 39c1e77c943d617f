"""The figures the paper publishes for real models (Serapio-García et al. 2025, Nature Machine Intelligence):
Table 1's convergent and discriminant validity per model in ``published.json`` (``analysis.published``), and the
per-domain figures of the paper's repository (github google-deepmind/personality_in_llms @ c3fea44,
``figures_data/*.csv``) in ``published_domains.json``, written by ``scripts/published_domains.py``:

    {"source", "repository", "commit",
     "models": {model id: readable name}, "domains": {"EXT": {"domain": "E", "name"}, …},
     "scales": {code: {"instrument", "name"}},
     "convergent": {"file", "source", "columns": ["EXT", …, "Avg"], "models": {model id: {column: r}}},
     "external": {"EXT": {"file", "source", "scales": [code], "human": {"label", "values": {code: r}} | null,
                          "models": {model id: {code: r}}}, …}}

Convergent: r of the IPIP-NEO-300 domain with the BFI domain; external: r of the IPIP-NEO-300 domain with each
criterion scale; both across the 1,250 simulated response profiles of each model (unshaped persona descriptions).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

DOMAINS_FILE = Path(__file__).with_name("published_domains.json")


def rows(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Table 1's convergent and discriminant validity per model."""
    return [{"model": model, "metric": f"mtmm/{metric}", "value": value, "better": "higher", "source": doc["source"]}
            for model, row in doc["models"].items() for metric, value in row.items()]


@lru_cache(maxsize=1)
def domains() -> dict[str, Any]:
    """The bundled per-domain figures (module docstring)."""
    return json.loads(DOMAINS_FILE.read_text(encoding="utf-8"))


def convergent_rows(doc: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Per model and domain, the published IPIP-NEO vs BFI convergent r: model (readable), model_id, domain (the
    letter, "Avg" for the paper's average), value, source."""
    doc = doc or domains()
    conv = doc["convergent"]
    letter = {code: d["domain"] for code, d in doc["domains"].items()}
    return [{"model": doc["models"][m], "model_id": m, "domain": letter.get(c, c), "value": v, "source": conv["source"]}
            for m, row in conv["models"].items() for c, v in row.items()]


def external_rows(domain: str, scale: str, doc: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Per model, the published r of the IPIP-NEO ``domain`` (the paper's code, "CON") with the criterion ``scale``
    ("ACHV"): model (readable), model_id, value, source, scale_name; [] when the paper has no such figure."""
    doc = doc or domains()
    entry = doc["external"].get(domain) or {}
    if scale not in entry.get("scales", []):
        return []
    name = doc["scales"][scale]["name"]
    return [{"model": doc["models"][m], "model_id": m, "value": row[scale], "source": entry["source"], "scale_name": name}
            for m, row in entry["models"].items()]
