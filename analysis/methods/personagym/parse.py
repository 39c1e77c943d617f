"""Free text -> structure for the PersonaGym stages; what cannot be read is invalid with a reason.

- ``parse_list``: a model's list, in whichever form it came: a JSON array, a Python list (single
  quotes, trailing commas), either one wrapped in a code fence or inside ``{"key": [...]}``, a list
  cut off by the token limit (the complete strings are kept), numbered or bulleted lines ("1.",
  "2)", "(3)", "-", "*", "•"; wrapped lines are joined, text before the first and after a blank line
  dropped), quoted names in a sentence, or (``split_commas``) one comma-separated line.
- ``match_environments``: list items -> names of the environment list. Matching ignores case,
  punctuation and quotes; an item may carry an explanation after the name ("Farm - because ..."),
  abbreviate a name as long as exactly one environment starts with it, or mention names of two
  words or more inside it ("B: Medical, hospital emergency room at night, ..."). Unknown items and
  repeated names are dropped and counted; at most ``limit`` names are kept (the rest: extra).
- ``parse_questions``: list items -> questions: at least 4 words and one letter, at most 1000
  characters, not a heading (ending in ":") or a template placeholder, not a repeat (compared
  without case and punctuation, also against questions already accepted).
- ``parse_score_examples``: "Score k: [Response -] text" sections (k then ":", "-" or ")"; any
  order; inline when capitalised, else first on their line; markdown allowed) or a JSON object
  ``{"1": ..}``/``{"Score 1": ..}``; one example
  per score 1-5, each at least 3 letters long (a single character is never an example); a score
  given twice keeps its last non-placeholder text (models sometimes echo the format first). Valid
  only when all five scores have an example.
- ``parse_grade``: a JSON object's "score" (``--answer-format json``), else the last "final score is N" (also "final score: N", "N/5", "N out of 5", the
  words one..five, markdown; in "the final score is one that ... 3" or "one of the highest I can
  give: 5" the score is the later number, "one" being a pronoun); else "Score: N" lines anywhere
  ("**Score: 5**" first, then the explanation), all agreeing; else scores given in sentences ("I would
  rate this 4 out of 5", "deserves a score of 4", "earns a 5.", "4/5"), all agreeing; else a reply or
  last line that is a number alone ("4", "(3)"); else "<criterion>: N" lines ("Coherence: 2"), all agreeing; else a
  score leading the reply ("3 - the response …"). N must be a whole grade in [1, 5]: a half grade ("3.5") lies between
  two of the rubric's descriptions and is invalid with that reason (issue 56; the reference's regex would take 3, see
  docs/methods/personagym.md); out of range, another scale ("8/10"), a range
  ("3-4"), disagreeing scores, "N/A" or no score at all -> invalid. Never 0 as a stand-in.
- ``detect_refusal``: the marker of a reply that steps out of the persona, else None (``docs/methods/personagym.md``,
  "Refusals"): AI disclaimers in German, French, Spanish and Chinese too ("Als KI-Sprachmodell", "En tant
  qu'intelligence artificielle", "Como modelo de lenguaje", "作为一个人工智能"), refusing the role ("I'm not going to
  pretend to be someone who…", "even in a role-play", "I understand this is a role-play, but…", "breaking character"),
  an out-of-role note after an answer ("(Note: I'm an AI assistant role-playing…)"); an opening decline with the
  persona's own reason and no assistant's words is the persona declining (``detect_decline``), not a refusal; "as an AI /
  a language model / an AI assistant ...", "I'm an AI" anywhere, when the phrase ends there ("As an AI,
  I ..."; not "As an AI researcher" or "As an assistant coach", the persona's own job); in the first 300 characters "I
  cannot / can't / won't / am unable to" + help, assist, provide, answer, role-play, pretend, ...
  (not "I can't help laughing", "I cannot help but"), "I don't feel comfortable", "I'm not
  comfortable", "I don't have personal experiences/opinions/feelings", "I must decline".
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

from analysis.llm.json_reply import extract_fields
from analysis.methods.personagym import SCORES
from analysis.reading import read_final, whole_number

_FENCE = re.compile(r"```[a-zA-Z]*\s*|```")
_MARKER = re.compile(r"^\s*(?:[-*•·–]|\d{1,3}\s*[.)]|\(\d{1,3}\)|q(?:uestion)?\s*\d{1,3}\s*[:.)])\s+", re.IGNORECASE)
_QUOTED = re.compile(r"\"([^\"\n]{2,}?)\"|“([^”\n]{2,}?)”")
_DQ_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


@dataclass
class ParsedList:
    """The items found and the form they were found in (json, python, truncated, lines, quoted, commas, none)."""

    items: list[str]
    form: str


def _clean_item(item: str) -> str:
    item = " ".join(str(item).split())
    item = re.sub(r"^([*_]{1,2})(.+)\1$", r"\2", item).strip()  # **bold** / *italic* / __x__
    if len(item) >= 2 and item[0] == item[-1] and item[0] in "\"'`":
        item = item[1:-1].strip()
    return item.rstrip(",").strip()


def _strings(value: object) -> list[str] | None:
    """The strings of a parsed list (dict items: their first string value); None if not a list."""
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        return _strings(lists[0]) if lists else None
    if not isinstance(value, list):
        return None
    out: list[str] = []
    for item in value:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            out.extend(v for v in item.values() if isinstance(v, str))
        elif isinstance(item, list):
            out.extend(v for v in item if isinstance(v, str))
    return out


def _literal(span: str) -> object:
    for loader in (json.loads, ast.literal_eval):
        try:
            return loader(span)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def _quoted_items(inner: str, closed: bool) -> list[str]:
    """Elements of a list whose literal did not parse: double-quoted strings (escapes allowed), or
    single-quoted ones split at quote-comma-quote (so an apostrophe inside an element survives).
    When the list was cut off (not ``closed``), the unfinished last element is dropped."""
    inner = inner.strip()
    if inner.startswith('"'):
        out = []
        for raw in _DQ_STRING.findall(inner):
            value = _literal(f'"{raw}"')
            out.append(value if isinstance(value, str) else raw)
        return out
    if inner.startswith("'"):
        parts = re.split(r"'\s*,\s*'", inner[1:])
        last = parts[-1].rstrip().rstrip(",").rstrip()
        if closed and last.endswith("'"):
            parts[-1] = last[:-1]
        else:
            parts = parts[:-1]
        return [p.replace("\\'", "'") for p in parts]
    if closed and inner:
        return [p for p in re.split(r"\s*[,\n]\s*", inner) if p]  # [Farm, Wedding]: a list without quotes
    return []


def _bracketed(text: str) -> ParsedList | None:
    start = text.find("[")
    brace = text.find("{")
    if brace != -1 and (start == -1 or brace < start):
        end = text.rfind("}")
        if end > brace:
            items = _strings(_literal(text[brace:end + 1]))
            if items:
                return ParsedList(items, "json")
    if start == -1:
        return None
    end = text.rfind("]")
    closed = end > start
    if closed:
        span = text[start:end + 1]
        try:
            items = _strings(json.loads(span))
            form = "json"
        except (ValueError, TypeError):
            items, form = _strings(_literal(span)), "python"
        if items:
            return ParsedList(items, form)
    inner = text[start + 1:end] if closed else text[start + 1:]
    return ParsedList(_quoted_items(inner, closed), "repaired" if closed else "truncated")


def _lines(text: str) -> list[str]:
    items: list[str] = []
    open_item = False
    for raw in text.splitlines():
        if not raw.strip():
            open_item = False
            continue
        if _MARKER.match(raw):
            items.append(_MARKER.sub("", raw, count=1))
            open_item = True
        elif open_item and items:
            items[-1] += " " + raw.strip()
    return items


def parse_list(text: str, *, split_commas: bool = False) -> ParsedList:
    """The items of a list reply (see module docstring); form 'none' and no items if there is none."""
    text = _FENCE.sub("\n", text or "").strip()
    found = _bracketed(text)
    if found is not None and found.form in ("repaired", "truncated") and len(_lines(text)) > len(found.items):
        found = None  # "1. Farm [her favourite]\n2. ...": the brackets were prose, the list is the lines
    if found is None:
        marked = _lines(text)
        if marked:
            found = ParsedList(marked, "lines")
        elif quoted := [a or b for a, b in _QUOTED.findall(text)]:
            found = ParsedList(quoted, "quoted")
        elif split_commas and text and "\n" not in text.strip() and re.search(r"[,;]", text):
            found = ParsedList(re.split(r"\s*[,;]\s*(?:and\s+)?|\s+and\s+", text.strip().rstrip(".")), "commas")
        elif split_commas and text and len([ln for ln in text.splitlines() if ln.strip()]) > 1:
            found = ParsedList([ln for ln in text.splitlines() if ln.strip()], "plain lines")
        else:
            return ParsedList([], "none")
    items = [c for c in (_clean_item(i) for i in found.items) if c]
    return ParsedList(items, found.form if items else "none")


# -- environments ---------------------------------------------------------------------------------
def _norm(text: str) -> str:
    text = text.lower().replace("’", "'").replace("‘", "'")
    text = re.sub(r"[^a-z0-9' ]+", " ", text)
    return " ".join(text.replace("'", "").split())


@dataclass
class EnvironmentMatch:
    selected: list[str]
    unknown: list[str] = field(default_factory=list)
    duplicates: int = 0
    extra: list[str] = field(default_factory=list)


def _match_one(item: str, by_norm: dict[str, str]) -> list[str]:
    key = _norm(item)
    if not key:
        return []
    if key in by_norm:
        return [by_norm[key]]
    prefixed = [n for n in by_norm if key.startswith(n + " ")]  # "Farm - because ..." -> "Farm"
    if prefixed:
        return [by_norm[max(prefixed, key=len)]]
    if len(key) >= 4:
        starting = [n for n in by_norm if n.startswith(key + " ")]  # "Fishing boat" -> "Fishing boat at dawn"
        if len(starting) == 1:
            return [by_norm[starting[0]]]
    # "B: Medical, hospital emergency room at night, ...": names inside the item, longest first, not overlapping
    found: list[tuple[int, str]] = []
    padded = f" {key} "
    for name in sorted(by_norm, key=len, reverse=True):
        at = padded.find(f" {name} ")
        if at != -1 and len(name.split()) >= 2:
            padded = padded[:at] + " " + "#" * len(name) + " " + padded[at + len(name) + 2:]
            found.append((at, by_norm[name]))
    return [name for _, name in sorted(found)]


def match_environments(items: list[str], environments: list[str], limit: int | None = None) -> EnvironmentMatch:
    """Map list items to environment names (see module docstring)."""
    by_norm = {_norm(e): e for e in environments}
    out = EnvironmentMatch(selected=[])
    chosen: list[str] = []
    for item in items:
        names = _match_one(item, by_norm)
        if not names:
            out.unknown.append(item)
        for name in names:
            if name in chosen:
                out.duplicates += 1
            else:
                chosen.append(name)
    cut = len(chosen) if limit is None else limit
    out.selected, out.extra = chosen[:cut], chosen[cut:]
    return out


# -- questions ------------------------------------------------------------------------------------
_LABEL = re.compile(r"^(?:question\s*\d*|q\d+)\s*[:.)\-–]\s*", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"^(?:<[^>]*>|\.\.\.|…|question(?:\s*\d+)?|your question here|n/?a)$", re.IGNORECASE)


@dataclass
class QuestionParse:
    questions: list[str]
    rejected: list[tuple[str, str]]
    form: str

    @property
    def n_parsed(self) -> int:
        return len(self.questions) + len(self.rejected)


def question_key(question: str) -> str:
    """What two questions must share to count as the same question."""
    return _norm(question)


def parse_questions(text: str, seen: set[str] | None = None) -> QuestionParse:
    """Valid new questions of a generator reply; rejected items with their reasons."""
    parsed = parse_list(text)
    seen = set(seen or ())
    good: list[str] = []
    rejected: list[tuple[str, str]] = []
    for item in parsed.items:
        question = _LABEL.sub("", item).strip()
        words = question.split()
        if _PLACEHOLDER.match(question) or not re.search(r"[A-Za-z]", question):
            rejected.append((item, "placeholder"))
        elif question.endswith(":"):
            rejected.append((item, "heading"))
        elif len(words) < 4:
            rejected.append((item, "fewer than 4 words"))
        elif len(question) > 1000:
            rejected.append((item, "longer than 1000 characters"))
        elif question_key(question) in seen:
            rejected.append((item, "repeated"))
        else:
            seen.add(question_key(question))
            good.append(question)
    return QuestionParse(good, rejected, parsed.form)


# -- score examples -------------------------------------------------------------------------------
_SCORE_HEAD = re.compile(
    r"(?:^|(?<=[\s>#*_\"(\[]))\**\s*(score)\s*(?:=\s*)?([1-5])\s*\**\s*[:)\-–—]\s*\**", re.IGNORECASE)
_RESPONSE_LABEL = re.compile(r"^\s*(?:\**\s*(?:example\s+)?response\s*\**\s*[:\-–—]\s*\**)", re.IGNORECASE)
_EX_PLACEHOLDER = re.compile(r"^(?:<[^>]*>|\.\.\.|…|response|-+|n/?a)?$", re.IGNORECASE)


@dataclass
class ExamplesParse:
    examples: dict[str, str]
    reason: str | None = None

    @property
    def valid(self) -> bool:
        return self.reason is None

    @property
    def missing(self) -> list[int]:
        return [s for s in SCORES if str(s) not in self.examples]


def _clean_example(text: str) -> str:
    text = _RESPONSE_LABEL.sub("", text.strip())
    text = re.sub(r"[\s\-–—=_*]+$", "", text)  # separators before the next section
    text = re.sub(r"^[\s*_]+", "", text)
    text = " ".join(text.split())
    if len(text) >= 2 and text[0] in "\"“'" and text[-1] in "\"”'":
        text = text[1:-1].strip()
    return text


def _usable(example: str) -> bool:
    return not _EX_PLACEHOLDER.match(example) and len(re.findall(r"[^\W\d_]", example)) >= 3


def _examples_from_json(text: str) -> dict[str, str]:
    start, end = text.find("{"), text.rfind("}")
    doc = _literal(text[start:end + 1]) if 0 <= start < end else None
    out: dict[str, str] = {}
    if isinstance(doc, dict):
        for key, value in doc.items():
            m = re.fullmatch(r"\s*(?:score\s*)?([1-5])\s*", str(key), re.IGNORECASE)
            if m and isinstance(value, str) and _usable(_clean_example(value)):
                out[m.group(1)] = _clean_example(value)
    return out


def _is_head(text: str, head: re.Match[str]) -> bool:
    """'Score k:' starts a section when capitalised or first on its line (not 'a low score 2: ...' in prose)."""
    line_start = text.rfind("\n", 0, head.start(1)) + 1
    return head.group(1)[0] == "S" or not re.sub(r"[\s>#*_\-]", "", text[line_start:head.start(1)])


def parse_score_examples(text: str) -> ExamplesParse:
    """One example response per score 1-5 (see module docstring)."""
    text = _FENCE.sub("\n", text or "")
    heads = [h for h in _SCORE_HEAD.finditer(text) if _is_head(text, h)]
    found: dict[str, str] = {}
    for i, head in enumerate(heads):
        body = text[head.end(): heads[i + 1].start() if i + 1 < len(heads) else len(text)]
        example = _clean_example(body)
        if _usable(example):
            found[head.group(2)] = example
    if len(found) < len(SCORES):
        from_json = _examples_from_json(text)
        if len(from_json) > len(found):
            found = from_json
    examples = {str(s): found[str(s)] for s in SCORES if str(s) in found}
    missing = [s for s in SCORES if str(s) not in examples]
    if not heads and not examples:
        return ExamplesParse({}, "no 'Score k:' sections")
    if missing:
        return ExamplesParse(examples, f"no example for score {', '.join(map(str, missing))}")
    return ExamplesParse(examples)


# -- grades ---------------------------------------------------------------------------------------
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "zero": 0, "six": 6}
_NUM = r"(-?\d+(?:\.\d+)?|one|two|three|four|five|zero|six|n/?a)"
_FINAL = re.compile(
    r"final\s+(?:score|grade|rating|verdict)\s*(?:for\s+this\s+response\s*)?"
    r"(?:is|of|:|=|-|–|—|would\s+be|will\s+be|should\s+be|i\s+give\s+is|given\s+is|assigned\s+is)?\s*[:\-–—]?\s*"
    r"(?:a\s+|an\s+)?[\[(]?\s*"
    + _NUM + r"\b(?:\s*(?:(?:/|out\s+of)\s*(\d+)|(?:-|–|to|or)\s*(\d+(?:\.\d+)?)))?",
    re.IGNORECASE,
)
# "the final score is one that reflects ... 3": "one" is a pronoun there; the score is the number later in the sentence
_FINAL_ONE_THAT = re.compile(
    r"final\s+(?:score|grade|rating)\s+(?:is|would\s+be|will\s+be|should\s+be)\s+(?:one|a\s+(?:score|grade|rating))\s+"
    r"(?:that|which|where|of)\b[^.\n]*?\b(\d+(?:\.\d+)?)\b(?:\s*(?:(?:/|out\s+of)\s*(\d+)))?()",
    re.IGNORECASE,
)
_PRONOUN_ONE = re.compile(r"\s+(?:that|which|where|who|of)\b", re.IGNORECASE)
_SCALE = r"(?:\s*(?:/|out\s+of)\s*(\d+))?"
# a "Score: N" line anywhere ("**Score: 5**" first, then the explanation), or "the score is N"
_SCORE_LINE = re.compile(r"(?:^[ \t>\-•]*(?:the\s+)?(?:overall\s+|total\s+)?(?:score|grade|rating)\s*(?:[:=]|[-–—](?=\s*\d))|\bthe\s+(?:overall\s+)?"
                         r"(?:score|grade|rating)(?:\s+for\s+(?:the|this)\s+[\w ]{1,30}?)?\s+(?:is|would\s+be|will\s+be))"
                         r"\s*[\[(]?\s*" + _NUM + r"\b" + _SCALE,
                         re.IGNORECASE | re.MULTILINE)
# a score given in a sentence: "I would rate this response 4 out of 5", "deserves a score of 4", "earns a 5", "4/5"
_SCORE_PHRASE = re.compile(
    r"(?:\b(?:rate|score|grade|give|assign|award)(?:s|d)?\s+(?:it|this(?:\s+response)?|the\s+response|the\s+answer)?\s*"
    r"(?:an?\s+)?(?:(?:solid|strong|clear|high|low|firm|fair)\s+)?|\b(?:deserves|earns|merits|gets|receives|warrants)\s+"
    r"(?:an?\s+)?(?:(?:solid|strong|clear|high|low|firm|fair)\s+)?)"
    r"(?:(?:(?:final|overall)\s+)?(?:score|rating|grade)\s+of\s+(\d+(?:\.\d+)?)\b" + _SCALE
    + r"|(\d+(?:\.\d+)?)\b(?:\s*(?:/|out\s+of)\s*(\d+)|(?=\s*(?:[.!,;)\n]|$|points?\b))))"
    r"|\b(\d+(?:\.\d+)?)\s*(?:/|out\s+of)\s*(\d+)\b",
    re.IGNORECASE)
# the reply, or its last line, is the number alone ("4", "**4**", "4.", "(3)", "[4]")
_BARE_GRADE = re.compile(r"\s*+[\[(]?\s*+(\d++(?:\.\d++)?)\s*+[\])]?\s*+\.?\s*+")
# a line naming a criterion and its grade alone ("Coherence: 2", "Persona consistency - 4/5")
_CRITERION_LINE = re.compile(r"^[ \t>\-•]*+[A-Za-z][A-Za-z' \-]{1,40}?[ \t]*(?::|=|[ \t][-–—])[ \t]*+[\[(]?[ \t]*+"
                             r"(\d++(?:\.\d++)?)[ \t]*+[\])]?[ \t]*+(?:(?:/|out\s+of)[ \t]*+(\d++))?[ \t]*+\.?[ \t]*+$",
                             re.MULTILINE | re.IGNORECASE)
# a score leading the reply, its reasoning after it ("3 - the response is partially aligned", "4/5: consistent")
_LEADING_GRADE = re.compile(r"\s*+[\[(]?[ \t]*+(\d(?:\.\d++)?)[ \t]*+[\])]?[ \t]*+(?:(?:/|out\s+of)[ \t]*+(\d++))?[ \t]*+"
                            r"(?:[-–—:.]|\n)\s*+[A-Za-z]")


@dataclass
class Grade:
    score: float | None
    reason: str | None = None

    @property
    def valid(self) -> bool:
        return self.score is not None


def _value(token: str) -> float | None:
    token = token.lower()
    if token in _WORDS:
        return float(_WORDS[token])
    try:
        return float(token)
    except ValueError:
        return None


def _final(clean: str) -> tuple[str, str | None, str | None] | None:
    """The last "final score is N" sentence as (N, scale, range upper), if any."""
    ones = list(_FINAL_ONE_THAT.finditer(clean))
    taken = [range(m.start(), m.end()) for m in ones]
    plain = [m for m in _FINAL.finditer(clean) if not any(m.start() in r for r in taken)
             and not (m.group(1).isalpha() and _PRONOUN_ONE.match(clean, m.end()))]
    matches = sorted(plain + ones, key=lambda m: m.start())
    if not matches:
        return None
    m = matches[-1]
    return m.group(1), m.group(2), m.group(3) or None


def _agreeing(found: list[tuple[str, str | None]], what: str) -> tuple[str, str | None, None] | Grade | None:
    """One score when every mention agrees; invalid (ambiguous) when they differ; None when there is none."""
    values = {(_value(t), scale) for t, scale in found}
    if not values:
        return None
    if len(values) > 1:
        named = ", ".join(t + (f"/{s}" if s else "") for t, s in dict.fromkeys(found))
        return Grade(None, f"ambiguous: {what} give different scores ({named})")
    token, scale = found[-1]
    return token, scale, None


def _json_grade(text: str) -> tuple[str, str | None, str | None] | Grade | None:
    """A JSON reply's score (``{"reasoning": ..., "score": 4}``, ``--answer-format json``); None when the reply holds no
    JSON object with a score."""
    obj = extract_fields(text or "")  # an object cut after its score keeps it
    if not isinstance(obj, dict):
        return None
    value = next((v for k, v in obj.items() if str(k).lower() in ("score", "final_score", "grade", "rating")), None)
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return str(value), None, None
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(?:/\s*(\d+))?\s*", str(value))
    return (m.group(1), m.group(2), None) if m else Grade(None, f"final score '{value}' is not a number")


#: "the final score is N" in German, French, Spanish and Chinese, in the English words the rules read
_FOREIGN_FINAL = tuple((re.compile(p, re.IGNORECASE), e) for p, e in (
    (r"\b(?:die\s+)?(?:endgültige|abschließende|finale)\s+(?:punktzahl|bewertung|note|wertung)\s*(?:ist|lautet|beträgt)?", "final score is"),
    (r"\b(?:la\s+)?note\s+finale\s*(?:est(?:\s+de)?)?|\ble\s+score\s+final\s*(?:est(?:\s+de)?)?", "final score is"),
    (r"\b(?:la\s+)?(?:puntuación|calificación|nota)\s+final\s*(?:es(?:\s+de)?)?", "final score is"),
    (r"最终(?:得分|分数|评分|成绩)\s*(?:是|为|：|:)?\s*", "final score is "),
    (r"(\d)\s*分", r"\1"),
))


#: a score noun in 30 languages other than English, for the closing sentence of a reply in any of them ("Pertanto, il punteggio finale è
#: 3.", "따라서 최종 점수는 4점입니다.", "Bu nedenle, nihai puan 4'tür.", "لذلك، الدرجة النهائية هي 2.")
_SCORE_NOUN = re.compile(
    r"\b(?:punteggio|voto|valutazione|pontuação|nota|puntuación|calificación|puntaje|punktzahl|bewertung|wertung|"
    r"poäng|slutpoäng|betyg|poeng|karakter|cijfer|beoordeling|eindscore|puan|skor|puanı|điểm|nilai|wynik|ocena|"
    r"hodnocení|skóre|pontszám|scor|punctaj|pisteet|arvosana|оценка|балл|баллов|βαθμολογία|βαθμός)\b"
    r"|अंक|स्कोर|الدرجة|النتيجة|التقييم|ציון|คะแนน|スコア|点数|得点|評価|分数|得分|评分|점수|평점",
    re.IGNORECASE)
_CLOSING_NUMBER = re.compile(r"(?<![\dA-Za-z.,])(\d+(?:[.,]\d+)?)(?:\s*/\s*(\d+))?(?![.,]?\d)")


def _closing_score(clean: str) -> tuple[str, str | None, None] | None:
    """The score of a reply's closing sentence when it names a score (``_SCORE_NOUN``, any of 30 languages) and holds
    exactly one number ("N/5" counts as one) and ends as a sentence does (a reply cut mid-sentence gives none): the
    rubric's asked sentence in another language (English has its own rules above). None otherwise."""
    lines = [ln.strip() for ln in clean.splitlines() if ln.strip()]
    if not lines:
        return None
    last = re.split(r"(?<=[.!?。！？])\s+", lines[-1])[-1]
    numbers = _CLOSING_NUMBER.findall(last)
    if len(numbers) != 1 or not _SCORE_NOUN.search(last) or not re.search(r"[.!。！]\W*$", last):
        return None
    token, scale = numbers[0]
    return token.replace(",", "."), scale or None, None


