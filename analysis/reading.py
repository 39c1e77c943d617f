"""Rules every text reply reader shares, before it reads a reply with its own vocabulary (issue 42).

Two rules, and one courtesy:

1. **The final answer** (``final_part``). A reply may withdraw what it said: "no wait", "wait —", "on second
   thought", "scratch that", "make it $6", "sorry, I mean", "— sorry, (F)", "or rather", "I take that back", "on reflection", "let me
   reconsider", "revised:" (a later JSON object presented as a revision), "I've changed my mind", and their German,
   French, Spanish and Chinese forms ("nein, warte", "tout compte fait", "mejor dicho", "不对", …). The part after
   the last such marker is the reply's final part: when it gives an answer, that answer wins; when it gives none
   while the part before it did, the answer was withdrawn and the reply gives none ("answer withdrawn, none given
   after"). A plain "actually" (or "hmm", "en fait", "eigentlich", "en realidad") is often emphasis: it takes back
   what came before only when what follows gives an answer (the later one wins) or declines to answer (also "I can't
   forecast / predict / judge / know …", a doubt that is no refusal on its own).
2. **No answer** (``no_answer``). A reply that declines to answer before it gives one ("I can't decide", "I'd rather
   not say", "I don't know" — unless it then answers anyway: "but if I had to pick…", or plainly, not "maybe (D)"; a
   doubt after a committed answer explains it), that hedges between two options ("somewhere around
   3 or 4", "between B and C", "around $3 to $5", "sometimes X, sometimes Y"), that ends by listing the options
   without a pick, or that only restates the question ("How much is this person like me? Let me think…") gives no
   answer, whatever label or number it contains. A reply cut by the length limit before it committed is the reader's
   own "truncated" reason (only the reader knows where its answer is).
3. **Not English** (``language``): a reply the reader cannot read and that is written in another language (told by
   its script, or for Latin script by its common words: German, French, Spanish, Italian, Portuguese, Dutch, Swedish,
   Polish, Turkish, Vietnamese, Indonesian) is invalid as ``not English: not read`` rather than "no answer found", so a reader's report tells the two
   apart. A reader that knows the language's answer markers reads them (its own vocabulary).

4. **Settled, or ambiguous** (``ambiguous``, ``concluded_differently``; issue 56). A reader returns a value only when the
   reply settles it. When two readings compete — two different answers stated as answers, an answer in the reasoning
   and another after "so" / "on balance" / "all things considered" / "final answer" (``CONCLUSION``), a label softened
   by a degree word that makes it no option of the scale ("a smidge like me", "kind of correct": ``degree_before``) —
   the reply is invalid as ``ambiguous: …`` naming the candidates found, never a guess between them. A reply whose
   reasoning names no answer the reader could settle on but whose conclusion does ("I'd lean 2 … so 3") is read from
   its conclusion.

``read_final`` runs the four around a reader's own reading function, on the reply with full-width forms folded
(``normalized``). Shared code: nothing here names a method.

**Cost** (issue 47): every reader is linear in the reply's length and total on any string. A reply longer than
``MAX_READ_CHARS`` is invalid as too long (``too_long``) before any rule reads it, and ``final_part`` weighs at most
``MAX_MARKERS`` correction markers (each weighing reads the text after the marker, so weighing every one of thousands
of markers would be quadratic). Helpers that look at the words before a position (``words_before``) read a window that
grows only until it holds what they need, never the whole text before it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple, TypeVar

T = TypeVar("T")

WITHDRAWN = "answer withdrawn, none given after"
AMBIGUOUS = "ambiguous"
NOT_ENGLISH = "not English: not read"
#: The longest reply a reader reads (characters). The prompts' replies run to a few thousand characters (the longest
#: of the labelled corpora: 1,684; the longest ``max_tokens`` a method asks for, 4,096 tokens, is some 16,000); a
#: longer reply is a model repeating itself up to its length limit, or not a reply at all. Reading it would cost
#: seconds (tens of regular expressions, several reads of the final part) for a text that states no answer a person
#: would take, and reading only a window of it (its start, where some readers find their verdict, or its end, where
#: others find theirs) could store a value the whole reply does not give. So it is invalid with its length as the
#: reason, in constant time.
MAX_READ_CHARS = 100_000
#: The most correction markers ``final_part`` weighs, from the last one back, and the most text it reads weighing them
#: (``WEIGH_FACTOR`` times the reply's length, plus ``WEIGH_FLOOR`` characters): a reply with more is read as if the
#: earlier markers were not there (the later answer wins anyway). Each weighing reads the text after the marker and
#: may read the text before it, so weighing thousands of markers was quadratic, and a reader whose own rules read
#: the reply again (a forecast read as an amount) multiplied that. No reply of the labelled corpora comes near.
MAX_MARKERS = 8
WEIGH_FACTOR = 1
WEIGH_FLOOR = 20_000

_NUMBER_WORD = (r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|null|eins|zwei|drei|vier|fünf|sechs|"
                r"sieben|acht|neun|zehn|zéro|un|une|deux|trois|quatre|cinq|sept|huit|neuf|dix|cero|uno|una|dos|tres|"
                r"cuatro|cinco|seis|siete|ocho|nueve|diez)\b")
#: what a correction introduces directly ("make it $6", "sorry, I mean (F)"): an amount, a number, a letter
_NEW_VALUE = r"(?=\s*(?:\$|\d|[(\[]?[A-Za-z][)\]]|" + _NUMBER_WORD + "))"
_DASH = r"[\s,.:;!—–-]*"
#: markers after which the earlier answer no longer stands (case-insensitive; the match ends where the new part starts)
_STRONG = re.compile("|".join([
    r"\b(?:no|nope|hmm|oh|um+)[,.]?\s+wait\b" + _DASH,
    r"(?:^|(?<=[.!?\n(:]\s)|(?<=[.!?\n(])|(?<=[—–-]\s))wait\s*(?:[—–:,!-]|\.\.\.|…)" + _DASH,
    r"\b(?:actually,?\s+)?(?:on|upon)\s+(?:second|further)\s+thoughts?\b" + _DASH,
    r"\bscratch\s+that\b" + _DASH,
    r"(?=\bmake\s+(?:it|that)\s" + _NEW_VALUE + ")",  # zero width: the new part reads "make it $6" itself
    r"\bsorry,?\s+I\s+mean(?:t)?\b" + _DASH, r"\bI\s+meant\b" + _DASH,
    r"\bsorry[,!.]?" + _NEW_VALUE,  # "(A) — sorry, (F)"
    r"(?<=\s)[—–-]\s*no,\s*" + _NEW_VALUE,  # "8 — no, 6", "(A) — no, (E)"
    r"(?:\.\.\.|…)\s*no\b[,.!]?" + _DASH,  # "3... no, I can't really say", "7... no, 4"
    r"\bor\s+rather\b" + _DASH,
    r"\bI\s+take\s+(?:that|it)\s+back\b" + _DASH, r"\bI\s+(?:retract|withdraw)\s+(?:that|it|my\s+answer)\b" + _DASH,
    r"\b(?:up)?on\s+(?:further\s+)?reflection\b" + _DASH,
    r"\blet\s+me\s+(?:reconsider|rethink|revise|restate|rephrase|correct\s+(?:that|myself))\b[^.:\n]{0,40}?[.:\n]?",
    r"\brevised\b[^:\n]{0,80}:",
    r"\bcorrection\s*:", r"\bfixed\s*:", r"\bcorrected\b[^:\n]{0,80}:", r"\bupdated?\s+(?:answer|amount|forecast)s?\s*:",
    r"\b(?:I(?:'ve|\s+have)\s+)?changed\s+my\s+mind\b" + _DASH,
    r"\bhmm,?\s+no\b" + _DASH,
    r"\bthinking\s+(?:about\s+it\s+)?again\b" + _DASH,
    # German, French, Spanish, Chinese
    r"\bnein,?\s+warte\b" + _DASH, r"\bich\s+nehme\s+(?:das|es)\s+zurück\b" + _DASH, r"\bkorrektur\s*:",
    r"\bbei\s+näherer\s+betrachtung\b" + _DASH,
    r"\bnon,?\s+attend(?:ez|s)\b" + _DASH, r"\btout\s+compte\s+fait\b" + _DASH, r"\bà\s+la\s+réflexion\b" + _DASH,
    r"\bje\s+me\s+corrige\b" + _DASH,
    r"\bno,?\s+espera\b" + _DASH, r"\bmejor\s+dicho\b" + _DASH, r"\bpensándolo\s+bien\b" + _DASH,
    r"\bme\s+retracto\b" + _DASH,
    r"(?:不对|等等|更正|我收回|更准确地说)[，,：:。\s]*",
    r"というより(?:は|も)?[、,]?\s*+",  # Japanese "X, rather (than that) Y"
    r"\bsorry[,!.]?\s++(?=make\s+(?:it|that)\b)",  # "Wrong — sorry, make that generally wrong"
]), re.IGNORECASE | re.MULTILINE)
#: markers that take back the earlier answer only when what follows answers or declines
_WEAK = re.compile(r"\b(?:actually|hmm+|eigentlich|en\s+fait|en\s+realidad)\b" + _DASH, re.IGNORECASE)

#: a doubt about something else than the answer; it takes an answer back only when it follows a correction marker
_DOUBT = re.compile(r"\bI(?:'m|\s+am)\s+not\s+(?:so\s+)?sure\s+(?:that's|that\s+is|it's|it\s+is)\s+right\b|"
                    r"\bI\s+(?:really\s+|honestly\s+|just\s+)?(?:can(?:no|')t|cannot|can\s+not|won't|am\s+unable\s+to|"
                    r"'m\s+unable\s+to)\s+(?:really\s+|honestly\s+|actually\s+)?(?:forecast|predict|judge|know)\b",
                    re.IGNORECASE)
#: a later answer given tentatively ("… it depends. Maybe (D).") does not undo a refusal
_TENTATIVE = re.compile(r"\b(?:maybe|perhaps|possibly|might|i\s+guess|or\s+so)\b", re.IGNORECASE)
#: declining to answer (a refusal of the question, not of a request inside a role)
_DECLINE = re.compile(
    r"\bI\s+(?:really\s+|honestly\s+|just\s+|simply\s+)?(?:can(?:no|')t|cannot|can\s+not|won't|will\s+not|am\s+unable\s+to|"
    r"'m\s+unable\s+to|am\s+not\s+able\s+to|'m\s+not\s+able\s+to|refuse\s+to|would\s+rather\s+not|'d\s+rather\s+not|"
    r"(?:must|have\s+to)\s+decline\s+to|prefer\s+not\s+to)\s+(?:really\s+|honestly\s+|actually\s+|in\s+good\s+conscience\s+)?"
    r"(?:decide|answer|choose|pick|commit|rate|settle|say(?=\s*(?:[.!;,]|$|for\s+sure|which|what|"
    r"how|whether|one\s+way))|tell(?=\s*(?:[.!;,]|$|which|what|how|whether))|"
    r"(?:really\s+)?(?:judge|assess|rate|evaluate)(?=\s*(?:[.!;,]|$|which|what|how|whether|if|that))|give\s+(?:a|an|you\s+a|one)\s+"
    r"(?:verdict|number|rating|score|answer|figure|amount|single)|put\s+a\s+number|make\s+(?:a|that|this)\s+"
    r"(?:call|choice|decision))\b"
    r"|(?:^|(?<=[.!?\n])|(?<=[.!?,;:—–-]\s)|\b(?:honestly|frankly|well),?\s+)I\s+(?:honestly\s+|really\s+)?(?:don't|do\s+not)\s+"
    r"know(?=\s*(?:[.!;,—–-]|$|what|which|how\s+to\s+(?:answer|rate|decide|choose)|whether))"
    r"|\b(?:it's|it\s+is)\s+(?:impossible|too\s+hard)\s+to\s+(?:say|tell|decide)\b"
    r"|\bI(?:'m|\s+am)\s+(?:not\s+going\s+to|going\s+to\s+pass|passing)\s+(?:answer|pick|choose|rate|give)\w*\b"
    r"|\bI(?:'m|\s+am)\s+not\s+(?:comfortable|willing|prepared|ready)\s+(?:committing|to\s+commit|giving|to\s+give|"
    r"rating|to\s+rate|choosing|to\s+choose|answering|to\s+answer|picking|to\s+pick|putting|to\s+put)\b"
    r"|\bI(?:'d|\s+would)\s+rather\s+not\s+(?:rate|answer|say|choose|pick|commit|judge|give)\b"
    r"|\bI\s+(?:don't|do\s+not)\s+think\s+I\s+(?:can|could)\s+(?:honestly\s+|really\s+|actually\s+)?"
    r"(?:pick|choose|decide|answer|rate|say|commit)\b"
    r"|\bI(?:'m|\s+am)\s+not\s+(?:confident|sure)\s+enough\s+(?:in\s+[\w\s]{1,30}?\s+)?to\s+(?:pick|choose|answer|say|"
    r"commit|decide|rate)\b"
    r"|\bI\s+(?:don't|do\s+not)\s+think\s+I\s+(?:would|will|'d|could)\s+(?:take\s+part|participate|play\s+along|play\s+this)\b"
    r"|\bI\s+(?:won't|will\s+not|wouldn't|would\s+not)\s+(?:take\s+part|participate)\b"
    r"|\b(?:no\s+comment|pass)\s*[.!]?\s*$"
    r"|\bich\s+kann\s+(?:das\s+)?(?:nicht|keine)\s+(?:entscheiden|sagen|beantworten|antwort)"
    r"|\bje\s+ne\s+(?:peux|sais)\s+pas\s+(?:choisir|décider|répondre|dire)"
    r"|\bno\s+(?:puedo|sé)\s+(?:decidir|elegir|responder|decir)"
    r"|我(?:无法|不能|没法)(?:决定|选择|回答|判断)",
    re.IGNORECASE | re.MULTILINE)
#: … unless it answers anyway ("I can't really decide, but if I had to pick: B")
_ANYWAY = re.compile(r"\b(?:but|however|still|that\s+said|if\s+I\s+(?:had|have)\s+to|if\s+forced|if\s+pressed|"
                     r"pressed\s+for|forced\s+to|anyway|so\s+I(?:'ll|\s+will)|I(?:'ll|'d|\s+will|\s+would)\s+go\s+with)\b", re.IGNORECASE)

_TOKEN = r"(?:\(?[A-Z]\)?(?![\w'’])|\$?\d+(?:\.\d+)?)"
_HEDGES = (
    re.compile(r"\bsomewhere\s+(?:around|between|in\s+the\s+(?:middle|range)(?:\s+of)?|about)\b(?:\s*(?:an?\s+)?"
               + _TOKEN + r"(?:\s*(?:or|and|to|/|-|–)\s*(?:an?\s+)?" + _TOKEN + ")?)?", re.IGNORECASE),
    re.compile(r"\bbetween\s+(?:an?\s+)?(" + _TOKEN + r")\s*(?:and|&)\s*(?:an?\s+)?(" + _TOKEN + r")(?![\w.])"),
    re.compile(r"\b(?:around|about|roughly|approximately|maybe|perhaps|probably|either)\s+(?:an?\s+)?(" + _TOKEN
               + r")\s*(?:or|/|to|-|–)\s*(?:an?\s+)?(" + _TOKEN + r")(?![\w.])", re.IGNORECASE),
    re.compile(r"\bsometimes\b[^.!?\n]*?\b(?:sometimes|other\s+times|at\s+other\s+times)\b[^.!?\n]*", re.IGNORECASE),
    # "$5-ish", "5ish", "around $5", "roughly 3": a number given as an approximation is no answer (issue 56)
    re.compile(r"(?<![\d.])(\$?\d++(?:\.\d++)?)[ \t]*+-?[ \t]*+ish\b|(?:\b(?:give|send|contribute|invest|transfer|offer|rate|score)\s+"
               r"(?:(?:them|him|her|it|player\s+b|the\s+other\s+player)\s+)?|(?:amount|rating|score|answer)\s*:\s*)"
               r"(?:around|roughly|approximately|about|circa)\s+(\$?\d+(?:\.\d+)?)(?![\d.])", re.IGNORECASE),
)
_FULL_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_SPACED_LETTER = re.compile(r"([(\[])\s+([A-Za-z])\s+([)\]])")
_ENUMERATED = re.compile(r"^\s*[-*•]?\s*[(\[]?([A-Za-z]|\d{1,2})[)\].:]\s+\S", re.MULTILINE)
_DELIBERATION = re.compile(r"^\s*(?:let\s+me|let's|I\s+(?:need|have|'ll\s+need|will\s+need)\s+to|I\s+must|hmm|"
                           r"I(?:'m|\s+am)\s+(?:thinking|wondering|considering))\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_SENTENCE_END = re.compile(r"[.!?\n。！？]\s*|$")

#: scripts that are not Latin, in the order they are told apart (kana before the Han characters Japanese shares)
_SCRIPTS = tuple((lang, re.compile(chars)) for lang, chars in (
    ("ja", r"[\u3040-\u30ff]"), ("ko", r"[\uac00-\ud7af]"), ("zh", r"[\u4e00-\u9fff]"), ("ru", r"[\u0400-\u04ff]"),
    ("el", r"[\u0370-\u03ff]"), ("ar", r"[\u0600-\u06ff]"), ("he", r"[\u0590-\u05ff]"), ("hi", r"[\u0900-\u097f]"),
    ("th", r"[\u0e00-\u0e7f]"),
))
_WORDS = {
    "de": frozenset("der die das und ist ich nicht ein eine es zu mit auf für dass sie wir sehr aber auch würde "
                    "werde schicke sende dollar antwort aussage richtig falsch diese dieser".split()),
    "fr": frozenset("le la les et est je ne pas un une des du que qui pour dans avec ce cette très mais aussi "
                    "envoie dollars réponse affirmation vraie fausse dirais".split()),
    "es": frozenset("el la los las y es yo no un una que de del para con por muy pero también esta este "
                    "enviaré dólares respuesta afirmación correcta incorrecta".split()),
    "it": frozenset("il lo gli di che è e non un una per con sono mi molto ma anche questa questo della risposta "
                    "persona".split()),
    "pt": frozenset("o os as e é não um uma que de do da para com por muito mas também esta este eu resposta "
                    "você".split()),
    "nl": frozenset("de het een en is ik niet dat met voor zijn maar ook deze dit zou antwoord".split()),
    "sv": frozenset("och är jag inte en ett att det som med för på men också den detta skulle svar".split()),
    "pl": frozenset("i jest nie się że to na w z do ale jak ta ten jestem bardzo odpowiedź".split()),
    "tr": frozenset("ve bir bu için ile de da çok ama ben değil gibi daha cevap".split()),
    "vi": frozenset("và là tôi không một của có cho người này rất nhưng với được trả lời".split()),
    "id": frozenset("dan yang saya tidak ini itu dengan untuk di ke dari akan tetapi sangat jawaban".split()),
}
_EN = frozenset("the and is i it to a of that this you my me not with for be are would will as in on but "
                "so have".split())


class FinalPart(NamedTuple):
    """The part of a reply to read (``text``), whether an answer was withdrawn with none after it, and the marker."""

    text: str
    withdrawn: bool
    marker: str | None = None


def _decline(text: str) -> re.Match[str] | None:
    """Where the text declines to answer, unless it answers anyway after it (see ``_ANYWAY``)."""
    first = last = None
    for last in _DECLINE.finditer(text):
        first = first or last
    # "I can't decide, but if I had to pick: B" answers anyway; "… (C) would be neutral, but I won't pick" does not
    return first if last is not None and not _ANYWAY.search(text, last.end()) else None


def _declines(text: str) -> bool:
    return _decline(text) is not None


#: the most digits a reader turns into a number as written
_MAX_DIGITS = 18


def whole_number(digits: str) -> int:
    """The number a run of digits writes; a run of more than 18 digits reads as 10**18, more than every bound a reader
    checks (Python refuses to convert more than 4,300 digits, and a float of 400 is infinite: a reply holding such a
    number is an invalid answer with its reason, never a failed run)."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= _MAX_DIGITS else 10 ** _MAX_DIGITS


