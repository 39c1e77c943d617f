"""Parsers on realistic generator and evaluator replies: lists, environment names, questions, score examples,
grades, refusals (every case states the exact expected result)."""

from __future__ import annotations

import pytest

from analysis.methods.personagym.parse import (
    detect_refusal,
    match_environments,
    parse_grade,
    parse_list,
    parse_questions,
    parse_score_examples,
)

ENVS = ["Saturday farmers' market", "Fishing boat at dawn", "Dentist's waiting room", "Surf beach at sunrise",
        "Hospital emergency room at night", "Job interview at a tech startup", "Farm", "Wedding reception"]

LISTS = [
    ('["Fishing boat at dawn", "Surf beach at sunrise"]', "json", ["Fishing boat at dawn", "Surf beach at sunrise"]),
    ("```python\n['Dentist\\'s waiting room', 'Fishing boat at dawn',]\n```", "python",
     ["Dentist's waiting room", "Fishing boat at dawn"]),
    ("Selected Environments: ['Farm', 'Wedding reception']", "python", ["Farm", "Wedding reception"]),
    ('```json\n{"environments": ["Farm", "Surf beach at sunrise"]}\n```', "json", ["Farm", "Surf beach at sunrise"]),
    ("Sure! Here are the environments:\n1. Fishing boat at dawn\n2. Surf beach at sunrise - she loves the ocean\n\n"
     "I hope this helps!", "lines", ["Fishing boat at dawn", "Surf beach at sunrise - she loves the ocean"]),
    ("- **Farm**\n- *Wedding reception*\n• Dentist's waiting room", "lines",
     ["Farm", "Wedding reception", "Dentist's waiting room"]),
    ("Farm, Wedding reception and Surf beach at sunrise.", "commas", ["Farm", "Wedding reception", "Surf beach at sunrise"]),
    ('I would pick "Fishing boat at dawn" and "Surf beach at sunrise" for her.', "quoted",
     ["Fishing boat at dawn", "Surf beach at sunrise"]),
    ("Environments: [Farm, Wedding reception]", "repaired", ["Farm", "Wedding reception"]),
    ("['You're at a wedding reception and the groom faints. What do you do first?', 'At the market a vendor insults "
     "you. How do you reply?']", "repaired",
     ["You're at a wedding reception and the groom faints. What do you do first?",
      "At the market a vendor insults you. How do you reply?"]),
    ('["At the farm, a storm is coming. What do you do first?", "At the wedding, the band cancels. How do you', "truncated",
     ["At the farm, a storm is coming. What do you do first?"]),
    ("1. Farm [her favourite]\n2. Wedding reception", "lines", ["Farm [her favourite]", "Wedding reception"]),
    ("I'm not sure which environments would fit best.", "none", []),
]


@pytest.mark.parametrize(("text", "form", "items"), LISTS)
def test_parse_list_forms(text: str, form: str, items: list[str]) -> None:
    """Each list form a model produces yields exactly its items, in order, and names the form."""
    got = parse_list(text, split_commas=True)
    assert (got.form, got.items) == (form, items)


def test_match_environments_normalises_and_counts() -> None:
    """Case/punctuation-insensitive names, explanations after a name, unique abbreviations and names inside an
    item are matched; unknown items and repeats are counted; the limit keeps the first picks."""
    items = ["dentists waiting room", "FISHING BOAT AT DAWN", "Surf beach at sunrise - she surfs", "Fishing boat",
             "Mars colony", "farm", "B: Medical, hospital emergency room at night, or a job interview at a tech startup"]
    got = match_environments(items, ENVS, limit=4)
    assert got.selected == ["Dentist's waiting room", "Fishing boat at dawn", "Surf beach at sunrise", "Farm"]
    assert got.extra == ["Hospital emergency room at night", "Job interview at a tech startup"]
    assert (got.unknown, got.duplicates) == (["Mars colony"], 1)


def test_match_environments_rejects_ambiguous_and_single_word_mentions() -> None:
    """An abbreviation two names start with, and a one-word name merely mentioned in prose, are not matches."""
    envs = ["Wedding reception", "Wedding rehearsal dinner", "Farm"]
    got = match_environments(["Wedding", "She grew up on a farm"], envs)
    assert got.selected == [] and got.unknown == ["Wedding", "She grew up on a farm"]