def parse_grade(text: str) -> Grade:
    """The evaluator's final score in [1, 5], or invalid with a reason (see module docstring). The shared rules of
    ``analysis.reading`` first (the final part after a self-correction: a revised JSON object or a second "final score";
    a score taken back with none after it; a refusal, a hedge; "not English"), then, on the final part, in order: the
    last "final score is N" sentence (also German, French, Spanish, Chinese: "die endgültige Punktzahl ist 4", "la
    note finale est 5", "la puntuación final es 3", "最终得分是4分"); else "Score: N" lines (all agreeing); else scores
    given in sentences ("I would rate this 4 out of 5", "deserves a score of 4", "4/5"; all agreeing); else a reply or
    last line that is a number alone; else a closing sentence that names a score in any of 30 languages and holds one
    number (``_closing_score``)."""
    return read_final(text or "", _grade, lambda g: g.valid, lambda why: Grade(None, why),
                      key=lambda g: g.score)


def _grade(text: str) -> Grade:
    clean = re.sub(r"[*_`#]", "", text or "").replace("：", ":")
    for pattern, english in _FOREIGN_FINAL:
        clean = pattern.sub(english, clean)
    found: tuple[str, str | None, str | None] | Grade | None = _json_grade(text) or _final(clean)
    if found is None:
        found = _agreeing([(m.group(1), m.group(2)) for m in _SCORE_LINE.finditer(clean)], "the 'Score:' lines")
    if found is None:
        found = _agreeing([next((m.group(i), m.group(i + 1)) for i in (1, 3, 5) if m.group(i))
                           for m in _SCORE_PHRASE.finditer(clean)], "the sentences")
    if found is None:
        lines = [ln for ln in clean.splitlines() if ln.strip()]
        bare = _BARE_GRADE.fullmatch(lines[-1]) if lines else None
        found = (bare.group(1), None, None) if bare else None
    if found is None:
        found = _agreeing([(m.group(1), m.group(2)) for m in _CRITERION_LINE.finditer(clean)], "the criterion lines")
    if found is None:
        found = _closing_score(clean)
    if found is None and (lead := _LEADING_GRADE.match(clean)) is not None:
        found = (lead.group(1), lead.group(2), None)
    if found is None:
        return Grade(None, "no 'final score is N' sentence")
    if isinstance(found, Grade):
        return found
    token, scale, upper = found
    value = _value(token)
    if value is None:
        return Grade(None, f"final score '{token}' is not a number")
    if upper is not None:
        return Grade(None, f"final score is a range ({token}-{upper})")
    if scale is not None and whole_number(scale) != 5:
        return Grade(None, f"final score on another scale ({token}/{scale})")
    if not 1 <= value <= 5:
        return Grade(None, f"final score {token} out of range 1-5")
    if value != int(value):  # the rubric grades in whole points: "3.5" is between two of its descriptions
        return Grade(None, f"final score {token} is not a whole grade: the rubric's scale is 1-5 in whole points")
    return Grade(value)


