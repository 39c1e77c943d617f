"""Subject replacement on the original study's statements, for groups and for one named person.

The 60 statements are not bundled (they are the user's file). This test rebuilds their second-person form from the
published prompts in ``../shared/anchors/chatgpt_mbti`` (read, never copied): where the "people" and "men" prompts
of one item differ is the subject's slot ("you" / "your"), and the subject's pronouns there (they, them, their ...)
were "you" forms. Every rebuilt statement is then rewritten for plural groups and for single persons (he / she /
singular they, the paper's Fig. 6) and must read correctly.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from analysis.errors import InputError
from analysis.llm.specs import parse_model_spec
from analysis.methods.mbti.plan import build_mbti_plan
from analysis.methods.mbti.subjects import Subject, replace_subject, subject_from

ANSWERS = Path(__file__).resolve().parents[4] / "shared/anchors/chatgpt_mbti/ChatGPT/answer_people_men_women.csv"
pytestmark = pytest.mark.skipif(not ANSWERS.is_file(), reason=f"{ANSWERS} not present")
_YOU_FORMS = {"they": "you", "them": "you", "their": "your", "theirs": "yours", "themselves": "yourself"}
GROUPS = ["People", "Men", "Women", "Boys", "Girls", "Doctors", "Software engineers"]
PERSONS = ["Alice:she", "Bob:he", "Sam:they"]


def _prompts(column: int) -> dict[int, str]:
    rows = list(csv.reader(ANSWERS.open(encoding="utf-8")))[1:]
    return {int(r[column].split(".")[0]): " ".join(r[column].split("Why?", 1)[1].split())
            for r in rows if len(r) > column and "Why?" in r[column]}


def _second_person(people: str, men: str) -> str:
    out = []
    for a, b in zip(people.split(" "), men.split(" ")):
        if a != b:  # the subject slot
            a = re.sub(r"(?i)people(’s|'s)?", lambda m: "your" if m.group(1) else "you", a)
        else:
            a = re.sub(r"(?i)\b(they|them|their|theirs|themselves)\b", lambda m: _YOU_FORMS[m.group(1).lower()], a)
        out.append(a)
    text = " ".join(out)
    return text[:1].upper() + text[1:]


@pytest.fixture(scope="module")
def originals() -> dict[int, str]:
    people, men = _prompts(0), _prompts(3)
    return {n: _second_person(people[n], men[n]) for n in people if n in men
            and len(people[n].split()) == len(men[n].split())}


def test_rebuilt_statements_are_second_person(originals: dict[int, str]) -> None:
    assert len(originals) >= 58
    assert originals[1] == "You regularly make new friends."
    assert all(re.search(r"\b(?:you|your)\b", s, re.IGNORECASE) for s in originals.values())


@pytest.mark.parametrize("who", GROUPS + PERSONS)
def test_every_statement_reads_correctly(originals: dict[int, str], who: str) -> None:
    """No second person left; no object pronoun where a clause needs its subject ("people them meet"); a person's
    name keeps its capitals; he/she take singular verbs right after the subject."""
    subject = subject_from(who)
    for n, text in originals.items():
        out = replace_subject(text, subject)
        assert not re.search(r"\b(?:you|your|yours|yourself)\b", out, re.IGNORECASE), (n, out)
        assert not re.search(r"\b(?:them|him|her) (?:already |rarely |often )?(?:want|wants|know|knows|find|finds|meet"
                             r"|meets|need|needs)\b", out), (n, out)
        if subject.person:
            assert subject.name in out, (n, out)
            if subject.pronoun != "they":
                # (after a causative the bare verb is right: "make Alice feel")
                assert not re.search(rf"(?<!make )(?<!let )\b(?:{subject.pronoun}|{subject.name}) (?:\w+ly |often |rarely )?(?:are|have|make|"
                                     r"want|know|find|need|feel|make|do)\b", out), (n, out)


@pytest.mark.parametrize(("n", "who", "fragment"), [
    (3, "Men", "make men feel like they want to cry"),
    (6, "Men", "the ones they already know"),
    (11, "Men", "someone they find interesting"),
    (15, "Men", "other people they meet"),
    (51, "Men", "requires them to work alone"),
    (1, "Alice:she", "Alice regularly makes new friends."),
    (3, "Alice:she", "make Alice feel like she wants to cry"),
    (6, "Alice:she", "Alice rarely tries to introduce herself to new people and mostly talks to the ones she already knows."),
    (32, "Bob:he", "Bob becomes bored or loses interest"),
    (35, "Bob:he", "Bob rarely second-guesses the choices that he has made."),
    (36, "Alice:she", "just what Alice needs."),
    (45, "Alice:she", "mistakes that she made a long time ago."),
    (11, "Sam:they", "Sam feels comfortable just walking up to someone they find interesting"),
    (15, "Sam:they", "Sam rarely worries about whether they make a good impression"),
])
def test_known_cases(originals: dict[int, str], n: int, who: str, fragment: str) -> None:
    """The replacements the earlier rules got wrong ("make men feel like them want to cry", "the ones them already
    know", "someone them find interesting", "people them meet") and a person's agreement."""
    assert fragment in replace_subject(originals[n], subject_from(who))


def test_person_subject_form() -> None:
    """``Name:she|he|they`` is one named person; anything else is a group; the plan keeps the person."""
    assert subject_from("Alice:she") == Subject(name="Alice", plural=False, pronoun="she", person=True)
    assert subject_from("Dr. Who:he").name == "Dr. Who"
    assert subject_from("Men") == Subject(name="Men")
    assert subject_from("Ratio 3:2").name == "Ratio 3:2"  # not a pronoun: a group name as written
    plan = build_mbti_plan(parse_model_spec("embedded", models_file=None), subjects=["Alice:she", "Men"], testings=1)
    assert [(s.name, s.person, s.pronoun) for s in plan.subjects] == [("Alice", True, "she"), ("Men", False, "they")]
    with pytest.raises(InputError, match="twice"):
        build_mbti_plan(parse_model_spec("embedded", models_file=None), subjects=["Men", "Men"], testings=1)


def test_background_subjects() -> None:
    """--background income,education adds the paper's Table 4 subjects, each with its category; alone, no defaults."""
    from analysis.methods.mbti.subjects import BACKGROUNDS, background_of

    spec = parse_model_spec("embedded", models_file=None)
    plan = build_mbti_plan(spec, backgrounds=["income", "education"], testings=1)
    assert [s.name for s in plan.subjects] == [*BACKGROUNDS["income"], *BACKGROUNDS["education"]]
    assert {s.background for s in plan.subjects} == {"income", "education"}
    mixed = build_mbti_plan(spec, subjects=["Men"], backgrounds=["age"], testings=1)
    assert [s.name for s in mixed.subjects] == ["Men", *BACKGROUNDS["age"]] and mixed.subjects[0].background is None
    assert background_of("phd students") == "education" and background_of("Men") is None
    assert replace_subject("You regularly make new friends.", plan.subjects[0]) == "Low-income people regularly make new friends."
    with pytest.raises(InputError, match="unknown background 'wealth'"):
        build_mbti_plan(spec, backgrounds=["wealth"], testings=1)
