"""The app's shared colours: per model, model A / B, correlations, neutral and grid (a method's own colours are in
its folder: ``app/methods/<m>/palette.py``)."""

from __future__ import annotations

from collections.abc import Sequence

#: Tableau 10, assigned to models in sorted-name order so a model keeps its colour on every page.
MODEL_SEQUENCE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d",
                  "#bab0ac", "#eeca3b")

#: Model A / model B on the Compare page.
PAIR = ("#4c78a8", "#f58518")

#: Diverging scale for correlations in [-1, 1].
CORRELATION_SCALE = "RdBu"

NEUTRAL = "#9e9e9e"
GRID = "#e6e6e6"


def model_colors(models: Sequence[str]) -> dict[str, str]:
    """A stable colour per model name."""
    return {m: MODEL_SEQUENCE[i % len(MODEL_SEQUENCE)] for i, m in enumerate(sorted(set(models)))}