# -- refusals -------------------------------------------------------------------------------------
# "As an AI, I ..." but not "As an AI researcher, I ..." or "As an assistant coach, ...": the marker must end its
# phrase (punctuation, end, or a word that continues the sentence, never a noun naming a job)
_MARKER_END = (r"(?=\s*(?:[,.;:!?)\]]|$)|\s+(?:i|i'm|and|so|but|or|developed|created|trained|made|built|designed|by|"
               r"without|that|who|with|like|myself|here|cannot|can't|don't|do|am|have|lack|role-?playing|playing|"
               r"pretending|simulating|writing|answering|responding|speaking|acting|not|only|in the (?:persona|role|"
               r"voice))\b)")
_REFUSAL_ANYWHERE = re.compile(
    r"\bas an? (?:(?:helpful|friendly|responsible|honest|harmless) )?(?:ai (?:language )?model|ai assistant|"
    r"artificial intelligence|large language model|language model|llm|ai|virtual assistant|assistant|chatbot)"
    + _MARKER_END + r"|\bi(?:'m| am) (?:just |only )?an? (?:ai (?:language )?model|"
    r"ai assistant|artificial intelligence|large language model|language model|ai|chatbot|virtual assistant|assistant)"
    + _MARKER_END
    + r"|\bi(?:'m| am) not a real person\b"
    # refusing the role itself, or saying the answer is only a role-play
    r"|\bi(?:'m| am) not (?:going|willing|able) to (?:pretend|play|act) (?:to be|as) (?:someone|somebody|a person|this|that)\b"
    r"|\bi (?:won't|will not|can't|cannot|refuse to|don't want to) (?:pretend|play|act) (?:to be|as) (?:someone|somebody|"
    r"a person|this|that)\b"
    r"|\bi(?:'d| would) rather not (?:play|pretend to be|act as|portray|voice|take on) (?:this|that|the|a|an)\b"
    r"|\beven (?:as|in) (?:a )?(?:fiction|story|role-?play|hypothetical)\b|\beven fictionally\b"
    r"|\bhere(?:'s| is) (?:a |my )?(?:response|reply|answer) (?:as|in the voice of|from|written as) (?:the |this |that |your )?"
    r"(?:persona|character)\b"
    r"|\bhere(?:'s| is) how (?:the |this |that |your |my )?(?:persona|character|he|she|they) (?:might|would|could|will) "
    # "Here's how a 71-year-old retired truck driver might respond:" (a narrator, not the persona)
    r"|\bhere(?:'s| is) how (?:an?|the|this|that|such an?) [\w' -]{1,60}? (?:might|would|could) (?:respond|answer|reply|"
    r"react|say|put it)\b"
    r"|\bi(?:'m| am) not (?:going|willing|able|comfortable) to pretend to (?:hold|have|share|agree)\b"
    r"|\bi (?:won't|will not|can't|cannot) pretend to (?:hold|have|share|agree)\b"
    r"|(?:抱歉|对不起)[，,\s]*我(?:无法|不能)(?:满足|完成|协助|提供|回答)|申し訳(?:ありません|ございません)[がけど、,\s]*"
    r"(?:その|この)?(?:ご)?(?:依頼|リクエスト|要求)(?:には|に)(?:お応え|応じ)"
    r"(?:respond|reply|answer|react|say|put it)\b"
    r"|\beven in (?:a |this )?(?:role-?play|character)\b|\bi understand (?:that )?this is (?:just |only )?a role-?play\b"
    r"|\b(?:breaking|break|stepping out of|step out of|out of) (?:the |my )?character\b|\bas the persona,? i would\b"
    # AI disclaimers in German, French, Spanish and Chinese
    r"|\bals (?:eine? )?(?:ki|ki-sprachmodell|sprachmodell|künstliche intelligenz|ki-assistent|ki-modell)\b"
    r"|\bich bin (?:nur )?(?:eine? )?(?:ki|ki-sprachmodell|sprachmodell|künstliche intelligenz|ki-assistent)\b"
    r"|\ben tant qu['e] ?(?:intelligence artificielle|ia|assistant(?:e)?(?: virtuel)?|modèle de langage|ia conversationnelle)\b"
    r"|\bje suis (?:une? )?(?:intelligence artificielle|ia|modèle de langage|assistant virtuel)\b"
    r"|\bcomo (?:una? )?(?:modelo de lenguaje|ia|inteligencia artificial|asistente virtual|asistente de ia)\b"
    r"|\bsoy (?:una? )?(?:modelo de lenguaje|ia|inteligencia artificial|asistente virtual)\b"
    r"|作为(?:一个|一名|一款)?(?:人工智能|ai|语言模型|ai助手|人工智能助手|大语言模型)|我(?:只)?是(?:一个|一款)?(?:人工智能|ai|语言模型|ai助手)"
    # … Italian, Portuguese, Dutch, Swedish, Polish, Turkish, Russian, Greek, Indonesian, Vietnamese, Hindi, Arabic,
    # Japanese and Korean ("as an AI / a language model", "I am an AI")
    r"|\bcome (?:un |una |un')?(?:intelligenza artificiale|ia|ai|modello (?:linguistico|di linguaggio)|assistente "
    r"(?:virtuale|ai|ia))\b|\bsono (?:solo |soltanto )?(?:un |una |un')?(?:intelligenza artificiale|ia|ai|modello "
    r"(?:linguistico|di linguaggio)|assistente virtuale)\b"
    r"|\bcomo (?:um |uma )?(?:modelo de linguagem|ia|inteligência artificial|assistente (?:virtual|de ia))\b"
    r"|\bsou (?:apenas |só )?(?:um |uma )?(?:modelo de linguagem|ia|inteligência artificial|assistente virtual)\b"
    r"|\bals (?:een )?(?:ai|ai-taalmodel|taalmodel|kunstmatige intelligentie|ai-assistent)\b"
    r"|\bik ben (?:maar |slechts |alleen )?(?:een )?(?:ai|ai-taalmodel|taalmodel|kunstmatige intelligentie|ai-assistent)\b"
    r"|\bsom (?:en )?(?:ai|ai-assistent|språkmodell|artificiell intelligens)\b"
    r"|\bjag är (?:bara |endast )?(?:en )?(?:ai|ai-assistent|språkmodell|artificiell intelligens)\b"
    r"|\bjako (?:model językowy|sztuczna inteligencja|ai|asystent ai|asystent sztucznej inteligencji)\b"
    r"|\bjestem (?:tylko |jedynie )?(?:modelem językowym|sztuczną inteligencją|ai|asystentem ai)\b"
    r"|\bbir (?:yapay zek[aâ]|dil modeli)(?: asistanı)? olarak\b|\b(?:ben )?(?:sadece )?bir (?:yapay zek[aâ]|dil modeli)"
    r"(?: asistanıyım|yım|yim|ım|im)\b"
    r"|\bкак (?:языковая модель|ии|искусственный интеллект|ии-ассистент|модель ии|ассистент ии)\b"
    r"|\bя (?:всего лишь |лишь |просто |только )?(?:языковая модель|ии|искусственный интеллект|ии-ассистент)\b"
    r"|\bως (?:ένα )?(?:γλωσσικό μοντέλο|τεχνητή νοημοσύνη|ai|μοντέλο τεχνητής νοημοσύνης)"
    r"|\bείμαι (?:απλώς |μόνο )?(?:ένα )?(?:γλωσσικό μοντέλο|τεχνητή νοημοσύνη|ai|μοντέλο τεχνητής νοημοσύνης)"
    r"|\bsebagai (?:sebuah |seorang )?(?:model bahasa|kecerdasan buatan|ai|asisten ai)\b"
    r"|\bsaya (?:hanyalah |hanya |adalah )?(?:sebuah )?(?:model bahasa|kecerdasan buatan|ai|asisten ai)\b"
    r"|\b(?:là|với tư cách là) (?:một )?(?:mô hình ngôn ngữ|trí tuệ nhân tạo|ai|trợ lý ai)"
    r"|(?:एक )?(?:एआई|ai|भाषा मॉडल|कृत्रिम बुद्धिमत्ता)(?: सहायक)? (?:के रूप में|होने के नाते)|मैं (?:सिर्फ़? |केवल )?(?:एक )?"
    r"(?:एआई|ai|भाषा मॉडल|कृत्रिम बुद्धिमत्ता)"
    r"|بصفتي (?:نموذج|ذكاء|مساعد)|كنموذج لغوي|كذكاء اصطناعي|أنا (?:مجرد |فقط )?(?:نموذج لغوي|ذكاء اصطناعي|مساعد ذكي)"
    r"|(?:ai|ＡＩ|人工知能|言語モデル)(?:アシスタント)?(?:なので|として|です|であり|ですので|のため)"
    r"|(?:ai|인공지능|언어 ?모델)(?: 언어 ?모델| 어시스턴트)?(?:이라서|라서|으로서|로서|입니다|이기 때문에|이므로)"
    r"|\bi(?:'m| am) [A-Z][\w-]*, an? (?:ai|artificial intelligence|large language model|language model)"
    r"(?: assistant| model)?\b",
    re.IGNORECASE,
)
_REFUSAL_OPENING = re.compile(
    r"\bi (?:cannot|can't|can not|won't|will not|am unable to|'m unable to|am not able to|'m not able to|must decline to|"
    r"have to decline to) (?:help(?!\s+(?:but\b|it\b|myself\b|\w+ing\b))|assist|provide|fulfil|fulfill|comply|engage|create|generate|"
    r"write|answer|role-?play|"
    r"pretend|adopt|take on|participate|respond|continue|share personal|speak for|do that|play)\b"
    r"(?![^.!?\n]{0,25}\bwithout\b)"
    r"|\bi (?:do not|don't) (?:feel comfortable|have personal|have (?:any )?(?:personal )?(?:experiences|opinions|feelings|"
    r"a physical body|a body))\b|\bi(?:'m| am) not comfortable\b"
    r"|\bi must decline\b",
    re.IGNORECASE,
)


