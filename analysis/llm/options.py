"""Turning a reply into one of a question's lettered options.

Modes, recorded with every answer:

- ``logprob``: one generated token with its top-k logprobs; keep only tokens that are an option
  letter (after stripping spaces/punctuation: "A", " A", "(A" all count for A; the best variant's
  logprob is the letter's), choose the argmax. No letter among the top-k -> invalid.
- ``text``: free generation parsed by ``parse_option_text``. First the shared rules of ``analysis.reading``: the
  final answer after a self-correction ("(B) - sorry, I mean (F)", "Answer: B. No wait, answer: C."), a withdrawn
  answer with none after it, and no answer from a refusal, a hedge ("somewhere between (C) and (D)"), the options
  listed without a pick or the question restated; a reply in another language with no letter is "not English". This
  reader's own rules, on the final part: a JSON reply {"answer": "D"} is read by its answer; two
  letters named together ("B and C", "A or B") are invalid; else an explicit letter first
  ("B", "(B)", "**B**", "B.", "Answer: B", "B) label", "I'd say B", a "(B)" anywhere), else the longest option label
  quoted in the reply. "A"/"I" starting a sentence ("A person like me", "I think") are words, not
  letters, and so is the first word of a spelled-out label ("A little like me"); a number label ("1") is not read
  inside another number ("-1"). A label preceded by a negation ("not at all like me") is not that option. Nothing
  found, two different options named, a negated label, or a letter and a label that disagree ("(A) Very much like
  me" where A is "Like me", "A little like me (D)") -> invalid, never one of the two (issue 42; the reference would
  read the first token after "("). Never a random fill-in.
- ``option_after_paren``: the letter read only after "(" when the reply is asked as "(X)", so that "I" or
  "A" opening a sentence is never an option (values questionnaires, letters up to I).
- ``parse_after_marker``: a chain-of-thought reply, read after its single "Answer:" marker (any case, "Final answer —
  (B)", and "Antwort:", "Réponse :", "Respuesta:", "答案：", "Ответ:", "Cevap:" … in 25 languages), or a JSON object's
  "answer", on the reply's final part (a corrected "Answer:" replaces the first).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from analysis.llm.label_words import translated
from analysis.reading import Candidate, ambiguous, degree_before, read_final, words_before

AnswerMode = Literal["logprob", "text"]
#: A chain-of-thought reply ends with this marker and its answer: the reference's "Answer:" (``models/vllmmodel.py``:
#: ``"Answer:" in generation``, ``generation.count("Answer:")``), here also in any case, misspelt "Anwser", with a dash
#: before a bracketed letter ("Final answer — (B)"), and in 25 other languages (issue 42).
ANSWER_MARKER = re.compile(
    r"(?:\b(?:answer|anwser|asnwer|antwort|réponse|respuesta|risposta|resposta|antwoord|svar|odpowiedź|odpověď|cevap|"
    r"yanıt|trả\s+lời|ответ|jawaban|απάντηση|vastaus|válasz|răspuns|odgovor|svaret)|उत्तर|الإجابة|الجواب|תשובה|คำตอบ|"
    r"答案|回答|答え|답변|정답|답)"
    r"(?:[ \t]*[:：]|[ \t]*[—–-][ \t]*(?=[(\[][A-Za-z][)\]]))", re.IGNORECASE)
#: Characters read after the marker: 10 tokens at ~4 characters each, as the reference crops it.
AFTER_MARKER_CHARS = 40
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class ParsedOption:
    index: int | None  # position in the displayed option list; None = invalid
    reason: str = ""
    logprob: float | None = None

    @property
    def valid(self) -> bool:
        return self.index is not None


def option_from_logprobs(top: dict[str, float] | None, n_options: int) -> ParsedOption:
    """Argmax over option letters among the first token's top logprobs."""
    if not top:
        return ParsedOption(None, "no logprobs in reply")
    letters = LETTERS[:n_options]
    best: dict[str, float] = {}
    for token, logprob in top.items():
        stripped = token.strip().strip("().:*\"'")
        if len(stripped) == 1 and stripped in letters:
            best[stripped] = max(logprob, best.get(stripped, float("-inf")))
    if not best:
        return ParsedOption(None, f"no option letter among the top {len(top)} tokens")
    letter = max(best, key=lambda k: (best[k], -letters.index(k)))
    return ParsedOption(letters.index(letter), logprob=best[letter])