def too_long(reply: str) -> str | None:
    """Why a reply is too long to read (more than ``MAX_READ_CHARS`` characters), else None."""
    n = len(reply or "")
    return f"reply too long to read: {n:,} characters, more than the {MAX_READ_CHARS:,} a reader reads" \
        if n > MAX_READ_CHARS else None


def window_start(text: str, pos: int, n: int) -> int:
    """Where a window of ``text`` ending at ``pos`` starts so that it holds the last ``n`` whitespace-separated words
    before ``pos`` whole (0 when there are no more): it doubles from 256 characters until it holds more than ``n``
    words, so a reader looking before every hit stays linear where slicing ``text[:pos]`` each time is quadratic."""
    width = 256
    while True:
        lo = max(0, pos - width)
        if lo == 0 or len(text[lo:pos].split()) > n:
            return lo
        width *= 2


def words_before(text: str, pos: int, n: int, stop: re.Pattern[str] | None = None) -> list[str]:
    """The last ``n`` (at least 1) whitespace-separated words of ``text[:pos]`` after the last match of ``stop`` there,
    as ``stop.split(text[:pos])[-1].split()[-n:]`` gives them, read in a window (``window_start``). ``stop`` is searched
    with ``pos`` as the end of the string, as on the slice."""
    lo = window_start(text, pos, n)
    last = None
    if stop is not None:
        for last in stop.finditer(text, lo, pos):
            pass
    return text[last.end() if last is not None else lo:pos].split()[-n:]


