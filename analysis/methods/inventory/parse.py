"""Reading an inventory reply: the number 1..k it gives, or invalid with the reason (never a guess).

The shared rules of ``analysis.reading`` come first (the final answer after a self-correction: "3. Actually, on
second thought, 4."; a rating taken back with none after it; a refusal, a hedge, the scale listed without a pick, the
question restated; "not English: not read"). This reader's own rules follow; German, French, Spanish and Chinese
choices are read as their English forms ("Ich würde 4 wählen", "Je dirais 2", "Elijo 3", "我会选4", "Cinco: …").

- ``number_from_logprobs``: the argmax over the digit tokens 1..k among the first token's top logprobs (the paper
  ranks the k continuations by likelihood). No digit of the scale among them -> invalid.
- ``number_from_text``: a free reply. First it is prepared: a code fence and a JSON object are unwrapped (its
  "rating", "answer", "score", "response" or "choice" field), markup is dropped, the echoed scale is removed so its
  numbers are never an answer ("on a scale from 1 to 5", "from 1 to 5", '1 = "very inaccurate"', "a 5 would mean
  very accurate", "(where …)"), and a number word is read as a digit after an article or an answer word ("a four",
  "Rating: two") or as the whole reply ("Four."). Then, strongest evidence first, each tier on its own:
  1. the whole reply is a number: "4", "(4)", "**4**", "4.", "'4'", {"rating": 4};
  2. a number named as the answer: "Rating: 4", "my rating for this persona is 4", "I would rate this a 4", "my
     answer is 4", "I'd give it a 4", "I choose 2", "I'd say 4", "more like a 2", "4/5", "4 out of 5", "I'm a 5"
     (not "I'm a 34-year-old"), "definitely a 5", "make it 4", a reply opening "I'm 5." or "I'm 5 on a scale"
     (not "I'm 34 years old", "I am 5 points below");
  3. a number attached to its line or label: a line opening with it and then a label or punctuation ("4 - Moderately
     accurate", "4. Moderately accurate", "(4) …", "- 4"), or a label closed by it ("Moderately accurate (4)");
  4. an option label alone: "Moderately accurate." (the longest label first: "inaccurate" is not "accurate",
     "Somewhat agree" is not "Agree"). A negated label ("not very accurate", "I wouldn't say very accurate") says
     what the answer is not: it reads only beside exactly one label named plainly.
  A tier's number must be the only one ("4 - …\n5 - …" -> invalid), whole ("4.5" -> invalid), on the scale 1..k, not
  offered with another ("3 or 4", "3, 4", "between 2 and 3", "3 – 4", "a 4, or maybe a 5", "a 3, maybe a 4" ->
  invalid), and its label in ``order`` must be among the labels the reply names, if it names any ("4 (very
  inaccurate)", and in descending order "4 - Moderately accurate" -> invalid; a label on a line opened by another
  number is that number's, the scale listed). No tier: two numbers offered, several
  labels, a negated label alone, numbers only in passing ("I have 3 children") or nothing -> invalid, each with its
  reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from analysis.methods.inventory.prompts import OrderMode, numbered
from analysis.llm.label_words import translated
from analysis.llm.options import ANSWER_MARKER
from analysis.reading import cut_at_answer, read_final, whole_number

DIGITS = "123456789"


@dataclass(frozen=True)
class ReadNumber:
    number: int | None
    reason: str = ""
    logprob: float | None = None

    @property
    def valid(self) -> bool:
        return self.number is not None


def number_from_logprobs(top: dict[str, float] | None, n_options: int) -> ReadNumber:
    """Argmax over the scale's digits among the first token's top logprobs (" 4", "4." count for 4)."""
    if not top:
        return ReadNumber(None, "no logprobs in reply")
    best: dict[int, float] = {}
    for token, logprob in top.items():
        stripped = token.strip().strip("().:*\"'")
        if len(stripped) == 1 and stripped in DIGITS[:n_options]:
            best[int(stripped)] = max(logprob, best.get(int(stripped), float("-inf")))
    if not best:
        return ReadNumber(None, f"no number 1-{n_options} among the top {len(top)} tokens")
    number = max(best, key=lambda k: (best[k], -k))
    return ReadNumber(number, logprob=best[number])


_MARKUP = str.maketrans("", "", "*`_#")
_FENCE = re.compile(r"\A\s*```[A-Za-z]*\s*(.*?)\s*```\s*\Z", re.DOTALL)
_DASHES = r"\-–—"  # for character classes
_SCALE_ECHO = [
    re.compile(r"(?:on\s+)?a\s+scale\s+(?:from|of)\s+\d+\s*(?:to|-)\s*\d+", re.IGNORECASE),
    re.compile(rf"\bfrom\s+1\s*(?:to|[{_DASHES}])\s*\d+\b", re.IGNORECASE),
    re.compile(r"\b\d\s*=\s*[\"“']?[A-Za-z][A-Za-z ]*?[\"”']?(?=\s*[,;)\n]|\s+and\b|\s*$)", re.IGNORECASE),
    re.compile(r"\b(?:an?\s+)?\d\s+(?:would\s+mean|means|stands\s+for|corresponds\s+to)\s+[\"“']?[A-Za-z][A-Za-z ]*?"
               r"[\"”']?(?=\s*[,;.)\n]|\s+and\b|\s*$)", re.IGNORECASE),
    re.compile(r"\(\s*where\b[^)]*\)", re.IGNORECASE),
]
_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_WORD_AFTER = re.compile(r"\b(an?|(?:rating|answer|score)\s*(?:[:=]|is|would be))\s+(" + "|".join(_NUMBER_WORDS)
                         + r")\b(?![-\w]|\s+of\b)", re.IGNORECASE)
_WORD_WHOLE = re.compile(r"\A\s*(" + "|".join(_NUMBER_WORDS) + r")\s*[.!]?\s*\Z", re.IGNORECASE)
#: a number as an answer: whole or decimal ("4", "4.5"), not part of a longer number ("4,5", "45")
_NUM = r"(\d+(?:\.\d+)?)(?![\d.,]\d)"
_WHOLE = re.compile(r"\A\s*[(\[\"']?\s*" + _NUM + r"\s*[)\]\"']?\s*[.!]?\s*\Z")
_NAMED = [
    re.compile(r"\b(?:answer|rating|score|response|choice|option|number)\b[\"']?"
               r"(?:\s+for\s+[A-Za-z ]{1,30}?\s+(?:is|would be|will be)|\s*(?:is|would be|will be|=|:|-)?)\s*"
               r"[(\[\"']?" + _NUM, re.IGNORECASE),
    re.compile(r"\b(?:rate|rated|rating)\s+(?:this|it|that|myself|the statement|this statement|me)?\s*(?:as\s+)?"
               r"(?:an?\s+)?[(\[\"']?" + _NUM, re.IGNORECASE),
    re.compile(r"\b(?:give|giving|gave)\s+(?:it|this|that|myself)?\s*(?:an?\s+)?[(\[\"']?" + _NUM, re.IGNORECASE),
    re.compile(r"\b(?:choose|chose|pick|picked|select|selected|say|go with|going with|opt for|more like|closer to|"
               r"make it|definitely|certainly|probably|clearly|easily|solidly|absolutely|surely)\s+"
               r"(?:an?\s+)?(?:number\s+)?[(\[\"']?" + _NUM + r"(?![-\w]|\s*(?:year|month|week|day|hour|time|kid|child)\w*)",
               re.IGNORECASE),
    re.compile(r"(?<![\d.])" + _NUM + r"\s*(?:/|out of)\s*\d+\b", re.IGNORECASE),
    # the answer marker of any language the values reader knows ("Mi respuesta: 1", "Vastaus: 5", "Ответ: 4")
    re.compile(ANSWER_MARKER.pattern + r"\s*[(\[\"']?" + _NUM, re.IGNORECASE),
    # a closing "So a 4." / "So, a 2!"
    re.compile(r"\bso,?\s+an?\s+" + _NUM + r"(?=\s*[.!]?\s*\Z)", re.IGNORECASE),
    # a reply opening "I'm 5." / "I am 2," answers the rating it was asked for (an age has "years" or more digits)
    re.compile(r"\A\s*I(?:'m|’m|\s+am)\s+" + _NUM + r"(?=\s*[.!,;]|\s*\Z|\s+on\s+(?:a|the|this)\s+scale\b)",
               re.IGNORECASE),
    re.compile(r"\bI(?:'m|’m|\s+am)\s+an?\s+(?:solid\s+|clear\s+|firm\s+|definite\s+|strong\s+)?" + _NUM
               + r"(?![-\w]|\s*(?:year|month|week|day|hour|time|kid|child)\w*)", re.IGNORECASE),
]
_ATTACHED = [
    re.compile(r"^[ \t>]*(?:-\s+)?[(\[]?" + _NUM + rf"(?=\s*[)\].:=,{_DASHES}]|\s+[A-Za-z(]|\s*$)", re.MULTILINE),
    re.compile(r"[A-Za-z]\s*\(\s*" + _NUM + r"\s*\)\s*[.!]?\s*$", re.MULTILINE),
    re.compile(r"(?<=[.!?])\s+" + _NUM + r"\s*[.!]?\s*\Z"),  # a last sentence that is the number alone: "… 4."
]
_HEDGE = r"(?:maybe|perhaps|possibly|even)"
_TWO = re.compile(rf"\b(\d)(?:\s*,\s*(?:(?:or|and)\s+)?{_HEDGE}?|\s*(?:or|and|to|[{_DASHES}])\s*{_HEDGE}?|\s+{_HEDGE})"
                  r"\s*(?:an?\s+)?(\d)\b"
                  r"|\bbetween\s+(?:an?\s+)?(\d)\s+and\s+(?:an?\s+)?(\d)\b", re.IGNORECASE)
_NUMBERED_LINE = re.compile(r"^[ \t>]*(?:-\s+)?[(\[]?(\d+)\b.*$", re.MULTILINE)
_STRAY = re.compile(r"(?<![\d.,])\d+(?![\d.,]?\d)")
_NEGATION = re.compile(r"\b(?:not|never|no|hardly)\s+(?:\w+\s+)?$|n[’']t\s+(?:\w+\s+)?$", re.IGNORECASE)


def _unwrapped(text: str) -> str:
    """A reply without its code fence, and a JSON reply as its answer field ({"rating": 4} -> "4")."""
    fenced = _FENCE.match(text)
    stripped = (fenced.group(1) if fenced else text).strip()
    if stripped.startswith("{"):
        try:
            doc = json.loads(stripped)
        except (ValueError, RecursionError):  # not JSON, or nested past Python's stack
            return stripped
        if isinstance(doc, dict):
            for key in ("rating", "answer", "score", "response", "choice"):
                if key in doc:
                    return str(doc[key])
    return stripped


_FOREIGN_NUMBERS = {w: i for i, ws in enumerate(("eins un une uno una 一", "zwei deux dos 二 两", "drei trois tres 三",
                                                  "vier quatre cuatro 四", "fünf cinq cinco 五", "sechs six seis 六",
                                                  "sieben sept siete 七", "acht huit ocho 八", "neun neuf nueve 九"), 1)
                    for w in ws.split()}
_FOREIGN_FORMS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.IGNORECASE), e) for p, e in (
    (r"\bich\s+(?:würde|werde)\s+(?:mir\s+)?(?:eine\s+|die\s+)?(\d)\s+(?:wählen|nehmen|geben|sagen|ankreuzen)\b", r"I choose \1"),
    (r"\bich\s+(?:wähle|nehme|gebe|sage)\s+(?:eine\s+|die\s+)?(?=\d)", "I choose "),
    (r"\bje\s+(?:dirais|dis|choisis|choisirais|mettrais|mets|donnerais|donne)\s+(?:un\s+|une\s+|le\s+)?(?=\d)", "I choose "),
    (r"\b(?:yo\s+)?(?:diría|digo|elijo|escojo|elegiría|escogería|pondría|pongo|daría|doy)\s+(?:un\s+|el\s+)?(?=\d)",
     "I choose "),
    (r"我?(?:会|想|要)?(?:选择?|给|打)\s*(?=\d)", "I choose "),
    # Italian and Dutch choices ("Direi 4", "Ik zou 2 kiezen"), the Spanish "diría que un 2"
    (r"\b(?:direi|scelgo|sceglierei|darei)\s+(?:un\s+|il\s+)?(?=\d)", "I choose "),
    (r"\bik\s+(?:zou|kies|geef)\s+(?:een\s+)?(\d)(?:\s+(?:kiezen|geven|zeggen))?\b", r"I choose \1"),
    (r"\bdiría\s+que\s+(?:un\s+)?(?=\d)", "I choose "),
    # a rating's name in other languages before its number ("評価：5", "Оценка: 2", "평가: 4", "Valutazione: 3")
    (r"(?:評価|评分|評分|评价|得分|点数|점수|평가|평점)\s*[:：]|\b(?:оценка|балл|valutazione|voto|puntuación|"
     r"calificación|bewertung|évaluation|beoordeling|cijfer|ocena|puan|arvosana|avaliação)\s*[:：]", "Rating:"),
    (r"(\d)\s*(?:分|점|点)", r"\1"),
    (r"[。！]", ". "),
    (r"[：]", ": "),
))


def _in_english(text: str) -> str:
    """German, French, Spanish and Chinese ratings in the English words the tiers read ("Ich würde 4 wählen" -> "I
    choose 4", "Je dirais 2", "Elijo 3", "我会选4"; a reply opening with a number word: "Cinco: muy preciso." -> "5:
    …")."""
    for pattern, english in _FOREIGN_FORMS:
        text = pattern.sub(english, text)
    opening = re.match(r"\s*([^\W\d_]+|[一二两三四五六七八九])(?=\s*(?:[.:!,;\-–—]|$))", text)
    if opening and opening.group(1).lower() in _FOREIGN_NUMBERS:
        text = str(_FOREIGN_NUMBERS[opening.group(1).lower()]) + text[opening.end():]
    return text


def _only_pair(pattern: re.Pattern[str], text: str) -> bool:
    """The whole reply is one "N = label" pair: the answer, not the scale echoed ("1 = very accurate")."""
    m = pattern.search(text)
    return m is not None and not text[:m.start()].strip() and not text[m.end():].strip(" .!\n")


def _cleaned(text: str) -> str:
    """The reply as the tiers read it: unwrapped, in English words, without markup or the echoed scale (unless the
    reply is one "N = label" pair), number words as digits ("a four" -> "a 4", "Four." -> "4.")."""
    clean = _in_english(_unwrapped(text).translate(_MARKUP))
    for pattern in _SCALE_ECHO:
        if not _only_pair(pattern, clean):
            clean = pattern.sub(" ", clean)
    clean = _WORD_WHOLE.sub(lambda m: str(_NUMBER_WORDS.index(m.group(1).lower()) + 1), clean)
    return _WORD_AFTER.sub(lambda m: f"{m.group(1)} {_NUMBER_WORDS.index(m.group(2).lower()) + 1}", clean)


def _labels_named(text: str, labels: list[str]) -> list[int]:
    """Canonical indices of the labels the text names (longest first; a named label's words are consumed), negated
    labels as -1. Each label's hits are found at once, their negations read along them (``_negations``) and the hits
    blanked in one pass: rebuilding the text and searching all of it before every hit was quadratic. A label in
    Spanish, Chinese, Japanese, German or French is read as its English one (``label_words``)."""
    lowered = translated(text.lower(), labels)
    found: list[int] = []
    for index in sorted(range(len(labels)), key=lambda i: -len(labels[i])):
        label = labels[index].lower()
        hits = [(m.start(), m.end()) for m in re.finditer(r"(?<![a-z])" + re.escape(label) + r"(?![a-z])", lowered)]
        found += [-1 if negated else index for negated in _negations(lowered, hits)]
        if hits:
            lowered = "".join(piece for (start, end), prev in zip(hits, [(0, 0), *hits])
                              for piece in (lowered[prev[1]:start], " " * (end - start))) + lowered[hits[-1][1]:]
    return found


def _negations(lowered: str, hits: list[tuple[int, int]]) -> list[bool]:
    """Whether ``_NEGATION`` ends the text before each hit, the hits before it blanked (as a search of that whole
    prefix finds it). The pattern spans at most two words and the white space after them, and a run of white space
    reads as one, so it is searched on the last two words before the hit (carried over from hit to hit across the
    blanked hits) and one space when white space ends the prefix."""
    out: list[bool] = []
    words: list[str] = []
    prev_end = 0
    for start, end in hits:
        words = (words + _last_words(lowered, prev_end, start, 2))[-2:]
        spaced = start > 0 and ((start == prev_end and prev_end > 0) or lowered[start - 1].isspace())
        out.append(_NEGATION.search(" ".join(words) + (" " if spaced else "")) is not None)
        prev_end = end
    return out


def _last_words(text: str, lo: int, hi: int, n: int) -> list[str]:
    """The last ``n`` whitespace-separated words of ``text[lo:hi]``, read in a window that doubles back from ``hi``."""
    width = 64
    while True:
        start = max(lo, hi - width)
        words = text[start:hi].split()
        if start == lo or len(words) > n:
            return words[-n:]
        width *= 2


def _two_numbers(text: str, k: int) -> list[set[int]]:
    """The pairs of distinct numbers 1..k the text offers together ("3 or 4", "between 2 and 3", "4, or maybe 5")."""
    pairs = [{int(g) for g in m.groups() if g} for m in _TWO.finditer(text)]
    return [p for p in pairs if len(p) == 2 and all(1 <= n <= k for n in p)]


def _numbers(values: list[int]) -> str:
    return ", ".join(str(n) for n in sorted(set(values)))


def _from_number(found: set[str], clean: str, labels: list[str], order: OrderMode) -> ReadNumber:
    """The one number a tier found, checked: a whole number 1..k, not offered with another, not contradicted by a
    label the reply names (a label on a line opened by another number belongs to that number: the scale listed)."""
    k = len(labels)
    if len(found) > 1:
        return ReadNumber(None, f"several numbers given ({', '.join(sorted(found, key=float))})")
    text = found.pop()
    if "." in text:
        return ReadNumber(None, f"{text} is not one of the numbers 1-{k}")
    number = whole_number(text)
    pairs = [p for p in _two_numbers(clean, k) if number in p]
    if pairs:
        return ReadNumber(None, f"two numbers given ({_numbers([n for p in pairs for n in p])})")
    if not 1 <= number <= k:
        return ReadNumber(None, f"{text if len(text) <= 20 else text[:20] + '…'} is outside the scale 1-{k}")
    meant = numbered(labels, order)[number - 1]
    own = _NUMBERED_LINE.sub(lambda m: m.group(0) if whole_number(m.group(1)) == number else "", clean)
    glossed = "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True))
    own = re.sub(rf"\b(?!{number}\b)\d\s*(?:=|:|-|–|means|meaning|is|for|would\s+mean|stands\s+for)?\s*[\"“']?(?:{glossed})", " ",
                 own, flags=re.IGNORECASE)  # "… and 5 very accurate": a label glossing another number
    named = {labels[i] for i in _labels_named(own, labels) if i >= 0}
    if named and meant not in named:
        return ReadNumber(None, f"number {number} ('{meant.lower()}') and label '{sorted(named)[0].lower()}' disagree")
    return ReadNumber(number)


def number_from_text(text: str, labels: list[str], order: OrderMode, finish_reason: str | None = None) -> ReadNumber:
    """The number a free reply gives on the scale of ``labels`` numbered in ``order``: the shared rules of
    ``analysis.reading`` (the final answer after a self-correction, a withdrawn rating with none after it, a refusal,
    a hedge, an echoed list, a restated question, "not English"), then this reader's tiers on the final part (module
    docstring). A reply cut by the length limit where its answer starts ("… I'd say") gives none (``cut_at_answer``)."""
    if not text or not text.strip():
        return ReadNumber(None, "empty reply")
    if (why := cut_at_answer(text, finish_reason)) is not None:
        return ReadNumber(None, why)
    return read_final(text, lambda part: _number(part, labels, order), lambda r: r.valid, lambda why: ReadNumber(None, why),
                      key=lambda r: r.number)


#: a correction's new value opens the final part ("make that 3 — I do tidy up on Sundays": ``analysis.reading`` keeps
#: the marker, so each reader reads its own value after it)
_MAKE_IT = re.compile(r"^\s*make\s+(?:it|that)\s+(?=\d)", re.IGNORECASE)


def _number(text: str, labels: list[str], order: OrderMode) -> ReadNumber:
    """This reader's own tiers (module docstring) on a reply's final part."""
    if not text.strip():
        return ReadNumber(None, "no number or option label found")
    k = len(labels)
    clean = _cleaned(_MAKE_IT.sub("", text, count=1))
    for patterns in ([_WHOLE], _NAMED, _ATTACHED):
        found = {m.group(1) for p in patterns for m in p.finditer(clean)}
        if found:
            return _from_number(found, clean, labels, order)
    pairs = _two_numbers(clean, k)
    if pairs:
        return ReadNumber(None, f"two numbers given ({_numbers([n for p in pairs for n in p])})")
    named = _labels_named(clean, labels)
    positive = {i for i in named if i >= 0}
    if len(positive) > 1:
        return ReadNumber(None, "several option labels named")
    if positive:
        return ReadNumber(numbered(labels, order).index(labels[positive.pop()]) + 1)
    if named:
        return ReadNumber(None, "a negated option label only")
    stray = [whole_number(n) for n in _STRAY.findall(clean) if 1 <= whole_number(n) <= k]
    if stray:
        return ReadNumber(None, f"numbers in passing ({_numbers(stray)}), none given as the answer")
    return ReadNumber(None, "no number or option label found")
