"""Who answers: short biographies, and the shaping design that gives each persona target levels per domain.

Shaping follows Serapio-García et al. (2023, Sec. "Shaping synthetic personality"): a domain's target level 1..9 is
said with trait adjectives and Likert-type qualifiers; level 5 names neither pole. The qualifiers are the paper's
(extremely, very, —, a bit, neither … nor, a bit, —, very, extremely); the adjectives are RoleScope's own short set of
three bipolar markers per domain (after Goldberg 1992), listed in ``ADJECTIVES`` and in ``docs/methods/inventory.md``.
Single-trait shaping: each shaped persona has one target domain; the others are not mentioned.

The biographies are authored for RoleScope (the paper drew 50 from PersonaChat): each has a sex and an age, which
the IPIP-NEO norms need.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from analysis.errors import InputError

LEVELS = tuple(range(1, 10))
#: The order levels are laid out in, so that the first personas of a design already span low, high and middle.
SPREAD = (1, 9, 5, 3, 7, 2, 8, 4, 6)
#: Per domain, (low pole, high pole) adjective pairs.
ADJECTIVES: dict[str, tuple[tuple[str, str], ...]] = {
    "E": (("introverted", "extraverted"), ("quiet", "talkative"), ("timid", "bold")),
    "A": (("unkind", "kind"), ("uncooperative", "cooperative"), ("distrustful", "trustful")),
    "C": (("disorganized", "organized"), ("irresponsible", "responsible"), ("careless", "thorough")),
    "N": (("relaxed", "tense"), ("calm", "anxious"), ("emotionally stable", "moody")),
    "O": (("unimaginative", "imaginative"), ("incurious", "curious"), ("uncreative", "creative")),
}


class Biography(BaseModel):
    id: str
    text: str
    sex: Literal["M", "F", "N"] = "N"
    age: int = Field(30, ge=10, le=110)


BIOGRAPHIES: tuple[Biography, ...] = (
    Biography(id="b1", sex="F", age=34, text="I am a 34-year-old nurse from Leeds. I have two children and I play the "
                                                "cello in a community orchestra on weekends."),
    Biography(id="b2", sex="M", age=52, text="I am a 52-year-old lorry driver. I grew up on a farm, I support my local "
                                                "football club and I am teaching myself to cook."),
    Biography(id="b3", sex="F", age=23, text="I am a 23-year-old graduate student in chemistry. I live with three "
                                                "flatmates and I volunteer at an animal shelter."),
    Biography(id="b4", sex="M", age=67, text="I am a 67-year-old retired accountant. I have been married for forty "
                                                "years and I spend my mornings in the garden."),
    Biography(id="b5", sex="F", age=45, text="I am a 45-year-old shop owner. I moved here from abroad twenty years ago "
                                                "and I run every morning before work."),
    Biography(id="b6", sex="M", age=29, text="I am a 29-year-old software tester. I play video games with my brother "
                                                "and I am saving up to travel."),
)


class Persona(BaseModel):
    """One respondent: its description (biography + shaping sentence), sex and age (for norms) and target levels."""

    id: str
    description: str
    sex: Literal["M", "F", "N"] = "N"
    age: int = 30
    targets: dict[str, int] = Field(default_factory=dict, description="domain -> target level 1..9 (shaped personas)")


def shaping_sentence(domain: str, level: int) -> str:
    """The sentence that sets ``domain`` to ``level`` (1..9), e.g. level 9 of E: "I'm extremely extraverted, extremely
    talkative and extremely bold."; level 5: "I'm neither introverted nor extraverted, …"."""
    if level not in LEVELS:
        raise InputError(f"shaping level {level}: use 1..9")
    pairs = ADJECTIVES[domain]
    if level == 5:
        words = [f"neither {low} nor {high}" for low, high in pairs]
    else:
        qualifier = {1: "extremely ", 2: "very ", 3: "", 4: "a bit ", 6: "a bit ", 7: "", 8: "very ", 9: "extremely "}[level]
        words = [qualifier + (high if level > 5 else low) for low, high in pairs]
    return f"I'm {', '.join(words[:-1])} and {words[-1]}."


def design(*, shaping: bool = True, domains: list[str] | None = None, levels: list[int] | None = None,
           biographies: int | None = None, limit: int | None = None,
           ids: list[str] | None = None) -> list[Persona]:
    """The personas of a run: biography × level (spread order) × domain when ``shaping``, else the biographies alone.
    ``limit`` keeps the first N; ``ids`` keeps those named (in design order)."""
    if biographies is not None and not 1 <= biographies <= len(BIOGRAPHIES):
        raise InputError(f"--biographies {biographies}: there are {len(BIOGRAPHIES)} authored biographies")
    bios = BIOGRAPHIES[:biographies] if biographies else BIOGRAPHIES
    domains = domains or list(ADJECTIVES)
    unknown = [d for d in domains if d not in ADJECTIVES]
    if unknown:
        raise InputError(f"--domains: unknown {', '.join(unknown)}; shaping knows {', '.join(ADJECTIVES)}")
    levels = levels or list(LEVELS)
    bad = [lv for lv in levels if lv not in LEVELS]
    if bad:
        raise InputError(f"--levels: {bad} outside 1..9")
    chosen = [lv for lv in SPREAD if lv in levels]
    if shaping:
        people = [Persona(id=f"{b.id}-{d}{lv}", description=f"{b.text} {shaping_sentence(d, lv)}", sex=b.sex, age=b.age,
                          targets={d: lv}) for b in bios for lv in chosen for d in domains]
    else:
        people = [Persona(id=b.id, description=b.text, sex=b.sex, age=b.age) for b in bios]
    if ids is not None:
        known = {p.id for p in people}
        missing = [i for i in ids if i not in known]
        if missing:
            raise InputError(f"--persona-ids: not in this design: {', '.join(missing[:5])}")
        people = [p for p in people if p.id in set(ids)]
    return people[:limit] if limit else people