def final_part(reply: str, has_answer: Callable[[str], bool] | None = None) -> FinalPart:
    """The reply's final part (module docstring, rule 1). ``has_answer(text)`` says whether a part of the reply gives
    an answer in the reader's vocabulary; without it, a plain "actually" never withdraws and a strong marker with no
    text after it counts as withdrawing. At most the last ``MAX_MARKERS`` markers with text before them are weighed,
    reading at most ``WEIGH_FACTOR`` times the reply plus ``WEIGH_FLOOR`` characters."""
    reply = reply or ""
    marks = sorted([(m, True) for m in _STRONG.finditer(reply)] + [(m, False) for m in _WEAK.finditer(reply)],
                   key=lambda mk: mk[0].start())
    answers = has_answer or (lambda text: False)
    opening = len(reply) - len(reply.lstrip())  # a marker starting here or before has only whitespace before it
    weighed = [(m, strong) for m, strong in marks if m.start() > opening][-MAX_MARKERS:]
    budget = WEIGH_FACTOR * len(reply) + WEIGH_FLOOR
    for m, strong in reversed(weighed):
        head, tail = reply[:m.start()], reply[m.end():]
        budget -= len(tail)
        if budget < 0:
            break
        if answers(tail):
            return FinalPart(tail, False, m.group(0).strip())
        doubts = _declines(tail) or bool(_DOUBT.search(tail))
        if strong or doubts:
            budget -= len(head) if has_answer is not None and not doubts else 0
            if budget < 0:
                break
            if has_answer is None or answers(head) or doubts:
                return FinalPart(tail, True, m.group(0).strip())
    return FinalPart(reply, False, None)