#: a reason the persona gives for declining, in its own life ("I've never been to Tokyo", "I'm a retired judge", "that
#: is not what a shepherd does", "my patients"): a decline *as the persona*, which is no stepping out of the role
_PERSONA_REASON = re.compile(
    r"\bi(?:'ve| have)? never\b|\bi(?:'d| would) (?:only|just) be guessing\b"
    r"|\bnot what (?:an?|the|any) [a-z]+(?: [a-z]+){0,4} (?:does|do|would do|should do)\b"
    r"|\bi(?:'m| am) (?:just |only |still )?(?:an? |the )(?!(?:ai|artificial|language|large|assistant|chatbot|virtual|"
    r"model|llm|bot)\b)(?:retired |former |old |young )?[a-z-]+"
    r"|\bmy (?:wife|husband|family|job|work|patients|flock|sheep|kids|children|faith|church|congregation|parish|customers|"
    r"clients|students|boss|mother|father|ex-wife|ex-husband|ex|trade|oath|profession|village|town)\b"
    r"|\bnot my (?:place|business|area|department|story)\b|\bin my (?:line of work|trade|job|experience|profession)\b",
    re.IGNORECASE)
#: words of the assistant, not of a persona: a decline with them steps out of the role
_OUT_OF_ROLE = re.compile(r"\b(?:ai|artificial intelligence|language model|assistant|role-?play\w*|persona|character|"
                          r"pretend\w*|request|guidelines|polic(?:y|ies)|content)\b", re.IGNORECASE)