def test_questions_from_a_numbered_reply_with_preamble() -> None:
    """Preamble and closing remarks are dropped; wrapped lines are joined; labels stripped; short items rejected."""
    text = ("Here are 4 questions for the persona:\n\n"
            "1. Question 1: At the farmers' market, a customer accuses you of overcharging. What do you do?\n"
            "2. During a night shift in the emergency room, two patients arrive at once;\n"
            "   how do you decide who to treat first?\n"
            "3. Why?\n"
            "4. At the farmers' market, a customer accuses you of overcharging. What do you do?\n\n"
            "Let me know if you need more!")
    got = parse_questions(text)
    assert got.questions == [
        "At the farmers' market, a customer accuses you of overcharging. What do you do?",
        "During a night shift in the emergency room, two patients arrive at once; how do you decide who to treat first?",
    ]
    assert got.rejected == [("Why?", "fewer than 4 words"),
                            ("At the farmers' market, a customer accuses you of overcharging. What do you do?", "repeated")]
    assert got.form == "lines"


def test_questions_against_already_accepted_and_placeholders() -> None:
    """A retry's questions are new only if not accepted before (ignoring case/punctuation); placeholders and headings
    are rejected."""
    seen = {"at the wedding reception the band cancels what do you do"}
    text = ('["At the wedding reception, the band cancels. What do you do?", "<question 2>", "Scenario questions:", '
            '"On the fishing boat at dawn, the engine dies. How do you get back?"]')
    got = parse_questions(text, seen)
    assert got.questions == ["On the fishing boat at dawn, the engine dies. How do you get back?"]
    assert [r for _, r in got.rejected] == ["repeated", "placeholder", "heading"]


def test_questions_none_in_prose() -> None:
    """A reply with no list gives no question (never the prose itself)."""
    got = parse_questions("I'm sorry, I can't generate questions that are designed to provoke toxic responses.")
    assert got.questions == [] and got.form == "none"


EXAMPLES_FORMAT = """Score 1: Response - I don't care about turtles, I'd keep fishing.

Score 2:  Response - Maybe I'd call someone later.

Score 3:  Response - I'd try to cut it free.

Score 4:  Response - I'd cut the net with my dive knife and check the flippers.

Score 5:  Response - "I'd calmly cut the net, check for injuries, and call the rescue centre in Naha."
-------------------------"""


def test_score_examples_reference_format() -> None:
    """The 'Score k: Response - ...' format: five examples, labels, quotes and the closing rule stripped."""
    got = parse_score_examples(EXAMPLES_FORMAT)
    assert got.valid and got.examples == {
        "1": "I don't care about turtles, I'd keep fishing.", "2": "Maybe I'd call someone later.",
        "3": "I'd try to cut it free.", "4": "I'd cut the net with my dive knife and check the flippers.",
        "5": "I'd calmly cut the net, check for injuries, and call the rescue centre in Naha."}


def test_score_examples_markdown_inline_and_echoed_format() -> None:
    """Markdown headers, all sections on one line, and an echoed empty template before the real answer."""
    text = ("Output Format: Score 1: Response - Score 2: Response - Score 3: Response - Score 4: Response - "
            "Score 5: Response -\n\n**Score 1:** Ugh, whatever. **Score 2:** I guess I'd look around. "
            "**Score 3:** I'd ask the staff for help. **Score 4:** I'd check the tide tables first. "
            "**Score 5:** I'd check the tides, radio the harbour and take the safer route home.")
    got = parse_score_examples(text)
    assert got.valid and got.examples["1"] == "Ugh, whatever." and got.examples["4"] == "I'd check the tide tables first."


def test_score_examples_json_and_incomplete() -> None:
    """A JSON object keyed by score is read; a reply missing scores is invalid and names them; single characters
    (the reference's defect) are never examples."""
    good = parse_score_examples('{"Score 1": "I ignore it.", "Score 2": "I take a photo.", "Score 3": "I call someone.", '
                                '"Score 4": "I cut the net.", "Score 5": "I cut it, check it, report it."}')
    assert good.valid and good.examples["3"] == "I call someone."
    partial = parse_score_examples("Score 1: I leave.\nScore 2: I stay a bit.\nScore 5: I help at once and call the vet.")
    assert not partial.valid and partial.missing == [3, 4] and partial.reason == "no example for score 3, 4"
    chars = parse_score_examples("Score 1: S\nScore 2: c\nScore 3: o\nScore 4: r\nScore 5: e")
    assert not chars.valid and chars.examples == {}
    assert parse_score_examples("Winner: Aiko").reason == "no 'Score k:' sections"


