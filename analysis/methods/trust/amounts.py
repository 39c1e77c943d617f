r"""The amount a Trustor reply decides to send: only a stated decision counts, never another number of the reply.

First the shared rules of ``analysis.reading``: the reply's final part after a self-correction ("No wait, make it
$6", a second "Amount:" after "On second thought", a corrected ReAct ACTION, a "Revised:" JSON object), a decision
taken back with none after it ("answer withdrawn, none given after"), a refusal, a hedge ("between $3 and $5"), and
"not English: not read" for a reply in another language this reader cannot read. Then this reader's own rules on
that part. German, French, Spanish and Chinese decisions are first put in the English words below ("Ich schicke 4
Dollar", "J'envoie 3 dollars", "Enviaré siete dólares", "给B玩家5美元", "Betrag:", "Montant :", "Cantidad:",
"金额：", number words 0-10 before a currency word; ``in_english``).

Read in this order (the first that finds something decides; the paper's App. E reads free text by regex):

1. **Answer markers**, the format the prompts ask for: "Amount: $4", "ACTION: Send $4", "Final answer: 4",
   "Answer: four", and a JSON object with an amount key (``{"amount": 6}``, ``{"send": "3 dollars"}``).
2. **First-person decisions**: "I will send $3", "I'd give him $5", "my choice is to hand over $6",
   "I'll send three of my ten dollars", "I'll send half of it", "I decided to send 3 to Player B", "I'll keep $6
   and send the remaining $4" (keeping k of E sends E − k), "I'm keeping all $10 for myself", "I will not send
   anything", "I'm not sending a thing" and "Player B gets nothing" (0), "I'll split it and send half of it", "make
   it $6".

Then:

- a later decision introduced by a correction ("Actually, scratch that:", "On second thought,", "I've changed my
  mind") replaces the earlier ones; other decisions naming different amounts are ambiguous;
- a wish withdrawn in its own sentence decides nothing: "I'd like to send all $10, but realistically I'll only
  send $4" sends 4, "I want to send $8, but I'll keep most of it" decides no amount;
- a hypothetical ("if I send $10"), an expression ("amount = 10 * max(1, 10)"), a range ("$5-$6") and a marker quoted
  inside a sentence are not decisions; an echoed template ("Amount: $X") or a reply cut off before its decision is
  invalid, and so is a negative, a fraction ("$4.50") or more than the endowment. Nothing is clipped or guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from analysis.llm.json_reply import extract_fields
from analysis.reading import read_final, whole_number

#: number words of German, French, Spanish (0-10) and Chinese numerals, read as digits before a currency word, after an
#: answer marker, or as a whole reply ("Acht Dollar.", "Ocho.", "siete dólares", "五美元")
FOREIGN_NUMBERS = {w: i for i, ws in enumerate((
    "null cero zéro 零", "eins ein un une uno una 一", "zwei deux dos 二 两", "drei trois tres 三", "vier quatre cuatro 四",
    "fünf cinq cinco 五", "sechs six seis 六", "sieben sept siete 七", "acht huit ocho 八", "neun neuf nueve 九",
    "zehn dix diez 十")) for w in ws.split()}
_FOREIGN_WORD = r"(?:" + "|".join(sorted((w for w in FOREIGN_NUMBERS if w.isascii() or len(w) > 1), key=len,
                                         reverse=True)) + r"|zéro|fünf)"
_CURRENCY = r"(?:dollars?|dólares|dolares|美元|美金|块钱|块)"
_FOREIGN_FORMS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.IGNORECASE), e) for p, e in (
    # answer markers
    (r"\b(?:betrag|montant|cantidad|monto|importe|importo|quantia|valor|bedrag|belopp|beløb|kwota|miktar|tutar|"
     r"số\s+tiền|jumlah|сумма|ποσό)\s*[:：]|(?:金额|数额|金額|금액|राशि|المبلغ)\s*[:：]", "Amount:"),
    # "3 $" after the number, as written in German and French
    (r"(?<![\d$])(\d+(?:[.,]\d+)?)\s*\$", r"$\1"),
    # German: "Ich schicke (Spieler B) 4 Dollar", "Ich werde in dieser Runde 3 Dollar schicken"
    (r"\bich\s+werde\s+[^.\n\d]{0,40}?(\$?\s*\d+\s*(?:dollar|\$)?)\s+(?:schicken|senden|geben|überweisen)\b",
     r"I will send \1"),
    (r"\bich\s+(?:schicke|sende|gebe|überweise)(?:\s+(?:dem\s+)?spieler\s*b)?", "I send"),
    (r"\bich\s+(?:behalte|behalt)\s+alles\b", "I keep everything"),
    # French: "J'envoie 3 dollars au joueur B", "je vais envoyer", "je donne"
    (r"\bj['’]envoie|\bj['’]enverrai|\bje\s+(?:vais\s+)?(?:envoyer|envoie|donne|donner|donnerai)(?:\s+au\s+joueur\s*b)?",
     "I send"),
    (r"\bau\s+joueur\s*b\b", "to Player B"),
    # Spanish: "Enviaré siete dólares", "voy a enviar", "le doy"
    (r"\b(?:yo\s+)?(?:le\s+)?(?:enviaré|enviare|envío|envio|mandaré|mando|daré|doy|voy\s+a\s+(?:enviar|mandar|dar))"
     r"(?:\s+al\s+jugador\s*b)?", "I send"),
    (r"\bal\s+jugador\s*b\b", "to Player B"),
    # Chinese: "我决定给B玩家5美元", "我会送出5美元"
    (r"我?(?:决定|会|将|要|打算)?(?:给|送给|转给|寄给|发给)\s*(?:B\s*玩家|玩家\s*B|B)\s*", "I send Player B "),
    (r"我(?:决定|会|将|要|打算)?(?:送出|发送|转账|给出|寄出)\s*", "I send "),
    (r"我(?:决定|会|将|要|打算)?(?:给|送)(?=\s*(?:\$\s*)?[\d零一二两三四五六七八九十])", "I send "),  # "我会给 4 美元"
    # Japanese: "4ドルを送ります", "3ドル渡します"
    (r"(?<!\d)(\d++)\s*ドル\s*(?:を|だけ)?\s*(?:送ります|送る|送金します|渡します|渡す|あげます|贈ります)", r"I send $\1"),
    # number words before a currency word, or as a whole reply
    (r"(?<![\w])(" + _FOREIGN_WORD + r"|[零一二两三四五六七八九十])\s*(?=" + _CURRENCY + r"|\s*[.!]?\s*$)", "#NUM#"),
    (r"(?:dólares|dolares|美元|美金|块钱|块)(?![\w])", " dollars"),
    (r"。", ". "),
))


def in_english(text: str) -> str:
    """German, French, Spanish, Chinese and Japanese decisions in the English words the rules read ("Ich schicke 4 Dollar" ->
    "I send 4 dollars", "Montant : 3 $" -> "Amount: $3", "Enviaré siete dólares" -> "I send 7 dollars",
    "给B玩家5美元" -> "I send Player B 5 dollars"); English text is unchanged."""
    for pattern, english in _FOREIGN_FORMS:
        if english == "#NUM#":
            text = pattern.sub(lambda m: f"{FOREIGN_NUMBERS[m.group(1).lower()]} ", text)
        else:
            text = pattern.sub(english, text)
    return text


_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split())}
_WORD = r"\b(?:" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")\b"
_NUM = r"\d[\d,]*(?:\.\d+)?"
# a number followed by an arithmetic operator or a range ("10 * max(1, 10)", "$5-$6") is part of an expression
_NOT_EXPRESSION = r"(?![\d.,]*\s*(?:[*×/+^=]|[-–—]\s*\$?\d|(?:or|to)\s+\$?\d))"  # nor a range: "$4–$6"
_DOLLARS = r"(?:dollars?|bucks|usd)\b"
_OF_MINE = r"\s+of\s+(?:my|the|those|these|our)\s+(?:\$\s*\d+|\d+|" + _WORD + r")(?:\s*" + _DOLLARS + r")?"
_ALL = (r"\b(?:everything|all\s+of\s+(?:it|them|my\s+money|the\s+money|my\s+endowment)|all(?=\s*(?:[.!,;\n]|to\b|$))"
        r"|the\s+(?:whole|entire|full)\s+(?:amount|endowment|sum|thing))")
_HALF = r"\bhalf(?:\s+of\s+(?:it|my\s+money|the\s+money|my\s+endowment|what\s+i\s+have))?"
_PERCENT = r"\d{1,3}\s*%\s+of\s+(?:it|my\s+money|the\s+money|my\s+endowment|my\s+\$?\d+|the\s+\$?\d+)"
#: an amount as written in a decision: "$4", "4 dollars", "four dollars", "three of my ten dollars", "all", "half"
_AMOUNT = (r"(?P<amt>-\s*\$\s*" + _NUM + _NOT_EXPRESSION + r"|(?:" + _NUM + "|" + _WORD + ")" + _OF_MINE
           + r"|(?:\$|\bus\$|\busd)\s*" + _NUM + _NOT_EXPRESSION + r"|" + _NUM + r"\s*" + _DOLLARS + r"|" + _WORD + r"\s+" + _DOLLARS
           + "|" + _PERCENT + "|" + _ALL + "|" + _HALF + ")")
# in a send phrase only: a bare number that ends the sentence or goes "to Player B" ("I decided to send 3 to Player B")
_BARE = (r"(?P<bare>\d+|" + _WORD + r")(?=\s+(?:to|for)\s+(?:player\s*b|him|her|them|the\s+other)\b|\s*(?:[.!;]|\n|$))")
_PLACEHOLDER = r"(?:\$\s*[A-Za-z]\b|\[[^\]\n]{1,30}\]|<[^>\n]{1,30}>|\$?\s*_{2,}|\$?\s*\.{3})"
_MARK = (r"\b(?:amount(?:\s+(?:sent|to\s+send))?|action|(?:final\s+)?answer|decision|send|transfer|forecast|prediction)"
         r"\s*[:=]\s*"
         r"(?:send\s*)?")
_MARKER = re.compile(_MARK + r"(?:" + _AMOUNT + r"|(?P<plain>\d[\d,]*(?:\.\d+)?)(?![\d.,]*\s*%)(?!\w)"
                     + _NOT_EXPRESSION + "|(?P<mword>" + _WORD + "))", re.IGNORECASE)
# a reply that is only an amount ("$5", "5", "5 dollars."), or a line "Send $4." of its own: the answer itself
# (possessive runs of white space and digits: the next item can never take what they give back, and backtracking
# into them made a reply of blank lines quadratic)
_ANSWER_LINE = re.compile(r"(?:\A\s*+(?:(?P<plain>\$?\s*+\d++(?:\.\d+)?)|(?P<mword>" + _WORD + r"))(?:\s*+" + _DOLLARS
                          + r")?\s*+[.!]?\s*+\Z"
                          r"|^[ \t]*+(?:send|transfer|give)\s+(?P<amt>\$\s*+\d++(?:\.\d+)?)[ \t]*+[.!]?[ \t]*+$)",
                          re.IGNORECASE | re.MULTILINE)
_MARKER_PLACEHOLDER = re.compile(_MARK + _PLACEHOLDER, re.IGNORECASE)
_QUOTES = "\"'“‘«"
# after a quoted marker: its closing quote, punctuation, the end of the line (then it is the reply's answer line)
_QUOTE_ENDS_LINE = re.compile(r"\s*[\"'”’»]\s*[.!]?\s*(?:\n|$)")

_NOT_AFTER = (r"(?<!\bif )(?<!\bwhen )(?<!\bshould )(?<!\bwhether )(?<!\bcould )(?<!\bsay )(?<!\bsuppose )"
              r"(?<!\bimagine )(?<!\bassume )(?<!\bunless )")
_WISH = r"(?P<wish>'d\s+(?:like|love)|\s+would\s+(?:like|love)|\s+want|\s+wish|'m\s+tempted|\s+am\s+tempted)"
_ADVERB = (r"(?:(?:only|just|probably|definitely|still|actually|realistically|simply|now|therefore|then|happily|"
           r"gladly|instead|ultimately|finally|thus|so)\s*,?\s+)?")
_VERB = (r"(?:send|sending|give|giving|transfer|transferring|invest|investing|contribute|contributing|hand(?:ing)?(?:\s+over)?|offer|offering|"
         r"entrust|entrusting|go\s+(?:with|for)|going\s+(?:with|for)|settle\s+on|choose|pick|select|opt\s+for|"
         r"put\s+in|putting\s+in|risk|risking|trust\s+(?:him|her|them|player\s*b)\s+with)")
_SUBJECT = (_NOT_AFTER + r"(?:\blet(?:'s|\s+us)\s+|\bI(?:'ll|\s+will)\s+[a-z]+(?:\s+[a-z]+){0,5}?\s+and\s+(?=send|give)|\bI(?:" + _WISH + r"|'ll|'m|'d|'ve| will| would| am| shall| have| decided| decide| choose|"
            r" chose| plan| intend| expect| predict| anticipate| think I'll| made (?:a|the|my) decision|"
            r" make (?:a|the|my) decision)?"
            r"(?:\s+(?:going|decided|chosen|planning|opted|elected|choose|chose|decide))?(?:\s+to)?(?:\s+be)?\s+)" + _ADVERB)
# "make it $6" (after a correction: "No wait, make it $6")
_MAKE_IT = r"\bmake\s+(?:it|that)\s+"
_MY_CHOICE = (r"\bmy\s+(?:final\s+)?(?:choice|decision|answer|plan|move|offer|intent|intention|contribution|donation)\s+(?:is|will\s+be)\s*:?\s+"
              r"(?:(?:to\s+)?" + _VERB + r"\s+)?")
# "sending $3 seems right": an evaluation that is the decision
_SEEMS = r"\b(?:sending|giving)\s+(?=\$[\d.]+\s+(?:seems|is|feels)\s+(?:right|best|fair|reasonable|wise|like\s+the\s+right))"
_OBJECT = r"(?:(?:player\s*b|him|her|them|my\s+partner|the\s+other\s+player|the\s+stranger|the\s+trustee)\s+)?"
_QUANT = (r"(?:,?\s*(?:let's\s+say|say),\s+|(?:only|just|exactly|all|a\s+total\s+of|the\s+remaining|"
          r"the\s+rest(?:\s+of\s+it)?,?|the\s+other|the\s+full|the\s+entire|the\s+whole|as\s+much\s+as|back)\s+)?")
_SEND_PHRASE = re.compile(r"(?:" + _SUBJECT + _VERB + r"\s+|" + _MY_CHOICE + "|" + _SEEMS + "|" + _MAKE_IT + ")" + _OBJECT + _QUANT
                          + r"(?:" + _AMOUNT + "|" + _BARE + ")", re.IGNORECASE)
# "Sending $7 to Player B." as a sentence of its own (not "Sending $10 would be risky"); "$5 is what I'll send."
_OTHER_PHRASES = re.compile(
    r"(?:^|(?<=[.!?]\s))(?:sending|giving)\s+(?P<amt>\$\s*\d+(?:\.\d+)?)(?:\s+to\s+(?:player\s*b|him|her|them))?\s*[.!]?\s*$"
    r"|(?P<inv>\$\s*\d+(?:\.\d+)?)\s+is\s+what\s+I(?:'ll|\s+will|'d|\s+would)?\s+(?:send|give)\b",
    re.IGNORECASE | re.MULTILINE)
_KEEP_PHRASE = re.compile(
    _NOT_AFTER + r"(?:\bI(?:'ll|'m|'d| will| would| am| shall)?(?:\s+(?:going|decided|choose|chose))?(?:\s+to)?\s+"
    r"|(?<=\d)\s+and\s+|\$\d+\s+and\s+)" + _ADVERB + r"(?:keep|keeping|hold\s+on\s+to|holding\s+on\s+to|retain)\s+(?:all\s+|only\s+|just\s+)?"
    r"(?P<keep>\$\s*" + _NUM + _NOT_EXPRESSION + "|" + _NUM + r"\s*" + _DOLLARS + "|" + _WORD + r"\s+" + _DOLLARS
    + r"|everything|it\s+all|all\s+of\s+it|all(?=\s+(?:for|to)\s+myself)|the\s+(?:whole|entire|full)\s+"
    r"(?:amount|endowment|sum))", re.IGNORECASE)
_ZERO_PHRASE = re.compile(
    _NOT_AFTER + r"\bI(?:\s*(?:won't|will not|would not|wouldn't|do not|don't|shall not|am not going to|'m not going to|"
    r"(?:choose|chose|decide|decided|have decided) not to)\s+(?:send|give|transfer|invest)\s+(?:anything|any\s+money|"
    r"a\s+(?:single\s+)?(?:dollar|cent|thing|dime|penny))|\s*(?:'ll|will|would|'d|decided to|choose to)?\s*(?:send|give|transfer|invest)\s+"
    r"(?:player\s*b\s+)?(?:nothing|no\s+money|zero\b(?!\s+dollars?)))"
    r"|\bI(?:'m| am) not (?:sending|giving) (?:anything|any\s+money|a\s+(?:single\s+)?(?:thing|dime|penny|cent|dollar))|\bI(?:'m| am) (?:sending|giving) (?:nothing|no\s+money)"
    r"|\b(?:player\s*b|he|she|they)\s+(?:gets|will\s+get|receives|will\s+receive)\s+nothing\b", re.IGNORECASE)
_CORRECTION = re.compile(
    r"\b(?:actually|scratch\s+that|on\s+second\s+thought|correction|let\s+me\s+(?:reconsider|revise|correct)|"
    r"changed?\s+my\s+mind|make\s+that|i\s+take\s+(?:that|it)\s+back|upon\s+(?:further\s+)?reflection|"
    r"on\s+(?:further\s+)?reflection|after\s+(?:further\s+)?(?:thought|reflection|reconsidering)|thinking\s+again|"
    r"no,?\s+wait|wait)\b", re.IGNORECASE)
_BUT = re.compile(r"\b(?:but|however|though|yet)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?;\n]")
_JSON_KEYS = ("amount", "send", "amount_sent", "amount_to_send", "sent", "transfer", "dollars", "decision", "answer")


@dataclass(frozen=True)
class ParsedAmount:
    """A validated whole-dollar amount, or None with the reason; ``how`` names the rule that found it."""

    amount: int | None
    reason: str | None = None
    how: str | None = None
    text: str | None = None

    @property
    def valid(self) -> bool:
        return self.amount is not None


@dataclass(frozen=True)
class _Decision:
    how: str
    value: float | None  # None: negative
    text: str  # the decision as written ("Amount: $4")
    start: int
    end: int
    amount: str = ""  # the amount as written ("$4", "-$3", "five")


def amount_value(written: str, endowment: int) -> float | None:
    """The dollars an amount as written stands for ("$4", "4 dollars", "four", "three of my ten dollars" -> 3,
    "all"/"everything" -> E, "half" -> E/2, "50% of it" -> E/2); None for a negative."""
    text = " ".join(written.lower().split())
    if text.startswith("-"):
        return None
    if m := re.match(r"(\d{1,3})\s*%", text):
        return endowment * int(m.group(1)) / 100
    if text.startswith("half"):
        return endowment / 2
    if re.match(r"everything|all\b|it all|the (?:whole|entire|full)", text):
        return float(endowment)
    if m := re.search(r"\d[\d,]*(?:\.\d+)?", text):
        if not re.match(_WORD, text):
            return float(m.group(0).replace(",", ""))
    word = re.match(_WORD, text)
    if word:
        return float(_WORDS[word.group(0)])
    raise ValueError(f"not an amount: {written!r}")


def _shown(value: float | None, written: str) -> str:
    w = " ".join(written.split())
    return w if value is None or "$" in w or not re.fullmatch(r"[\d.,]+", w) else f"${w}"


def _json_decision(text: str, endowment: int) -> list[_Decision]:
    """The decision of a JSON reply's amount field; of an object cut by the length limit, its complete fields
    (``extract_fields``: ``{"thought": "…", "amount": 3, "expl`` decided 3 before the cut)."""
    obj = extract_fields(text)
    if not obj:
        return []
    keys = {str(k).lower(): v for k, v in obj.items()}
    for key in _JSON_KEYS:
        value = keys.get(key)
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, (int, float)):
            return [_Decision("json", _as_float(value) if value >= 0 else None, f'"{key}": {value}', 0, 0, f"${value}")]
        if isinstance(value, str) and (m := re.fullmatch(
                r"\s*(?:send\s+)?(-?\s*\$?\s*" + _NUM + r"|" + _WORD + r")\s*(?:" + _DOLLARS + r")?\s*\.?\s*", value,
                re.IGNORECASE)):
            written = m.group(1)
            return [_Decision("json", amount_value(written, endowment), f'"{key}": "{value}"', 0, 0,
                              _shown(0.0, written.replace(" ", "")))]
    return []


def _decisions(text: str, endowment: int) -> list[_Decision]:
    """Every stated decision: markers first (the format asked for), else first-person decision phrases."""
    def found(how: str, m: re.Match[str]) -> _Decision:
        written = next(g for g in (m.groupdict().get(k) for k in ("amt", "inv", "keep", "bare", "plain", "mword")) if g)
        value = amount_value(written, endowment)
        if how == "keep phrase" and value is not None:
            value = endowment - value if value <= endowment else None
        return _Decision(how, value, m.group(0).strip(), m.start(), m.end(), _shown(value, written))

    markers = [found("marker", m) for m in _MARKER.finditer(text) if not _mentioned(text, m)]
    markers += _json_decision(text, endowment)
    markers += [found("answer line", m) for m in _ANSWER_LINE.finditer(text)]
    if markers:
        return sorted(markers, key=lambda d: d.end)
    phrases = [found("send phrase", m) for m in _SEND_PHRASE.finditer(text) if not _withdrawn(text, m)]
    phrases += [found("send phrase", m) for m in _OTHER_PHRASES.finditer(text)]
    phrases += [found("send phrase", m) for m in _ARITHMETIC_SEND.finditer(text)]
    phrases += [found("keep phrase", m) for m in _KEEP_PHRASE.finditer(text)]
    phrases += [_Decision("zero phrase", 0.0, m.group(0).strip(), m.start(), m.end(), "$0")
                for m in _ZERO_PHRASE.finditer(text)]
    return _corrected(sorted(phrases, key=lambda d: d.end), text)


#: a decision written as a sum ("Finally I will give $9 - $3 = $6 dollars"): its result is the amount it decides
_ARITHMETIC_SEND = re.compile(r"\bI(?:'ll|\s+will|'d|\s+would)?\s+(?:give|send|transfer|invest)\s+\$?\d+(?:\.\d+)?\s*"
                              r"[-+−×*/]\s*\$?\d+(?:\.\d+)?\s*=\s*(?P<amt>\$?\d+(?:\.\d+)?)", re.IGNORECASE)


def _withdrawn(text: str, m: re.Match[str]) -> bool:
    """A wish ("I'd like to send $10") followed in its own sentence by "but"/"however" decides nothing."""
    if not m.groupdict().get("wish"):
        return False
    end = _SENTENCE_END.search(text, m.end())
    return bool(_BUT.search(text, m.end(), end.start() if end else len(text)))


def _corrected(decisions: list[_Decision], text: str) -> list[_Decision]:
    """From the last decision introduced by a correction on: what came before was taken back."""
    kept = decisions
    for i in range(1, len(decisions)):
        between = text[decisions[i - 1].end:decisions[i].start]
        if _CORRECTION.search(between):
            kept = decisions[i:]
    return kept


_TIMES = re.compile(r"(?<=[\d)])[ \t]*\*(?!\*)[ \t]*(?=[\d(A-Za-z_])")  # "10 * max(1, 10)", "3*4": multiplication


def without_markdown(reply: str) -> str:
    """The reply without emphasis asterisks and backticks ("**Amount:** $2"); a multiplication sign is kept as "×"."""
    return _TIMES.sub(" × ", reply).replace("*", "").replace("`", "")


def _mentioned(text: str, m: re.Match[str]) -> bool:
    """A marker in quotation marks inside a sentence is mentioned, not stated ('So the last line is: "Amount: $10" is
    what you get.'); a quoted marker that ends its line is the reply's answer line."""
    before = text[:m.start()].rstrip(" ")
    return bool(before) and before[-1] in _QUOTES and _QUOTE_ENDS_LINE.match(text, m.end()) is None


def extract_amount(reply: str, endowment: int, finish_reason: str | None = None) -> ParsedAmount:
    r"""The amount a reply decides to send, or invalid with the reason; never a number the reply does not decide.
    The shared rules of ``analysis.reading`` first (the final answer after a self-correction, a withdrawn decision
    with none after it, a refusal, a hedge, "not English"), then this reader's own rules (module docstring) on the
    final part. A reply cut off by the length limit (``finish_reason`` "length") with no decision, or with its only
    decision at the cut ("Amount: $1" may be the start of "$10"), is truncated. The reference's first-number regex
    ``\$?(\d+)`` would take "$1" from "Player B returned $1"; nothing here does."""
    return read_final(reply or "", lambda part: _amount(part, endowment, finish_reason), _valid, _invalid,
                      key=lambda p: p.amount)


def _valid(parsed: ParsedAmount) -> bool:
    return parsed.valid


def _invalid(reason: str) -> ParsedAmount:
    return ParsedAmount(None, reason)


def _amount(reply: str, endowment: int, finish_reason: str | None) -> ParsedAmount:
    """This reader's own rules (module docstring) on a reply's final part."""
    text = in_english(without_markdown(reply))
    truncated = finish_reason == "length"
    found = _decisions(text, endowment)
    if truncated and found and found[-1].end >= len(text.rstrip()):
        found = found[:-1]
    if not found:
        if _MARKER_PLACEHOLDER.search(text):
            return ParsedAmount(None, "template echoed: the answer marker holds a placeholder, not an amount")
        if truncated:
            return ParsedAmount(None, "truncated: the reply hit the length limit before stating a decision")
        return ParsedAmount(None, "no decision stated (no 'Amount: $X' line and no 'I send $X' phrase)")
    values = {d.value for d in found}
    if len(values) > 1:
        named = ", ".join(sorted({d.text for d in found}))
        return ParsedAmount(None, f"ambiguous: the reply decides different amounts ({named})", found[-1].how)
    return _validated(found[-1], endowment)

_FIRST_NUMBER = re.compile(r"(?P<neg>-)?\$?(?P<int>\d+)(?P<frac>\.\d+)?")
# a bare answer line: a number with at most "$", "dollars", a bullet or an "Answer:" label around it
_BARE_LINE = re.compile(r"(?:[-•>][ \t]+)?(?:(?:final[ \t]+)?(?:answer|amount)[ \t]*[:=][ \t]*|send[ \t]+)?-?[ \t]*\$?[ \t]*"
                        r"\d+(?:\.\d+)?[ \t]*(?:dollars?|USD)?[ \t]*[.!]?(?:[ \t]*\([^()\n]{0,40}\)[ \t]*[.!]?)?",
                        re.IGNORECASE)


def extract_first_integer(reply: str, endowment: int, finish_reason: str | None = None) -> ParsedAmount:
    """App. E's scalar extraction for a bare numeric answer: when the reply's first line is a bare number ("7", "$4",
    "Answer: 5", "3 dollars."), its first number (the paper's ``\\$?(\\d+)``), valid when a whole amount in
    [0, endowment]; a negative ("-3"), a fraction ("4.5") or a number above the endowment is invalid, and no later
    number is tried. A reply that is not a bare number is read only for a stated decision (``extract_amount``): on the
    embedded model's real replies ("To solve this problem ... tripled by 3 ..."), the first integer stored 3 for 39 of
    50 personas, none of which decided anything. Read on the reply's final part (``analysis.reading``: "5\n\nActually,
    make it 6." sends 6); a whole number written with cents ("$5.00") is that number; "Nothing." sends 0, "Half of it."
    half the endowment, "All of it." the endowment; German, French, Spanish and Chinese number words ("Ocho.", "Acht
    Dollar.") are read."""
    return read_final(reply or "", lambda part: _first_integer(part, endowment, finish_reason), _valid, _invalid,
                      key=lambda p: p.amount)


_WHOLE_WORDS = re.compile(r"(?P<zero>nothing|none|zero\s+dollars|not\s+a\s+(?:thing|cent|dime))|(?P<half>half(?:\s+of\s+it)?)"
                          r"|(?P<all>all\s+of\s+it|everything|all\s+(?:ten|\$?10)(?:\s+dollars)?)", re.IGNORECASE)


def _first_integer(reply: str, endowment: int, finish_reason: str | None) -> ParsedAmount:
    text = in_english(without_markdown(reply))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and (whole := re.fullmatch(r"\s*(?:" + _WHOLE_WORDS.pattern + r")\s*[.!]?\s*", lines[0], re.IGNORECASE)):
        value = 0 if whole.group("zero") else endowment / 2 if whole.group("half") else endowment
        if value == int(value):
            return ParsedAmount(int(value), None, "first integer", whole.group(0).strip())
    if lines and (word := re.fullmatch(r"(" + _WORD + r")(?:\s+" + _DOLLARS + r")?\s*[.!]?", lines[0], re.IGNORECASE)):
        value = _WORDS[word.group(1).lower()]
        if value <= endowment:
            return ParsedAmount(value, None, "first integer", word.group(1))
    if lines and _BARE_LINE.fullmatch(lines[0]):
        if finish_reason == "length" and len(lines) == 1:
            return ParsedAmount(None, "truncated: the reply hit the length limit right after its number")
        m = _FIRST_NUMBER.search(lines[0])
        assert m is not None  # the bare line holds a number
        found = m.group(0)
        if m.group("neg") or (m.group("frac") and m.group("frac").strip(".0")):
            return ParsedAmount(None, f"'{found}' is not a whole amount >= 0", "first integer", found)
        value = whole_number(m.group("int"))
        if value > endowment:
            return ParsedAmount(None, f"'{_clipped(found)}' is outside [0, {endowment}]", "first integer", _clipped(found))
        return ParsedAmount(value, None, "first integer", found)
    decided = _amount(reply, endowment, finish_reason)
    if decided.valid or not lines:
        return decided
    return ParsedAmount(None, f"not a bare number; {decided.reason}", decided.how, decided.text)



def _as_float(value: int | float) -> float:
    """A JSON number as a float; an integer too large for one (``{"amount": 1e400}`` as digits) is infinite."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _clipped(written: str) -> str:
    """An amount as written, cut to 24 characters (a reason names it)."""
    return written if len(written) <= 24 else written[:24] + "…"


def _validated(decision: _Decision, endowment: int) -> ParsedAmount:
    how, found = decision.how, decision.amount
    if decision.value is None:
        return ParsedAmount(None, f"negative amount '{found}'" if how != "keep phrase" else
                            f"keeps more than the endowment ('{decision.text}')", how, found)
    if not math.isfinite(decision.value) or decision.value > 10 ** 18:  # "$999…9": 400 digits are an infinite float
        return ParsedAmount(None, f"'{_clipped(found)}' is outside [0, {endowment}]", how, _clipped(found))
    if decision.value != int(decision.value):
        return ParsedAmount(None, f"'{found}' is not a whole-dollar amount", how, found)
    amount = int(decision.value)
    if amount > endowment:
        return ParsedAmount(None, f"'{found}' is outside [0, {endowment}]", how, found)
    return ParsedAmount(amount, None, how, found)
