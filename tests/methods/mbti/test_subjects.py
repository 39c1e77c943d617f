"""Subject replacement: "You ..." statements rewritten about groups with pronoun and verb agreement."""

from __future__ import annotations

import re

import pytest

from analysis.methods.mbti.statements import load_statements
from analysis.methods.mbti.subjects import Subject, replace_subject

CASES = [
    # subject + verb: plural groups keep the second person's (plural) verb forms
    ("You enjoy long walks.", "Men", "Men enjoy long walks."),
    ("You are very sentimental.", "Women", "Women are very sentimental."),
    ("You were shy as a child.", "Girls", "Girls were shy as a child."),
    # possessives and reflexives
    ("You spend a lot of your free time reading.", "Men", "Men spend a lot of their free time reading."),
    ("You often catch yourself daydreaming.", "Boys", "Boys often catch themselves daydreaming."),
    ("The choice is yours.", "People", "The choice is people's."),
    ("You keep your plans to yourself and trust your own judgement.", "Doctors",
     "Doctors keep their plans to themselves and trust their own judgement."),
    # a possessive before any mention: the subject's possessive ("-s'" after a final s)
    ("Your mood can change quickly.", "Men", "Men's mood can change quickly."),
    ("Your desk is tidy, and that pleases you.", "Doctors", "Doctors' desk is tidy, and that pleases them."),
    # later mentions: "they" as subject, "them" as object
    ("Even a small mistake can cause you to doubt your abilities.", "Women",
     "Even a small mistake can cause women to doubt their abilities."),
    ("When someone praises you, you wonder whether they mean it.", "Adolescents",
     "When someone praises adolescents, they wonder whether they mean it."),
    ("Your emotions control you more than you control them.", "Men", "Men's emotions control them more than they control their emotions."),
    ("You trust what you have seen more than theories you have read about.", "People",
     "People trust what they have seen more than theories they have read about."),
    ("You rarely dwell on mistakes you made.", "Girls", "Girls rarely dwell on mistakes they made."),
    ("Small setbacks make you doubt yourself.", "Boys", "Small setbacks make boys doubt themselves."),
    ("A quiet evening sounds ideal to you, and friends rarely bother you.", "Women",
     "A quiet evening sounds ideal to women, and friends rarely bother them."),
    # contractions
    ("You're often late, and you've accepted it.", "Men", "Men are often late, and they've accepted it."),
    ("You'd rather stay home.", "People", "People would rather stay home."),
    ("You’ll usually say yes.", "Women", "Women will usually say yes."),
    # capitals: sentence starts, mid-sentence lower case, kept capitals
    ("At social events, you rarely introduce yourself.", "Men", "At social events, men rarely introduce themselves."),
    ("You like quiet. You avoid crowds.", "Men", "Men like quiet. They avoid crowds."),
    ("In class, you ask many questions.", "PhD students", "In class, PhD students ask many questions."),
    ("You worry about money.", "Low-income people", "Low-income people worry about money."),
    ("Money worries you.", "Low-income people", "Money worries low-income people."),
    ("Crowds tire you.", "Asian Americans", "Crowds tire Asian Americans."),
    ('"You" is not a word here, but you are.', "Men", '"Men" is not a word here, but they are.'),
]


@pytest.mark.parametrize(("statement", "subject", "expected"), CASES, ids=[c[0][:30] for c in CASES])
def test_replacement(statement: str, subject: str, expected: str) -> None:
    """Each tricky case reads as expected for its plural subject."""
    assert replace_subject(statement, subject) == expected


SINGULAR = [
    ("You enjoy long walks.", "A doctor enjoys long walks."),
    ("You rarely worry about it.", "A doctor rarely worries about it."),
    ("You are calm.", "A doctor is calm."),
    ("You were calm.", "A doctor was calm."),
    ("You have many friends.", "A doctor has many friends."),
    ("You don't like surprises.", "A doctor doesn't like surprises."),
    ("You often go out.", "A doctor often goes out."),
    ("You can stay calm.", "A doctor can stay calm."),
    ("You watch films and you fix things.", "A doctor watches films and they fix things."),
    ("You're tired.", "A doctor is tired."),
]


@pytest.mark.parametrize(("statement", "expected"), SINGULAR, ids=[c[0][:30] for c in SINGULAR])
def test_singular_subject_conjugates_the_verb(statement: str, expected: str) -> None:
    """Only a singular subject gets the third-person singular verb right after it."""
    assert replace_subject(statement, Subject(name="A doctor", plural=False)) == expected


def test_bundled_statements_replace_cleanly() -> None:
    """Every bundled statement, for every default subject: no 'you'/'your' left, starts with a capital,
    and the subject appears exactly as expected."""
    for st in load_statements("default").statements:
        for subject in ("People", "Men", "Women", "Boys", "Girls", "PhD students"):
            out = replace_subject(st.text, subject)
            assert not re.search(r"\byou|\byour", out, re.IGNORECASE), out
            assert out[0].isupper(), out
            assert subject.lower() in out.lower(), out
            assert not re.search(r"\bthem (?:have|are|made|can|do|did|will|would)\b", out), out


def test_mid_sentence_form() -> None:
    """Plain capitalised names are lower-cased inside a sentence; acronyms and nationalities are not."""
    assert Subject(name="Men").mid == "men"
    assert Subject(name="Middle-income people").mid == "middle-income people"
    assert Subject(name="PhD students").mid == "PhD students"
    assert Subject(name="Asian Americans").mid == "Asian Americans"
    assert Subject(name="Children").possessive == "children's"
    assert Subject(name="Barbers").possessive == "barbers'"


@pytest.mark.parametrize(("statement", "who", "expected"), [
    ("You never blame people, even when it is completely their fault.", "Men",
     "Men never blame people, even when it is completely those people's fault."),
    ("You help others, because they need it.", "Women", "Women help others, because those others need it."),
    # one clause: the statement's own "their" still reads as the people's; a person's pronoun is not ambiguous
    ("You wish people relied less on their feelings.", "Men", "Men wish people relied less on their feelings."),
    ("You never blame people, even when it is completely their fault.", "Alice:she",
     "Alice never blames people, even when it is completely their fault."),
])
def test_statement_pronouns_that_would_point_at_a_they_subject(statement: str, who: str, expected: str) -> None:
    """A statement's own "their" after a clause boundary would read as the new subject's ("Men ... their fault"):
    the others it meant are named."""
    from analysis.methods.mbti.subjects import subject_from

    assert replace_subject(statement, subject_from(who)) == expected


@pytest.mark.parametrize("statement, expected", [
    # a plural subject is "the ones who" do something (statement #43 of the paper's set has this form)
    ("In your team, you're often the one who plans the trips and books the tables.",
     "In men's team, they're often the ones who plan the trips and book the tables."),
    ("You are usually the one who tries first.", "Men are usually the ones who try first."),
    # once "you" is "they"/"them", the statement's own "them" would point at the subject (the form of #47)
    ("Your worries control you more than you control them.", "Men's worries control them more than they control their worries."),
])
def test_plural_subjects_read_as_plural(statement: str, expected: str) -> None:
    assert replace_subject(statement, "Men") == expected