_PAREN_LETTER = re.compile(r"\s*\(\s*([A-Z])\)?\s*")
_AFTER_PAREN = re.compile(r"\s?([A-Z])\)?")


def option_after_paren(positions: list[dict[str, float]] | None, n_options: int) -> ParsedOption:
    """The option letter read only where it follows an opening parenthesis, the reply being asked as "(X)".

    A bare first token "A" or "I" may open a sentence ("I think...", "A little like me"), so it is never read as a
    letter. The reply's first token is the argmax of the first position (greedy decoding): when it is "(", the
    letter is the argmax over letter tokens at the second position; when it is a merged "(A" token, the argmax
    over the merged "(X" tokens of the first position. Anything else -> invalid, with the token it opened with.
    """
    if not positions:
        return ParsedOption(None, "no logprobs in reply")
    letters = LETTERS[:n_options]
    first = positions[0]
    opened = max(first, key=first.__getitem__)
    if opened.strip() == "(":
        if len(positions) < 2:
            return ParsedOption(None, "reply stopped after '('")
        scores = _letter_scores(positions[1], _AFTER_PAREN, letters)
    elif _PAREN_LETTER.fullmatch(opened):
        scores = _letter_scores(first, _PAREN_LETTER, letters)
    else:
        return ParsedOption(None, f"reply opens with {opened!r}, not '(': no letter read")
    if not scores:
        return ParsedOption(None, "no option letter after '('")
    letter = max(scores, key=lambda k: (scores[k], -letters.index(k)))
    return ParsedOption(letters.index(letter), logprob=scores[letter])


def _letter_scores(top: dict[str, float], pattern: re.Pattern[str], letters: str) -> dict[str, float]:
    """Best logprob per option letter among the tokens ``pattern`` reads as one."""
    best: dict[str, float] = {}
    for token, logprob in top.items():
        m = pattern.fullmatch(token)
        if m and m.group(1) in letters:
            best[m.group(1)] = max(logprob, best.get(m.group(1), float("-inf")))
    return best


# Where a reply states a letter, strongest evidence first. Each tier is searched on its own:
# one distinct letter -> that option; two or more -> invalid; none -> next tier.
_LETTER_TIERS = (
    # the whole reply is a letter: "C", "c", "(C)", "C.", "'D'", "D!", "[D]"
    re.compile(r"\A\s*[(\[\"']?([A-Za-z])[)\]\"']?\s*[.!:]?\s*\Z"),
    # named as the answer: "Answer: D", "My answer is B", "option (E)", "The answer would be C."
    re.compile(r"\b(?:answer|option|choice|letter)\b\s*(?:is|would be|will be|=|:|-)?\s*[(\[\"']?([A-Za-z])(?![A-Za-z'’])",
               re.IGNORECASE),
    # a line starting with the letter: "B) Not like me", "A. Somewhat like me", "D - Like me", "C Somewhat like me"
    re.compile(r"^[ \t>#-]*[(\[]?([A-Za-z])(?=[)\].:]|[ \t]|$)", re.MULTILINE),
    # chosen with a verb: "I'd say B.", "I choose A.", "I'm going with F"
    re.compile(r"\b(?:choose|chose|pick|picked|select|selected|go with|going with|say|opt for)\s+"
               r"(?:option\s+|letter\s+)?[(\[\"']?([A-Za-z])(?![A-Za-z'’])", re.IGNORECASE),
    # a letter in parentheses anywhere, as the question writes its options: "Definitely (A)."
    re.compile(r"\(([A-Za-z])\)"),
)
# two letters named together: "B and C", "A or B", "C/D"
_TWO_LETTERS = re.compile(r"(?<![A-Za-z'’])\(?([A-Z])\)?\s*(?:,|/|&|\band\b|\bor\b)\s*\(?([A-Z])\)?(?![A-Za-z'’])")
_MARKUP = str.maketrans("", "", "*`")  # markdown emphasis around letters ("**B**")
_NEGATION = re.compile(r"\b(?:not|never|no|hardly)\b|n[’']t\b")


