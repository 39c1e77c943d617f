"""Subject-replaced statements: "You ..." rewritten about a group ("Men ...") by rule, not by an LLM.

Rules, applied per statement (Rao et al. 2023, Sec. 3.2):

- The first mention of the reader ("you", "your", "yours", or a contraction) becomes the subject:
  "You are" -> "Men are"; a leading possessive becomes the subject's possessive
  ("Your mood" -> "Men's mood", "Doctors" -> "doctors'").
- Later mentions become pronouns: "you" -> "they" where it is the subject of a clause and
  "them" where it is an object; "your" -> "their"; "yours" -> "theirs";
  "yourself"/"yourselves" -> "themselves"; "you're" -> "they're", "you've" -> "they've", ...
- A contraction at the first mention is spelled out: "You're" -> "Men are", "You've" -> "Men have".
- Verbs: subjects are plural groups, and the second person already uses the plural verb forms, so
  nothing changes ("you enjoy" -> "men enjoy"). A singular subject (``Subject(plural=False)``)
  gets the third-person singular of the verb right after it, adverbs in between skipped
  ("you rarely worry" -> "a doctor rarely worries", "you are" -> "is", "you don't" -> "doesn't").
- Capitals: a replacement at the start of a sentence is capitalised; the subject keeps its own
  capitals elsewhere except a plain capitalised first word, which is lower-cased mid-sentence
  ("Men" -> "men", "Low-income people" -> "low-income people", but "PhD students" and
  nationality words such as "Asian Americans" stay).

Whether a later "you" is a subject or an object is decided from its neighbours: an object when
punctuation or the end follows or a preposition precedes; a subject when an auxiliary, a modal or a
common irregular past form follows ("theories you have read", "mistakes you made"), or when it
opens a sentence or clause (after a conjunction, a comma, an adverb, or "than"/"as" followed by a
word). Otherwise (after a verb: "makes you feel") an object. Known limit: a bare "you" after a noun
in a reduced relative clause without auxiliary ("people you meet") is read as an object; write
such statements with "that" or an auxiliary.
"""

from __future__ import annotations

import re

from typing import Literal

from pydantic import BaseModel, Field

DEFAULT_SUBJECTS: tuple[str, ...] = ("People", "Men", "Women", "Boys", "Girls")
# Background prompts (Rao et al. 2023, Sec. 5.3 and Table 4: income, age and education levels), RoleScope's wording.
BACKGROUNDS: dict[str, tuple[str, ...]] = {
    "income": ("Low-income people", "Middle-income people", "High-income people"),
    "age": ("Children", "Adolescents", "Adults", "Older adults"),
    "education": ("Junior school students", "Middle school students", "High school students", "Undergraduate students",
                  "Master's students", "PhD students"),
}


def background_of(name: str) -> str | None:
    """The background category a subject name belongs to (case-insensitive), or None."""
    return next((c for c, names in BACKGROUNDS.items() if name.lower() in (n.lower() for n in names)), None)


def background_subjects(categories: list[str]) -> list[Subject]:
    """The subjects of each background category, in the paper's order, each knowing its category."""
    unknown = [c for c in categories if c not in BACKGROUNDS]
    if unknown:
        raise ValueError(f"unknown background {unknown[0]!r}; choose from {', '.join(BACKGROUNDS)}")
    return [Subject(name=name, background=c) for c in categories for name in BACKGROUNDS[c]]
FAIRNESS_PAIRS: tuple[tuple[str, str], ...] = (("Men", "Women"), ("Boys", "Girls"))

