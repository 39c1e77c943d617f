"""The values method's colours: one per Schwartz value, grouped by higher-order value."""

from __future__ import annotations

from analysis.figures.palette import NEUTRAL

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


def value_color(value: str | None) -> str:
    return VALUE_COLORS.get(value or "", NEUTRAL)
