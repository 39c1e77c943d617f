"""Stick to Your Role! — Schwartz value questionnaires administered to simulated personas."""

VALUES = (
    "Self-Direction", "Stimulation", "Hedonism", "Achievement", "Power",
    "Security", "Conformity", "Tradition", "Benevolence", "Universalism",
)