_TOKEN = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*|\s+|[^\sA-Za-z]")
_SENTENCE_END = {".", "!", "?"}
_OPENERS = {'"', "“", "(", "'", "‘", "["}
_CLAUSE_PUNCT = {",", ";", ":", "(", "—", "–", "-", '"', "“", "”"}
_CONJUNCTIONS = {
    "and", "but", "or", "nor", "yet", "so", "when", "whenever", "if", "that", "because", "while", "whether",
    "before", "after", "until", "till", "unless", "although", "though", "once", "since", "where", "wherever",
    "what", "whatever", "how", "why", "who", "which", "even", "then", "now", "than", "as",
}
_ADVERBS = {
    "often", "sometimes", "always", "never", "rarely", "seldom", "usually", "generally", "also", "still", "really",
    "just", "even", "already", "mostly", "hardly", "easily", "quickly", "naturally", "actually", "typically",
    "normally", "frequently", "occasionally", "truly", "certainly", "definitely", "probably", "perhaps", "maybe",
    "not", "do", "does", "don't", "doesn't",
}
_PREPOSITIONS = {
    "to", "for", "with", "of", "about", "at", "by", "from", "in", "on", "into", "onto", "around", "near", "toward",
    "towards", "without", "like", "upon", "behind", "between", "among", "against", "over", "under",
    "through", "beside", "besides", "within", "beyond", "despite", "unlike", "off", "across", "along",
}
_AUXILIARIES = {
    "are", "were", "have", "had", "do", "did", "don't", "didn't", "can", "can't", "cannot", "could", "couldn't",
    "will", "won't", "would", "wouldn't", "should", "shouldn't", "might", "must", "may", "shall", "aren't", "weren't",
    "haven't", "hadn't", "need", "tend", "made", "said", "felt", "thought", "knew", "saw", "took", "got", "gave",
    "met", "wrote", "spent", "left", "heard", "found", "told", "became", "began", "chose",
    "usually", "often", "always", "never", "rarely", "seldom", "sometimes",
}
_PROPER_WORDS = {
    "asian", "african", "american", "americans", "european", "europeans", "chinese", "indian", "indians", "japanese",
    "korean", "koreans", "latino", "latinos", "latina", "latinas", "hispanic", "hispanics", "arab", "arabs", "muslim",
    "muslims", "christian", "christians", "jewish", "jews", "hindu", "hindus", "buddhist", "buddhists", "british",
    "french", "german", "germans", "mexican", "mexicans", "canadian", "canadians", "australian", "australians",
    "english", "irish", "italian", "italians", "spanish", "russian", "russians", "brazilian", "brazilians",
    "nigerian", "nigerians", "black", "white", "indigenous", "native",
}
_CONTRACTIONS = {"you're": ("are", "is", "re"), "you've": ("have", "has", "ve"), "you'd": ("would", "would", "d"),
                 "you'll": ("will", "will", "ll")}
_IRREGULAR = {"are": "is", "were": "was", "have": "has", "do": "does", "don't": "doesn't", "go": "goes",
              "aren't": "isn't", "weren't": "wasn't", "haven't": "hasn't"}
# verbs after which "you" is the object of a causative or perception ("make you feel", "requires you to")
_CAUSATIVES = {
    "make", "makes", "made", "making", "let", "lets", "letting", "help", "helps", "helped", "helping", "have", "has",
    "cause", "causes", "caused", "causing", "see", "sees", "watch", "watches", "hear", "hears", "get", "gets", "keep",
    "keeps", "leave", "leaves", "want", "wants", "require", "requires", "allow", "allows", "force", "forces", "tell",
    "tells", "ask", "asks", "expect", "expects", "encourage", "encourages", "remind", "reminds", "drive", "drives",
    "push", "pushes", "lead", "leads", "inspire", "inspires",
}
# common verbs that, right after "you", show "you" is a clause's subject ("people you meet", "things you like")
_CLAUSE_VERBS = {
    "want", "know", "meet", "find", "like", "love", "feel", "think", "need", "see", "say", "believe", "expect", "care",
    "admire", "trust", "enjoy", "hate", "prefer", "mean", "read", "remember", "work", "live", "spend", "choose", "make",
    "do", "go", "get", "take", "value", "consider", "hold", "feel", "wish", "hope", "try", "can", "use", "own", "keep",
    "follow", "face", "miss", "lose", "start", "finish", "set", "plan", "achieve", "deal", "admit", "receive",
}
_COORDINATED_VERBS = {"talk", "become", "stay", "lose", "initiate", "contact", "avoid", "enjoy", "prefer", "tend",
                      "struggle", "complete", "spend", "end", "worry", "rely", "ask", "help"}