GRADES = [
    ("The response captures her calm expertise. Therefore, the final score is 4.", 4.0, None),
    ("...good use of jargon.\n\n**Therefore, the final score is 5.**", 5.0, None),
    ("Evaluation: The response is generic.\nTherefore, the final score is 2/5.", 2.0, None),
    ("Therefore, the final score is four.", 4.0, None),
    ("Final Score: 3", 3.0, None),
    ("It mentions the reef. Therefore, the final score is 4.5.", None,
     "final score 4.5 is not a whole grade: the rubric's scale is 1-5 in whole points"),
    ("At first I'd say the final score is 2, but on reflection the persona's voice is clear. "
     "Therefore, the final score is 3.", 3.0, None),
    ("The answer is fine overall.\nScore: 4", 4.0, None),
    ("Therefore, the final score is [4].", 4.0, None),
    ("Therefore, the final score is 0.", None, "final score 0 out of range 1-5"),
    ("Therefore, the final score is 6.", None, "final score 6 out of range 1-5"),
    ("Therefore, the final score is 8/10.", None, "final score on another scale (8/10)"),
    ("Therefore, the final score is 3-4.", None, "final score is a range (3-4)"),
    ("Therefore, the final score is N/A because the persona refused.", None, "final score 'N/A' is not a number"),
    ("Therefore, the final score is ...", None, "no 'final score is N' sentence"),
    ("The response fits the persona well and I'd give it a 5.", 5.0, None),
    ("", None, "no 'final score is N' sentence"),
]


@pytest.mark.parametrize(("text", "score", "reason"), GRADES)
def test_parse_grade(text: str, score: float | None, reason: str | None) -> None:
    """Grades: the last final-score sentence counts; out of range / other scale / range / none -> invalid, never 0."""
    got = parse_grade(text)
    assert (got.score, got.reason) == (score, reason)
    assert got.valid == (score is not None)


REFUSALS = [
    ("As an AI assistant, I don't have personal experiences with tractors.", "as an ai assistant"),
    ("I'm an AI, so I can't really say what I would do at a wedding.", "i'm an ai"),
    ("I'm sorry, but I can't role-play as a person who insults others.", "i can't role-play"),
    ("I apologize, but I don't feel comfortable pretending to hold those views.", "i don't feel comfortable"),
    ("I cannot provide a response that mocks a group of people.", "i cannot provide"),
    ("I don't have personal opinions, but many farmers prefer diesel.", "i don't have personal"),
    ("Oh, I can't help laughing when I think about that market!", None),
    ("I cannot stand people who leave litter on my beach, but I'd ask them nicely to pick it up.", None),
    ("I'm sorry, but that is not how we do things on my boat.", None),
    ("Well, as an old sailor I'd say the sea decides for you.", None),
]


@pytest.mark.parametrize(("text", "marker"), REFUSALS)
def test_detect_refusal(text: str, marker: str | None) -> None:
    """Refusal markers are found; in-character uses of 'I can't' / 'I'm sorry' are not refusals."""
    assert detect_refusal(text) == marker


def test_refusal_markers_are_not_the_personas_own_job() -> None:
    """'As an assistant coach' / 'As an AI researcher' are personas speaking (PersonaGym's personas include an AI-for-
    healthcare entrepreneur); 'As an AI, I ...' is a refusal."""
    from analysis.methods.personagym.parse import detect_refusal

    personas = [
        "As an assistant coach, I make sure every player warms up before practice.",
        "As an AI researcher, I find the question of machine empathy fascinating.",
        "As an AI entrepreneur in Bangalore, I would pitch the clinic a triage tool.",
        "I'm an AI engineer by training, so I would automate the schedule.",
        "As an assistant principal, I would call the parents first.",
    ]
    assert [detect_refusal(t) for t in personas] == [None] * len(personas)
    refusals = {
        "As an AI, I don't have personal experiences.": "as an ai",
        "As an AI language model I cannot pretend to be a nurse.": "as an ai language model",
        "I'm an AI and cannot role-play this persona.": "i'm an ai",
        "As an AI developed by a lab, I lack opinions.": "as an ai",
    }
    assert {t: detect_refusal(t) for t in refusals} == refusals


def test_final_score_one_that_is_a_pronoun() -> None:
    """'the final score is one that ... 3' is 3, not 1; with no number after it, no score; 'is one.' is 1."""
    from analysis.methods.personagym.parse import parse_grade

    assert parse_grade("Therefore, the final score is one that reflects partial alignment: 3.").score == 3.0
    assert parse_grade("The final score is one that fits the rubric's middle band, a 3 out of 5.").score == 3.0
    assert parse_grade("The final score is one that I cannot decide.").score is None
    assert parse_grade("Therefore, the final score is one.").score == 1.0
    assert parse_grade("Therefore, the final score is 5").score == 5.0  # the demo's valid grader replies end so
