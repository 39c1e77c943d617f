"""Stick to Your Role! — Schwartz value questionnaires administered to simulated personas."""

VALUES = (
    "Self-Direction", "Stimulation", "Hedonism", "Achievement", "Power",
    "Security", "Conformity", "Tradition", "Benevolence", "Universalism",
)

#: Theoretical 2-D point of each value; every item starts MDS at its value's point (reference).
THEORY_POINTS: dict[str, tuple[float, float]] = {
    "Self-Direction": (-0.34, 0.94),
    "Stimulation": (-0.87, 0.50),
    "Hedonism": (-0.98, -0.17),
    "Achievement": (-0.64, -0.77),
    "Power": (0.00, -1.00),
    "Security": (0.65, -0.77),
    "Conformity": (0.49, -0.09),
    "Tradition": (0.98, -0.17),
    "Benevolence": (0.87, 0.50),
    "Universalism": (0.34, 0.94),
}