_LY_VERBS = {"rely", "apply", "reply", "supply", "imply", "multiply", "comply", "ally", "bully", "fly", "tally"}
_ED_VERBS = {"need", "feed", "seed", "speed", "heed", "bleed", "breed", "proceed", "succeed", "exceed", "shed", "wed"}
_PAST = {"made", "said", "felt", "thought", "knew", "saw", "took", "got", "gave", "met", "wrote", "spent", "left",
         "heard", "found", "told", "became", "began", "chose", "had", "was", "were", "did", "went", "came", "ran",
         "kept", "held", "brought", "bought", "lost", "won", "led", "sent", "built", "understood", "forgot"}
_MODALS = {"can", "can't", "cannot", "could", "couldn't", "will", "won't", "would", "wouldn't", "should", "shouldn't",
           "might", "must", "may", "shall", "did", "didn't", "had", "hadn't"}


Pronoun = Literal["they", "he", "she"]
# subject, object, possessive determiner, possessive pronoun, reflexive
_FORMS: dict[str, tuple[str, str, str, str, str]] = {
    "they": ("they", "them", "their", "theirs", "themselves"),
    "he": ("he", "him", "his", "his", "himself"),
    "she": ("she", "her", "her", "hers", "herself"),
}
_CONTRACTED = {"they": {"re": "they're", "ve": "they've", "d": "they'd", "ll": "they'll"},
               "he": {"re": "he's", "ve": "he's", "d": "he'd", "ll": "he'll"},
               "she": {"re": "she's", "ve": "she's", "d": "she'd", "ll": "she'll"}}


class Subject(BaseModel):
    """Who the statements are asked about: a group ("Men", "PhD students") or one person ("Alice", she).

    ``plural``: the name takes plural verbs. ``pronoun``: how later mentions refer to the subject. ``person``: a
    named individual (the paper's Fig. 6), whose name keeps its capitals. ``background``: the background category
    (income, age, education ...) a background subject belongs to, for grouping (the paper's Table 4)."""

    name: str = Field(min_length=1)
    plural: bool = True
    pronoun: Pronoun = "they"
    person: bool = False
    background: str | None = None

    @property
    def mid(self) -> str:
        """The name inside a sentence: a plain capitalised first word is lower-cased (not a person's name)."""
        if self.person:
            return self.name
        first, _, rest = self.name.partition(" ")
        core = first.split("-")[0]
        plain = core[:1].isupper() and (core[1:].islower() or len(core) == 1) and core.lower() not in _PROPER_WORDS
        if plain:
            first = first[:1].lower() + first[1:]
        return f"{first} {rest}".strip() if rest else first

    @property
    def possessive(self) -> str:
        return f"{self.mid}'" if self.mid.endswith("s") else f"{self.mid}'s"


def subject_from(value: str | Subject) -> Subject:
    """A Subject from its command-line form: a group ("Men"), or one person "Name:she" / "Name:he" / "Name:they"."""
    if isinstance(value, Subject):
        return value
    name, sep, pronoun = value.strip().rpartition(":")
    if sep and pronoun.strip().lower() in _FORMS and name.strip():
        return Subject(name=name.strip(), plural=False, pronoun=pronoun.strip().lower(), person=True)
    return Subject(name=value.strip())