def parse_option_text(text: str, labels: list[str]) -> ParsedOption:
    """Map a free-text reply to an option index (see module docstring): the shared rules of ``analysis.reading``
    (the final answer after a self-correction, no answer from a refusal, hedge, echoed list or restated question, not
    English), then this reader's letters and labels."""
    if not text or not text.strip():
        return ParsedOption(None, "empty reply")
    return read_final(text, lambda part: _option_text(part, labels), lambda p: p.valid, lambda why: ParsedOption(None, why),
                      key=_letter)


def _letter(parsed: ParsedOption) -> str | None:
    """The letter of an option read (what two readings compare and name)."""
    return LETTERS[parsed.index] if parsed.index is not None else None


def _option_text(text: str, labels: list[str]) -> ParsedOption:
    """This reader's own vocabulary on a reply's final part (module docstring)."""
    if not text or not text.strip():
        return ParsedOption(None, "no option letter or label found")
    letters = LETTERS[: len(labels)]
    clean = _json_answer(text).translate(_MARKUP)
    explicit, weak = [_LETTER_TIERS[i] for i in (0, 1, 3)], [_LETTER_TIERS[i] for i in (2, 4)]
    for k, pattern in enumerate([*explicit, *weak]):
        if k == len(explicit):  # no explicit choice: "B and C" names two options ("B or C? I'd say B" chose one)
            pairs = {frozenset(m.groups()) for m in _TWO_LETTERS.finditer(clean) if set(m.groups()) <= set(letters)}
            if any(len(p) == 2 for p in pairs):
                named = sorted({x for p in pairs for x in p})
                return ParsedOption(None, f"several option letters named ({', '.join(named)})")
        found = {m.group(1).upper() for m in pattern.finditer(clean)
                 if m.group(1).upper() in letters and _is_letter(clean, m.start(1), labels)}
        if len(found) == 1:
            return _unless_contradicted(ParsedOption(letters.index(found.pop())), clean, labels)
        if found:
            return ParsedOption(None, f"several option letters named ({', '.join(sorted(found))})")
    return _unless_contradicted(_option_from_labels(clean.lower(), labels), clean, labels)


_PAREN = re.compile(r"\(([A-Za-z])\)")


def _json_answer(text: str) -> str:
    """A reply that is a JSON object naming its answer ({"answer": "D"}, {"option": "(B) Not like me"}): that answer's
    text, read as a reply of its own; any other reply unchanged."""
    stripped = text.strip().strip("`").removeprefix("json").strip()
    if not stripped.startswith("{"):
        return text
    try:
        obj = json.loads(stripped)
    except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
        return text
    if isinstance(obj, dict):
        for key, value in obj.items():
            if str(key).lower() in ("answer", "option", "choice", "letter", "response") and isinstance(value, str):
                return value
    return text


def _unless_contradicted(parsed: ParsedOption, clean: str, labels: list[str]) -> ParsedOption:
    """Invalid when the reply also names another option: a letter in parentheses ("A little like me (D)", "A (C)") or
    a spelled-out label ("(C) Not like me at all" where C is "Not like me") that is not the option read."""
    if not parsed.valid:
        return parsed
    letters = LETTERS[: len(labels)]
    chosen = letters[parsed.index]
    others = sorted({m.group(1).upper() for m in _PAREN.finditer(clean)
                     if m.group(1).upper() in letters and m.group(1).upper() != chosen})
    if others:
        return ParsedOption(None, f"letter and label disagree: option {chosen} read, ({', '.join(others)}) also named")
    by_label = _option_from_labels(clean.lower(), labels)
    if by_label.valid and by_label.index != parsed.index:
        return ParsedOption(None, f"letter and label disagree: {chosen} is '{labels[parsed.index]}', the reply says "
                                  f"'{labels[by_label.index]}'")
    return parsed


def parse_after_marker(text: str, labels: list[str]) -> ParsedOption:
    """A chain-of-thought reply: the option named in the 40 characters after its single "Answer:" marker.

    Reference ``models/vllmmodel.py:extract_generation_reasoning_and_response``: no marker or several markers ->
    no answer (the reference then draws a random option; here the answer stays invalid). The text after the marker
    is read by ``parse_option_text``."""
    if not text or not text.strip():
        return ParsedOption(None, "empty reply")
    return read_final(text, lambda part: _after_marker(part, labels), lambda p: p.valid,
                      lambda why: ParsedOption(None, why), shared_no_answer=False, key=_letter)


