"""MBTI assessment (Rao et al. 2023, "Can ChatGPT Assess Human Personalities?") on the shared engine.

Modules: ``statements`` (instrument + key), ``subjects`` (subject-replaced statements), ``prompts``
(correctness-evaluated instruction, option orders), ``parse`` (reply -> option), ``scoring``
(per-testing percentages, type code), ``metrics`` (consistency, robustness, fairness, answer
distribution), ``session``/``method`` (runs), ``importer`` (published answer CSVs), ``cli``.
"""

from __future__ import annotations

# The five dichotomies, each named by its first pole; scores are percentages towards that pole.
DIMENSIONS: tuple[str, ...] = ("E", "N", "T", "J", "A")
POLES: dict[str, tuple[str, str]] = {"E": ("E", "I"), "N": ("N", "S"), "T": ("T", "F"), "J": ("J", "P"), "A": ("A", "T")}
DIMENSION_NAMES: dict[str, str] = {
    "E": "Extraverted vs Introverted",
    "N": "Intuitive vs Observant",
    "T": "Thinking vs Feeling",
    "J": "Judging vs Prospecting",
    "A": "Assertive vs Turbulent",
}

# The correctness-evaluated options in their canonical order (Correct ... Wrong), index 0..6.
OPTIONS: tuple[str, ...] = (
    "Correct", "Generally correct", "Partially correct", "Neither correct nor wrong",
    "Partially wrong", "Generally wrong", "Wrong",
)
OPTION_ABBREVIATIONS: tuple[str, ...] = ("C", "GC", "PC", "NCNW", "PW", "GW", "W")

# The role names the paper reports beside the type codes (Rao et al. 2023, Tables 1 and 4; 16personalities' names).
ROLES: dict[str, str] = {
    "INTJ": "Architect", "INTP": "Logician", "ENTJ": "Commander", "ENTP": "Debater",
    "INFJ": "Advocate", "INFP": "Mediator", "ENFJ": "Protagonist", "ENFP": "Campaigner",
    "ISTJ": "Logistician", "ISFJ": "Defender", "ESTJ": "Executive", "ESFJ": "Consul",
    "ISTP": "Virtuoso", "ISFP": "Adventurer", "ESTP": "Entrepreneur", "ESFP": "Entertainer",
}


def role_of(type_code: str | None) -> str | None:
    """The role of a type code ("ENTJ-T" -> "Commander"); None when a dimension is undecided (X) or no code."""
    return ROLES.get((type_code or "")[:4])


def type_with_role(type_code: str | None) -> str | None:
    """"ENTJ-T (Commander)", or the code alone without a role, or None."""
    role = role_of(type_code)
    return f"{type_code} ({role})" if role else type_code