def replace_subject(statement: str, subject: str | Subject) -> str:
    """``statement`` (second person) rewritten about ``subject`` (see module docstring)."""
    subj = subject_from(subject)
    tokens = _TOKEN.findall(statement)
    out: list[str] = []
    mentioned = False
    conjugate_next = False
    agreed = False  # a verb was made to agree with a singular subject in this sentence
    possessed = ""  # "emotions" when the first mention is "Your emotions"
    for i, tok in enumerate(tokens):
        low = tok.lower().replace("’", "'")
        start = _sentence_start(tokens, i)
        if possessed and low == "them" and subj.pronoun == "they":
            # "Your emotions control you more than you control them": once "you" is "they"/"them" too, the statement's
            # own "them" would read as the subject; name what it meant ("... than they control their emotions")
            out.append(f"their {possessed}")
            continue
        if mentioned and subj.pronoun == "they" and low in _OTHERS_PRONOUNS and (named := _others_named(tokens, i)):
            # the statement's own "their" ("not to make people look bad, even when it is completely their fault")
            # would now also point at the subject: name the others it meant
            out.append(_OTHERS_PRONOUNS[low].format(named))
            continue
        if low in ("you", "your", "yours", "yourself", "yourselves") or low in _CONTRACTIONS:
            role = _role(tokens, i) if low == "you" or low in _CONTRACTIONS else None
            if not mentioned:
                text, conjugate_next = _first_mention(low, role, subj)
                mentioned = low not in ("yourself", "yourselves")
                if low == "your":
                    noun = next((t for t in tokens[i + 1:] if t.strip()), "")
                    possessed = noun.lower() if noun.isalpha() and noun.lower().endswith("s") else ""
            else:
                text = _pronoun(low, role, subj.pronoun)
                # "she" takes singular verbs; "they" (even for one person) plural ones, as "you" did
                conjugate_next = subj.pronoun != "they" and role == "subject" and low == "you"
            out.append(_cap(text) if start else text)
            continue
        if conjugate_next and tok.strip() and tok[:1].isalpha():
            if _is_adverb(low):
                out.append(tok)
                continue
            if tokens[i + 1:i + 2] == ["-"]:  # "second-guess": the verb is the last part of the compound
                out.append(tok)
                continue
            out.append(_match_case(tok, _third_person(low)))
            conjugate_next = False
            agreed = True
            continue
        if conjugate_next and tok.strip() and tok != "-":
            conjugate_next = False  # punctuation before any verb: nothing to agree
        if agreed and low in ("and", "or") and not subj.plural:
            # a second verb of the same predicate ("tries ... and mostly talks"), when it is a known verb
            nxt = next((t.lower() for t in tokens[i + 1:] if t.strip() and not _is_adverb(t.lower())), "")
            if nxt in _CLAUSE_VERBS | _COORDINATED_VERBS:
                conjugate_next = True
        if tok.strip() and tok in _SENTENCE_END:
            agreed = False
        out.append(tok)
    text = "".join(out)
    return _the_ones_who(text) if subj.plural and subj.pronoun == "they" else text


# "they're often the one who contacts their friends and initiates activities": a plural subject makes them "the ones
# who contact ... and initiate"
_THE_ONE_WHO = re.compile(r"\b(they're|they are|are)(\s+(?:(?:often|usually|always|typically|generally|mostly|\w+ly)\s+)?)the one who (\w+)((?:[^.;:!?]*?\band\s+)(\w+))?",
                          re.IGNORECASE)


