"""The app's colours: one per Schwartz value (grouped by higher-order value), per model, per MBTI option."""

from __future__ import annotations

from collections.abc import Sequence

#: Openness greens, Self-enhancement oranges, Conservation blues, Self-transcendence purples;
#: Hedonism (between Openness and Self-enhancement) in mustard. Order follows the circle.
VALUE_COLORS: dict[str, str] = {
    "Self-Direction": "#1b9e77",
    "Stimulation": "#66c2a5",
    "Hedonism": "#c9a400",
    "Achievement": "#f28e2b",
    "Power": "#c4400c",
    "Security": "#1f5fa8",
    "Conformity": "#6baed6",
    "Tradition": "#0b2e63",
    "Benevolence": "#d6409f",
    "Universalism": "#8e5db5",
}

#: Tableau 10, assigned to models in sorted-name order so a model keeps its colour on every page.
MODEL_SEQUENCE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d",
                  "#bab0ac", "#eeca3b")

#: Model A / model B on the Compare page.
PAIR = ("#4c78a8", "#f58518")

#: The seven MBTI options, Correct (green) .. Wrong (red), neutral grey in the middle.
MBTI_OPTION_COLORS = ("#1a9850", "#66bd63", "#a6d96a", "#bdbdbd", "#fdae61", "#f46d43", "#d73027")

#: Diverging scale for correlations in [-1, 1].
CORRELATION_SCALE = "RdBu"

NEUTRAL = "#9e9e9e"
GRID = "#e6e6e6"


def model_colors(models: Sequence[str]) -> dict[str, str]:
    """A stable colour per model name."""
    return {m: MODEL_SEQUENCE[i % len(MODEL_SEQUENCE)] for i, m in enumerate(sorted(set(models)))}


def value_color(value: str | None) -> str:
    return VALUE_COLORS.get(value or "", NEUTRAL)