def _in_character(text: str, m: re.Match[str]) -> bool:
    """An opening decline whose sentence and the next two give a reason from the persona's life, in the persona's
    words only (no assistant's words): the persona declines, it does not step out."""
    window = " ".join(re.split(r"(?<=[.!?])\s+", text[m.start():].strip())[:3])
    return bool(_PERSONA_REASON.search(window)) and not _OUT_OF_ROLE.search(window)


#: a disclaimer quoted as someone else's words ("It said, 'As an AI language model, I cannot help you.'"): reported
#: speech inside the persona's answer, not the answer stepping out
_REPORTED = re.compile(r"\b(?:said|says|told\s+(?:me|us|him|her)|replied|replies|wrote|writes|answered|goes|went)\s*,?\s*"
                       r"(?:\"[^\"\n]*\"|“[^”\n]*”|«[^»\n]*»|'[^\n]*?'(?=[\s.,!?;:]|$))", re.IGNORECASE)


def detect_refusal(text: str) -> str | None:
    """The marker of a reply that steps out of the persona (lower case), else None: an AI or assistant disclaimer in
    any of English, German, French, Spanish, Chinese; refusing the role or saying the answer is only a role-play
    ("I'm not going to pretend to be someone who…", "I understand this is a role-play, but…", "(Note: I'm an AI
    assistant role-playing…)"); or a generic opening refusal (first 300 characters). An opening decline that gives
    the persona's own reason ("I won't discuss that — I'm a retired judge", "I can't help you there, I've never been
    to Tokyo") is the persona declining, not stepping out (``detect_decline``); a disclaimer quoted as someone else's
    words ("It said, 'As an AI …'") is reported speech, not stepping out."""
    text = (text or "").replace("’", "'")
    text = _REPORTED.sub(lambda q: " " * len(q.group(0)), text)
    m = _REFUSAL_ANYWHERE.search(text)
    if m is None:
        m = _REFUSAL_OPENING.search(text[:300])
        if m is not None and _in_character(text, m):
            m = None
    return " ".join(m.group(0).lower().split()) if m else None


