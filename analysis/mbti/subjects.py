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

from pydantic import BaseModel, Field

DEFAULT_SUBJECTS: tuple[str, ...] = ("People", "Men", "Women", "Boys", "Girls")
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
_MODALS = {"can", "can't", "cannot", "could", "couldn't", "will", "won't", "would", "wouldn't", "should", "shouldn't",
           "might", "must", "may", "shall", "did", "didn't", "had", "hadn't"}


class Subject(BaseModel):
    """A group the statements are asked about. ``name`` as it should read, e.g. "Men", "PhD students"."""

    name: str = Field(min_length=1)
    plural: bool = True

    @property
    def mid(self) -> str:
        """The name inside a sentence: a plain capitalised first word is lower-cased."""
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
    return value if isinstance(value, Subject) else Subject(name=value.strip())


def replace_subject(statement: str, subject: str | Subject) -> str:
    """``statement`` (second person) rewritten about ``subject`` (see module docstring)."""
    subj = subject_from(subject)
    tokens = _TOKEN.findall(statement)
    out: list[str] = []
    mentioned = False
    conjugate_next = False
    for i, tok in enumerate(tokens):
        low = tok.lower().replace("’", "'")
        start = _sentence_start(tokens, i)
        if low in ("you", "your", "yours", "yourself", "yourselves") or low in _CONTRACTIONS:
            role = _role(tokens, i) if low == "you" or low in _CONTRACTIONS else None
            if not mentioned:
                text, conjugate_next = _first_mention(low, role, subj)
                mentioned = low not in ("yourself", "yourselves")
            else:
                text = _pronoun(low, role)
            out.append(_cap(text) if start else text)
            continue
        if conjugate_next and tok.strip() and tok[:1].isalpha():
            if low in _ADVERBS - {"do", "does", "don't", "doesn't", "not"}:
                out.append(tok)
                continue
            out.append(_match_case(tok, _third_person(low)))
            conjugate_next = False
            continue
        if conjugate_next and tok.strip():
            conjugate_next = False  # punctuation before any verb: nothing to agree
        out.append(tok)
    return "".join(out)


def _first_mention(low: str, role: str | None, subj: Subject) -> tuple[str, bool]:
    """Text for the first mention and whether the following verb must agree (singular subjects)."""
    if low == "you":
        return subj.mid, (not subj.plural and role == "subject")
    if low in _CONTRACTIONS:
        plural_form, singular_form, _ = _CONTRACTIONS[low]
        return f"{subj.mid} {plural_form if subj.plural else singular_form}", False
    if low in ("your", "yours"):
        return subj.possessive, False
    return "themselves", False  # "yourself" before any mention: rare; keep it grammatical


def _pronoun(low: str, role: str | None) -> str:
    if low == "you":
        return "they" if role == "subject" else "them"
    if low in _CONTRACTIONS:
        return f"they'{_CONTRACTIONS[low][2]}"
    return {"your": "their", "yours": "theirs", "yourself": "themselves", "yourselves": "themselves"}[low]


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
    if verb in _MODALS or verb.endswith("ed") or "'" in verb:
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