def _hedge(text: str) -> re.Match[str] | None:
    for pattern in _HEDGES:
        for m in pattern.finditer(text):
            tokens = [g.strip("()$").upper() for g in m.groups() if g]
            if len(tokens) < 2 or tokens[0] != tokens[1]:
                return m
    return None


def hedge(text: str) -> str | None:
    """The hedge a text makes between two options ("between B and C", "around 3 or 4", "sometimes …, sometimes …"),
    else None (rule 2)."""
    m = _hedge(text)
    return " ".join(m.group(0).split()) if m else None


def lists_options(text: str) -> bool:
    """The text ends with a list of three or more enumerated options (A, B, C … or 1, 2, 3 …) and no pick after it. An
    item of more than 10 words is a reason, not an option ("Here's why: 1. Adolescence involves …")."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    run: list[str] = []
    for line in reversed(lines):
        m = _ENUMERATED.match(line)
        if not m or len(line[m.end() - 1:].split()) > 10:
            break
        run.append(m.group(1).upper())
    if len(run) < 3:
        return False
    run.reverse()
    keys = [ord(c) if c.isalpha() else int(c) for c in run]
    return all(b == a + 1 for a, b in zip(keys, keys[1:]))


def restates_question(text: str) -> bool:
    """Every sentence of the text is a question or a deliberation ("let me think…"), at least one a question."""
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip(" .!?\n")]
    if not sentences or not any(s.endswith("?") for s in sentences):
        return False
    return all(s.endswith("?") or _DELIBERATION.match(s) for s in sentences)


REFUSAL = "refusal: the reply declines to answer"


def _no_answer_at(text: str) -> tuple[str, int, int] | None:
    """(why the text gives no answer, where that starts and ends), else None (rule 2)."""
    if (m := _decline(text)) is not None:
        return REFUSAL, m.start(), m.end()
    if (m := _hedge(text)) is not None:
        return f"hedge: '{' '.join(m.group(0).split())}' names no single answer", m.start(), m.end()
    if lists_options(text):
        return "options listed without a pick", 0, len(text)
    if restates_question(text):
        return "question restated, no answer", 0, len(text)
    return None


def no_answer(text: str) -> str | None:
    """Why a text (a reply's final part) gives no answer whatever label or number it contains (rule 2), else None."""
    found = _no_answer_at(text)
    return found[0] if found else None


def language(text: str) -> str:
    """The language a reply is written in, roughly: by script first (ja, ko, zh, ru, el, ar, he, hi, th), else the
    Latin-script language among those of ``_WORDS`` with the most common words, else "en"."""
    for lang, script in _SCRIPTS:
        if len(script.findall(text)) >= 2:
            return lang
    words = [w for w in re.findall(r"[^\W\d_]+", text.lower()) if len(w) > 1]  # not "e6", "a)" …
    if not words:
        return "en"
    scores = {lang: sum(w in vocab for w in words) for lang, vocab in _WORDS.items()}
    english = sum(w in _EN for w in words)
    best = max(scores, key=lambda k: scores[k])
    return best if scores[best] > english and scores[best] >= 2 else "en"


def normalized(reply: str) -> str:
    """The reply with full-width forms folded ("（B）" → "(B)", "：" → ":", "４" → "4"; not NFKC, which would also
    make "η²" read "η2") and a letter spaced inside its brackets closed up ("( C )" → "(C)")."""
    return _SPACED_LETTER.sub(r"\1\2\3", (reply or "").translate(_FULL_WIDTH))


#: where a reply concludes (rule 4): the answer after the last of these is the one it settles on
CONCLUSION = re.compile(
    r"(?:^|(?<=[.;:!?,…\n—–(])|(?<=[.;:!?,…\n—–(]\s)|(?<=\bbut\s)|(?<=\band\s))[ \t]*+(?:on\s+balance|finally|all\s+things\s+considered|all\s+in\s+all|in\s+the\s+end|ultimately|in\s+conclusion|"
    r"to\s+conclude|to\s+sum\s+up|overall|at\s+the\s+end\s+of\s+the\s+day|when\s+all\s+is\s+said\s+and\s+done|"
    r"(?:my\s+)?final\s+(?:answer|verdict|score|rating|decision|amount|choice|pick)(?:\s+is)?|"
    r"my\s+(?:answer|verdict|choice|decision|pick)\s+is|therefore|thus|hence|"
    r"en\s+resumen|en\s+conclusión|al\s+final|en\s+définitive|au\s+final|insgesamt|letztlich|"
    r"(?:所以|因此|总之|综上|最终)|(?:結論として|よって|したがって|最終的に))[\s,:：，、]*+"
    r"|(?:^|(?<=[.;!?,…\n—–]))[ \t]*+so\b[ \t,:]*+(?!that\b|much\b|far\b|many\b|long\b|to\s+speak\b)"
    r"|\b(?:my\s+)?final\s+(?:answer|verdict|score|rating|decision|amount|choice|pick)(?:\s+is)?[\s,:：]*",
    re.IGNORECASE | re.MULTILINE)
#: degree words that turn a label into something the scale does not offer ("a smidge like me", "kind of correct")
_DEGREE = re.compile(
    r"(?:\b(?:a\s+(?:smidge|smidgen|tad|bit|touch|wee\s+bit|little\s+bit|shade|trifle)|kind\s+of|kinda|sort\s+of|"
    r"sorta|quite|rather|fairly|pretty|slightly|mildly|marginally|moderately|reasonably|somewhat|mostly|largely|"
    r"partly|more\s+or\s+less|barely|almost|nearly|very|really|extremely|super|so|too)|\b(?:a\s+)?(?:little|lot)\s+"
    r"(?:more|less))\s*[\"'“”‘’]*\s*$", re.IGNORECASE)


def degree_before(text: str, start: int) -> str | None:
    """The degree word right before ``start`` ("a smidge" in "a smidge like me"), which makes the label read there
    something the scale does not offer (rule 4), else None. Read in a window (``window_start``)."""
    m = _DEGREE.search(text, window_start(text, start, 4), start)
    return " ".join(m.group(0).strip(" \"'“”‘’").split()) if m else None


class Candidate(NamedTuple):
    """One answer a reader found in a reply: its value and the words it read it from."""

    value: object
    text: str


def ambiguous(candidates: list[Candidate], why: str = "") -> str:
    """The reason of a reply whose readings compete: ``ambiguous: 'X' and 'Y'`` (with ``why`` after a colon)."""
    named = " and ".join(f"'{' '.join(str(c.text).split())[:60]}'" for c in candidates)
    return f"{AMBIGUOUS}: {named}" + (f" ({why})" if why else "")


def concluded_differently(text: str, read: Callable[[str], T], valid: Callable[[T], bool], got: T,
                          same: Callable[[T, T], bool]) -> tuple[str, T, T] | None:
    """When the text after the reply's last conclusion (``CONCLUSION``) reads as a valid answer that ``got`` (the
    whole reply's reading) does not give (rule 4): (the conclusion's words, its reading, the reading of the reasoning
    before it: when that gives no answer of its own, the conclusion settles the reply); else None."""
    last = None
    for last in CONCLUSION.finditer(text):
        pass
    if last is None or not text[last.end():].strip():
        return None
    tail = read(text[last.end():])
    if not valid(tail) or (valid(got) and same(tail, got)):
        return None
    return " ".join(last.group(0).split()) or "so", tail, read(text[:last.start()])


#: the words that open an answer ("I'd say", "Rating:", "my answer is"), at the very end of a reply
_ANSWER_LEAD = re.compile(r"(?:\bI(?:'d|\s+would|'ll|\s+will)\s+(?:say|go\s+with|pick|choose|rate(?:\s+(?:it|this|myself))?(?:\s+a)?|"
                          r"give(?:\s+(?:it|this))?(?:\s+a)?)|\b(?:final\s+)?(?:answer|rating|score|verdict|amount|choice)"
                          r"(?:\s+is)?\s*[:=]?|\bso)[\s*:]*$", re.IGNORECASE)
CUT_AT_ANSWER = "truncated: the reply was cut off where its answer starts"


def cut_at_answer(reply: str, finish_reason: str | None) -> str | None:
    """Why a reply cut by the length limit right where its answer would start ("… I'd say") gives none, else None:
    whatever the reasoning before it mentioned, the answer was never written."""
    if finish_reason != "length":
        return None
    return CUT_AT_ANSWER if _ANSWER_LEAD.search((reply or "")[-120:]) else None


def read_final(reply: str, read: Callable[[str], T], valid: Callable[[T], bool],
               invalid: Callable[[str], T], *, shared_no_answer: bool = True,
               key: Callable[[T], object] | None = None, conclusion: bool = True) -> T:
    """A reader's ``read`` on the reply's final part, with the shared rules around it: a withdrawn answer with none
    after it, a reply that gives no answer (``no_answer``, unless ``shared_no_answer`` is off for a reader of
    structured replies), and a reply not in English that ``read`` could not read, each ``invalid(reason)``. A reply
    that commits after its hedge ("somewhere around B or C at first glance, but on the whole (C)") is read from there
    on; a refusal stands unless it answers anyway ("but if I had to pick …"), and unless what follows declines again.
    An answer read from the whole reply that its conclusion contradicts ("3 … so 4") is ``ambiguous`` (rule 4);
    ``key`` gives a reading's value, to compare and to name (by default the reading itself); ``conclusion`` off for a
    reader that weighs every answer it finds itself (the same rule, applied by the reader). A reply longer than
    ``MAX_READ_CHARS`` is ``invalid`` as too long (``too_long``)."""
    if (why := too_long(reply)) is not None:
        return invalid(why)
    value = key or (lambda got: got)
    part = final_part(normalized(reply), lambda text: valid(read(text)))
    if part.withdrawn:
        return invalid(WITHDRAWN)
    found = _no_answer_at(part.text) if shared_no_answer else None
    # a doubt after a committed answer explains it ("Neither correct nor wrong. It is impossible to say whether …")
    if found is not None and not (found[0] == REFUSAL and valid(read(part.text[:found[1]]))):
        # a refusal covers its sentence ("I can't judge how like me this is."): what follows it may answer anyway
        end = _SENTENCE_END.search(part.text, found[2]) if found[0] == REFUSAL else None
        rest = part.text[end.end() if end else found[2]:]
        # a hedge resolved afterwards is an answer; so is a refusal followed by a plain answer (not "Maybe (D).", not
        # an answer that declines again: "… (C) would be the neutral one, but I won't pick")
        later = read(rest) if rest.strip() and not (found[0] == REFUSAL and (_TENTATIVE.search(rest) or _declines(rest))) \
            else None
        return later if later is not None and valid(later) else invalid(found[0])
    got = read(part.text)
    other = concluded_differently(part.text, read, valid, got, lambda a, b: value(a) == value(b)) if conclusion else None
    if other is not None:
        marker, concluded, head = other
        if not valid(head) and not valid(got):  # the reasoning settled on nothing, the conclusion does
            return concluded
        earlier = got if valid(got) else head
        if value(earlier) == value(concluded):  # the reasoning and the conclusion agree: the reader's own reason stands
            return got
        return invalid(ambiguous([Candidate(value(earlier), f"{value(earlier)} in the reply"),
                                  Candidate(value(concluded), f"{value(concluded)} after '{marker}'")]))
    if valid(got):
        return got
    if (lang := language(part.text)) != "en":
        return invalid(f"{NOT_ENGLISH} ({lang})")
    return got