def _after_marker(text: str, labels: list[str]) -> ParsedOption:
    markers = list(ANSWER_MARKER.finditer(text))
    if not markers:
        if (answer := _json_answer(text)) is not text:  # {"reasoning": …, "answer": "(D)"}
            return parse_option_text(answer, labels)
        return ParsedOption(None, 'no "Answer:" marker')
    if len(markers) > 1:
        return ParsedOption(None, f'{len(markers)} "Answer:" markers')
    after = text[markers[0].end():][:AFTER_MARKER_CHARS]
    parsed = parse_option_text(after, labels)
    return parsed if parsed.valid else ParsedOption(None, f"after the marker: {parsed.reason}")


_WORD_AFTER_UPPER = re.compile(r"\s+[a-z]")
_WORD_AFTER_LOWER = re.compile(r"\s+[A-Za-z]")
_ABBREVIATION = re.compile(r"\.[A-Za-z]")
#: the clause a negation must be in (``_negated``)
_CLAUSE_END = re.compile(r"[.;:!?,\n]")


def _is_letter(text: str, pos: int, labels: list[str]) -> bool:
    """False when the letter at ``pos`` is an English word or the first word of a spelled-out label. Read at ``pos``
    (never a slice of the rest of the reply: this runs at every letter found, and slicing would be quadratic)."""
    char = text[pos]
    if char in "AI" and _WORD_AFTER_UPPER.match(text, pos + 1):  # "A person like me", "I think"
        return False
    if char in "ai" and _WORD_AFTER_LOWER.match(text, pos + 1):  # "a little like me, honestly"
        return False
    if _ABBREVIATION.match(text, pos + 1):  # "e.g.", "i.e."
        return False
    # "A Little Like Me" is the label, not letter A (one character more than the label: a final sigma lowers by context)
    return not any(label.lower().startswith(char.lower() + " ")
                   and text[pos:pos + len(label.lower()) + 1].lower().startswith(label.lower()) for label in labels)


def _option_from_labels(lowered: str, labels: list[str]) -> ParsedOption:
    """The longest option label quoted in the reply (in English, or a phrase of ``label_words``' languages);
    nested shorter labels don't count as a second answer."""
    lowered = translated(lowered, labels)
    hits = [(len(label), i) for i, label in enumerate(labels) if label.strip() and _contains_label(lowered, label.lower())]
    if not hits:
        return ParsedOption(None, "no option letter or label found")
    hits.sort(reverse=True)
    longest = hits[0][0]
    chosen = {i for n, i in hits if n == longest}
    # a shorter label inside the longest one ("like me" in "not like me") is not a second answer
    others = {i for n, i in hits if n < longest and not any(labels[i].lower() in labels[j].lower() for j in chosen)}
    if len(chosen) > 1 or others:
        return ParsedOption(None, "several options named")
    index = chosen.pop()
    if _negated(lowered, labels[index].lower()):  # "this is not at all like me" is not "Like me"
        return ParsedOption(None, f"option label '{labels[index]}' is negated")
    if (degree := _degree(lowered, labels[index].lower())) is not None:  # "a smidge like me" is no option
        return ParsedOption(None, ambiguous([Candidate(index, f"{degree} {labels[index].lower()}")],
                                            "a degree the scale does not offer"))
    return ParsedOption(index)


def _degree(text: str, label: str) -> str | None:
    """The degree word before an occurrence of the label ("a tad" in "a tad like me"), else None (``degree_before``)."""
    for m in re.finditer(rf"(?<![a-z0-9]){re.escape(label)}(?![a-z0-9])", text):
        if (degree := degree_before(text, m.start())) is not None:
            return degree
    return None


def _contains_label(text: str, label: str) -> bool:
    """The label as a whole word; a number label ("1") not inside another number ("-1", "1.5")."""
    before = r"(?<![a-z0-9\-.])" if label[:1].isdigit() else r"(?<![a-z0-9])"
    return re.search(rf"{before}{re.escape(label)}(?![a-z0-9])", text) is not None


def _negated(text: str, label: str) -> bool:
    """A negation among the three words before any occurrence of the label, in the same clause."""
    for m in re.finditer(rf"(?<![a-z0-9]){re.escape(label)}(?![a-z0-9])", text):
        if _NEGATION.search(" ".join(words_before(text, m.start(), 3, _CLAUSE_END))):
            return True
    return False