def _plural_verb(verb: str) -> str:
    """The plural form of a third-person singular verb ("contacts" -> "contact", "tries" -> "try", "goes" -> "go")."""
    low = verb.lower()
    if low.endswith("ies") and len(low) > 4:
        return verb[:-3] + "y"
    if re.search(r"(?:ss|sh|ch|x|z|o)es$", low):
        return verb[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return verb[:-1]
    return verb


def _the_ones_who(text: str) -> str:
    def plural(m: re.Match[str]) -> str:
        second = m.group(4) or ""
        if m.group(5) and m.group(5).lower().endswith("s"):
            second = second[: len(second) - len(m.group(5))] + _plural_verb(m.group(5))
        return f"{m.group(1)}{m.group(2)}the ones who {_plural_verb(m.group(3))}{second}"

    return _THE_ONE_WHO.sub(plural, text)


_OTHERS_PRONOUNS = {"they": "those {}", "them": "those {}", "their": "those {}'s", "theirs": "those {}'s"}
_OTHERS_NOUNS = ("people", "others")


def _others_named(tokens: list[str], i: int) -> str | None:
    """The plural noun a third-person pronoun of the original statement refers to, when a clause boundary (a comma or
    a conjunction) separates them: "people" or "others" as the nearest preceding noun of that kind; else None."""
    boundary = False
    for tok in reversed(tokens[:i]):
        low = tok.lower()
        if low in _SENTENCE_END:
            return None
        if low == "," or low in ("when", "because", "if", "although", "though", "while"):
            boundary = True
        if low in _OTHERS_NOUNS:
            return ("people" if low == "people" else "others") if boundary else None
        if low in ("you", "your", "yours"):
            return None  # the subject is nearer: the pronoun is the statement's own reference to it
    return None


def _is_adverb(low: str) -> bool:
    """An adverb between a subject and its verb ("often", "regularly"); "-ly" verbs such as "rely" are not."""
    return (low in _ADVERBS - {"do", "does", "don't", "doesn't", "not"}) or (
        low.endswith("ly") and len(low) > 4 and low not in _LY_VERBS)


def _first_mention(low: str, role: str | None, subj: Subject) -> tuple[str, bool]:
    """Text for the first mention and whether the following verb must agree (singular subjects)."""
    if low == "you":
        return subj.mid, (not subj.plural and role == "subject")
    if low in _CONTRACTIONS:
        plural_form, singular_form, _ = _CONTRACTIONS[low]
        return f"{subj.mid} {plural_form if subj.plural else singular_form}", False
    if low in ("your", "yours"):
        return subj.possessive, False
    return _FORMS[subj.pronoun][4], False  # "yourself" before any mention: rare; keep it grammatical


def _pronoun(low: str, role: str | None, pronoun: str = "they") -> str:
    subject, obj, determiner, possessive, reflexive = _FORMS[pronoun]
    if low == "you":
        return subject if role == "subject" else obj
    if low in _CONTRACTIONS:
        return _CONTRACTED[pronoun][_CONTRACTIONS[low][2]]
    return {"your": determiner, "yours": possessive, "yourself": reflexive, "yourselves": reflexive}[low]


def _words_before(tokens: list[str], i: int) -> str | None:
    """The previous non-space token, or None at the start."""
    for tok in reversed(tokens[:i]):
        if tok.strip():
            return tok
    return None


def _words_after(tokens: list[str], i: int) -> list[str]:
    return [t for t in tokens[i + 1:] if t.strip()]


def _sentence_start(tokens: list[str], i: int) -> bool:
    """True when only opening quotes/brackets separate token ``i`` from the start or a sentence end."""
    for tok in reversed(tokens[:i]):
        if not tok.strip() or tok in _OPENERS:
            continue
        return tok in _SENTENCE_END
    return True


def _role(tokens: list[str], i: int) -> str:
    """'subject' or 'object' for the "you" at ``i`` (see module docstring)."""
    low = tokens[i].lower().replace("’", "'")
    if low in _CONTRACTIONS:
        return "subject"
    after = _words_after(tokens, i)
    prev = _words_before(tokens, i)
    prev_low = prev.lower() if prev else None
    if not after or not after[0][:1].isalpha():
        return "object"
    nxt = after[0].lower().replace("’", "'")
    if (prev_low not in _CAUSATIVES and (prev_low not in _PREPOSITIONS or prev_low in ("like", "as"))
            and (nxt in _CLAUSE_VERBS or (nxt in _ADVERBS and nxt not in ("not", "do", "does")) or nxt.endswith("ly"))):
        return "subject"  # "someone you find", "the ones you already know", "feel like you want to"
    if prev_low in _PREPOSITIONS:
        return "object"
    if after[0].lower().replace("’", "'") in _AUXILIARIES:
        return "subject"
    if prev is None or prev in _SENTENCE_END or prev in _CLAUSE_PUNCT or prev_low in _CONJUNCTIONS:
        return "subject"
    if prev_low in _ADVERBS or (prev_low or "").endswith("ly"):
        return "subject"
    return "object"


def _third_person(verb: str) -> str:
    """Third-person singular present of ``verb`` (modals and past forms unchanged)."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb in _MODALS or verb in _PAST or (verb.endswith("ed") and verb not in _ED_VERBS) or "'" in verb:
        return verb
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    if re.search(r"(s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    return verb + "s"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _match_case(original: str, new: str) -> str:
    return _cap(new) if original[:1].isupper() else new