_ROLE_REFUSAL = re.compile(
    r"\bi(?:'m| am) not (?:going|willing|able) to (?:pretend|play|act) (?:to be|as)\b|\bi (?:won't|will not|can't|cannot|"
    r"refuse to|don't want to) (?:pretend|play|act) (?:to be|as)\b|\bi understand (?:that )?this is (?:just |only )?a "
    r"role-?play,? but\b|\beven in (?:a |this )?(?:role-?play|character)\b", re.IGNORECASE)


def declines(text: str) -> bool:
    """The reply declines what was asked (an opening "I can't / won't …" decline, or a refusal of the role), in or out
    of character; the other axis of the role table (``role_table``) is whether it steps out (``detect_refusal``)."""
    text = (text or "").replace("’", "'")
    return bool(_REFUSAL_OPENING.search(text[:300]) or _ROLE_REFUSAL.search(text))


def detect_decline(text: str) -> str | None:
    """The marker of a reply that declines *as the persona* (an opening decline with the persona's own reason and no
    assistant's words), else None; never together with ``detect_refusal``."""
    text = (text or "").replace("’", "'")
    if _REFUSAL_ANYWHERE.search(text):
        return None
    m = _REFUSAL_OPENING.search(text[:300])
    return " ".join(m.group(0).lower().split()) if m is not None and _in_character(text, m) else None
