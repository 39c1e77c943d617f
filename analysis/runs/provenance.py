"""Where a run's rows came from, when that changes how far its numbers can be trusted.

A run imported from a report file whose seal did not vouch for it (``import rolescope-report --accept-edited``)
carries ``EDITED`` in its model spec: the file's name and why its seal failed. ``analysis.model_order.store_specs``
keeps the mark for a model when any of its runs has it, so every page that shows the model's numbers says so
(``app.ui.model_notes``), as does a report file made from the store.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

#: The model-spec key marking a run imported from an edited report file.
EDITED = "edited_report"


def mark_edited(run: Mapping[str, Any], file_name: str, why: str) -> dict[str, Any]:
    """A ``runs`` row (``model_spec`` as JSON text) with its spec marked as imported from an edited report file."""
    spec = json.loads(run["model_spec"])
    spec[EDITED] = {"file": file_name, "why": why}
    return {**run, "model_spec": json.dumps(spec, sort_keys=True)}


def edited_note(spec: Mapping[str, Any] | None) -> str | None:
    """What a page says of a model whose spec carries the mark, or None."""
    mark = (spec or {}).get(EDITED)
    if not mark:
        return None
    where = mark.get("file", "a report file") if isinstance(mark, Mapping) else "a report file"
    why = mark.get("why", "edited") if isinstance(mark, Mapping) else "edited"
    return (f"imported from an edited report file ({where}: {why}) with --accept-edited: its numbers are not "
            "vouched for by the report's seal")
