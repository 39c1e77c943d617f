"""Free text -> structured answers (the paper's App. E: regex for scalars, pydantic for structures).

Amounts (``extract_amount``): only a stated decision counts: the answer marker the prompt asks for
("Amount: $4", "ACTION: Send $4", "Final answer: 4"), else a first-person decision phrase with "$"
or "dollars" ("I will send $3", "I'll send 3 dollars and keep 7"), or to send nothing ("I will not
send anything"). Different decided amounts are ambiguous; an echoed template ("Amount: $X") or a
reply cut off before its decision is invalid; a negative, a fraction ("$4.50") or more than E
("$12" with E = 10) is invalid. No other number in the reply is ever taken for the amount: not a
number in an expression ("amount = 10 * max(1, 10)" in code), nor a marker quoted inside a sentence
('the last line is: "Amount: $10" is what you get'), both seen in the demo's replies.

Structures (``extract_json`` + pydantic): the first JSON object in the reply, looked for in
```code fences``` first, then anywhere (prose around it is ignored; trailing commas are
forgiven). Beliefs name attribute levels; a level matches after normalising case, dashes,
apostrophes and spacing, or as the only level containing (or contained in) the text.
Whatever fails is invalid with a reason; nothing is ever filled in.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from analysis.methods.trust import DOLLAR_STRATEGY

# -- amounts ----------------------------------------------------------------------------------
_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split())}
# a number followed by an arithmetic operator or a range ("10 * max(1, 10)", "$5-$6") is part of an expression
_NOT_EXPRESSION = r"(?![\d.,]*\s*(?:[*×/+^=]|-\s*\$?\d))"
_AMOUNT = (r"(?P<neg>-\s*)?(?:\$\s*(?P<num>\d[\d,]*(?:\.\d+)?)" + _NOT_EXPRESSION +
           r"|(?P<bare>\d[\d,]*(?:\.\d+)?)(?=\s*(?:dollars?|bucks)\b)"
           r"|(?P<word>" + "|".join(_WORDS) + r")(?=\s+dollars?\b))")
_PLACEHOLDER = r"(?:\$\s*[A-Za-z]\b|\[[^\]\n]{1,30}\]|<[^>\n]{1,30}>|\$?\s*_{2,}|\$?\s*\.{3})"
_MARK = r"\b(?:amount(?:\s+(?:sent|to\s+send))?|action|final\s+answer|decision)\s*[:=]\s*(?:send\s*)?"
_MARKER = re.compile(_MARK + r"(?:" + _AMOUNT + r"|(?P<plain>\d[\d,]*(?:\.\d+)?)(?![\d.,]*\s*%)(?!\w)" + _NOT_EXPRESSION + ")",
                     re.IGNORECASE)
_QUOTES = "\"'“‘«"
# after a quoted marker: its closing quote, punctuation, the end of the line (then it is the reply's answer line)
_QUOTE_ENDS_LINE = re.compile(r"\s*[\"'”’»]\s*[.!]?\s*(?:\n|$)")
_MARKER_PLACEHOLDER = re.compile(_MARK + _PLACEHOLDER, re.IGNORECASE)
_SUBJECT = (r"(?<!\bif )(?<!\bwhen )(?<!\bshould )\bI(?:'ll|'m|'d| will| would| am| shall| have| decided| decide| choose| chose"
            r"| plan| want| intend| think I'll| made (?:a|the|my) decision| make (?:a|the|my) decision)?"
            r"(?:\s+(?:like|going|decided|chosen|planning))?(?:\s+to)?\s+")
_SEND_PHRASE = re.compile(_SUBJECT + r"(?:send|sending|give|giving|transfer|transferring|invest|investing)\s+"
                          r"(?:only\s+|just\s+|all\s+|the\s+full\s+|exactly\s+)?(?:player\s+b\s+)?" + _AMOUNT, re.IGNORECASE)
_ZERO_PHRASE = re.compile(
    r"(?<!\bif )\bI(?:\s*(?:won't|will not|would not|wouldn't|do not|don't|shall not|am not going to|'m not going to|"
    r"(?:choose|chose|decide|decided|have decided) not to)\s+(?:send|give|transfer|invest)\s+(?:anything|any\s+money|"
    r"a\s+(?:single\s+)?(?:dollar|cent))|\s*(?:'ll|will|would|'d|decided to|choose to)?\s*(?:send|give|transfer|invest)\s+"
    r"(?:nothing|no\s+money|zero\b(?!\s+dollars?)))", re.IGNORECASE)


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
    end: int
    amount: str = ""  # the amount as written ("$4", "-$3", "five")


def _decisions(text: str) -> list[_Decision]:
    """Every stated decision: markers first (the format asked for), else first-person decision phrases."""
    def value(m: re.Match[str]) -> float | None:
        if m.group("neg"):
            return None
        if m.groupdict().get("word"):
            return float(_WORDS[m.group("word").lower()])
        raw = next(g for g in (m.groupdict().get(k) for k in ("num", "bare", "plain")) if g is not None)
        return float(raw.replace(",", ""))

    def written(m: re.Match[str]) -> str:
        groups = m.groupdict()
        if groups.get("word"):
            return groups["word"]
        digits = next(groups[k] for k in ("num", "bare", "plain") if groups.get(k) is not None)
        return f"{'-' if groups.get('neg') else ''}${digits}"

    markers = [_Decision("marker", value(m), m.group(0).strip(), m.end(), written(m)) for m in _MARKER.finditer(text)
               if not _mentioned(text, m)]
    if markers:
        return markers
    phrases = [_Decision("send phrase", value(m), m.group(0).strip(), m.end(), written(m))
               for m in _SEND_PHRASE.finditer(text)]
    phrases += [_Decision("zero phrase", 0.0, m.group(0).strip(), m.end(), "$0") for m in _ZERO_PHRASE.finditer(text)]
    return sorted(phrases, key=lambda d: d.end)


_TIMES = re.compile(r"(?<=[\d)])[ \t]*\*(?!\*)[ \t]*(?=[\d(A-Za-z_])")  # "10 * max(1, 10)", "3*4": multiplication


def _without_markdown(reply: str) -> str:
    """The reply without emphasis asterisks and backticks ("**Amount:** $2"); a multiplication sign is kept as "×"."""
    return _TIMES.sub(" × ", reply).replace("*", "").replace("`", "")


def _mentioned(text: str, m: re.Match[str]) -> bool:
    """A marker in quotation marks inside a sentence is mentioned, not stated ('So the last line is: "Amount: $10" is
    what you get.'); a quoted marker that ends its line is the reply's answer line."""
    before = text[:m.start()].rstrip(" ")
    return bool(before) and before[-1] in _QUOTES and _QUOTE_ENDS_LINE.match(text, m.end()) is None


def extract_amount(reply: str, endowment: int, finish_reason: str | None = None) -> ParsedAmount:
    r"""The amount a reply decides to send, or invalid with the reason; never a number the reply does not decide.

    A decision is an answer marker with a number ("Amount: $4", "ACTION: Send $4", "Final answer: 4"; the format the
    prompts ask for, so markers outrank everything else), else a first-person decision phrase with "$" or "dollars"
    ("I will send $3", "I'll send 3 dollars and keep 7" -> 3) or to send nothing ("I will not send anything" -> 0).
    Several decisions naming different amounts are ambiguous; a template echoed with its placeholder ("Amount: $X")
    decides nothing; a reply cut off by the length limit (``finish_reason`` "length") with no decision, or with its
    only decision at the cut, is truncated. The amount must then be a whole number in [0, endowment]; nothing is
    clipped or guessed (the reference's first-number regex ``\$?(\d+)`` would take "$1" from "Player B returned $1").
    """
    text = _without_markdown(reply)
    truncated = finish_reason == "length"
    found = _decisions(text)
    if truncated and found and found[-1].end >= len(text.rstrip()):
        found = found[:-1]  # "Amount: $1" may be the start of "$10"
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
                        r"\d+(?:\.\d+)?[ \t]*(?:dollars?|USD)?[ \t]*[.!]?", re.IGNORECASE)


def extract_first_integer(reply: str, endowment: int, finish_reason: str | None = None) -> ParsedAmount:
    """App. E's scalar extraction for a bare numeric answer: when the reply's first line is a bare number ("7", "$4",
    "Answer: 5", "3 dollars."), its first number (the paper's ``\\$?(\\d+)``), valid when a whole amount in
    [0, endowment]; a negative ("-3"), a fraction ("4.5") or a number above the endowment is invalid, and no later
    number is tried. A reply that is not a bare number is read only for a stated decision (``extract_amount``): on the
    embedded model's real replies ("To solve this problem ... tripled by 3 ..."), the first integer stored 3 for 39 of
    50 personas, none of which decided anything."""
    text = _without_markdown(reply)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and _BARE_LINE.fullmatch(lines[0]):
        if finish_reason == "length" and len(lines) == 1:
            return ParsedAmount(None, "truncated: the reply hit the length limit right after its number")
        m = _FIRST_NUMBER.search(lines[0])
        assert m is not None  # the bare line holds a number
        found = m.group(0)
        if m.group("neg") or m.group("frac"):
            return ParsedAmount(None, f"'{found}' is not a whole amount >= 0", "first integer", found)
        value = int(m.group("int"))
        if value > endowment:
            return ParsedAmount(None, f"'{found}' is outside [0, {endowment}]", "first integer", found)
        return ParsedAmount(value, None, "first integer", found)
    decided = extract_amount(reply, endowment, finish_reason)
    if decided.valid or not lines:
        return decided
    return ParsedAmount(None, f"not a bare number; {decided.reason}", decided.how, decided.text)


def _validated(decision: _Decision, endowment: int) -> ParsedAmount:
    how, found = decision.how, decision.amount
    if decision.value is None:
        return ParsedAmount(None, f"negative amount '{found}'", how, found)
    if decision.value != int(decision.value):
        return ParsedAmount(None, f"'{found}' is not a whole-dollar amount", how, found)
    amount = int(decision.value)
    if amount > endowment:
        return ParsedAmount(None, f"'{found}' is outside [0, {endowment}]", how, found)
    return ParsedAmount(amount, None, how, found)


# -- JSON -------------------------------------------------------------------------------------
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _first_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    for candidate in (text, _TRAILING_COMMA.sub(r"\1", text)):
        for i, ch in enumerate(candidate):
            if ch != "{":
                continue
            try:
                obj, _ = decoder.raw_decode(candidate, i)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                return obj
    return None


def extract_json(reply: str) -> dict[str, Any] | None:
    """The first JSON object in the reply: inside code fences first, else anywhere in the text."""
    for block in _FENCE.findall(reply):
        if (obj := _first_object(block)) is not None:
            return obj
    return _first_object(reply)


# -- levels -----------------------------------------------------------------------------------
def normalise(text: str) -> str:
    """Case-folded, NFKC, unified dashes/apostrophes, no spaces around '-', collapsed spaces, no trailing '.'."""
    t = unicodedata.normalize("NFKC", str(text)).casefold()
    t = re.sub(r"[\u2010-\u2015\u2212]", "-", t).replace("\u2019", "'").replace("\u2018", "'")
    t = re.sub(r"\s*-\s*", "-", t)
    t = re.sub(r"\s+", " ", t)
    return t.strip(" .;:")


def match_level(text: str, levels: tuple[str, ...] | list[str]) -> str | None:
    """The level ``text`` names: normalised equality, else the only level containing or contained in it."""
    t = normalise(text)
    norm = {normalise(level): level for level in levels}
    if t in norm:
        return norm[t]
    hits = [level for n, level in norm.items() if t and (t in n or n in t)]
    return hits[0] if len(hits) == 1 else None


def canonical_ranking(names: list[str], levels: tuple[str, ...] | list[str]) -> list[str]:
    """The ranking as canonical level names; ValueError unless it lists every level exactly once."""
    out: list[str] = []
    for name in names:
        level = match_level(name, levels)
        if level is None:
            raise ValueError(f"'{name}' is not one of the levels")
        if level in out:
            raise ValueError(f"'{level}' is listed twice")
        out.append(level)
    missing = [level for level in levels if level not in out]
    if missing:
        raise ValueError(f"missing levels: {missing}")
    return out


def _text(value: Any) -> Any:
    return value if isinstance(value, str) or value is None else json.dumps(value, ensure_ascii=False)


def _context(info: ValidationInfo, key: str) -> Any:
    if not info.context or key not in info.context:
        raise ValueError(f"validation context needs '{key}'")
    return info.context[key]


# -- schemas ----------------------------------------------------------------------------------
class TrustBelief(BaseModel):
    """NoCtx+Tr / Ctx+Tr reply: every level ranked from most to least trusting, the stated η², an explanation."""

    model_config = ConfigDict(extra="ignore")

    ranking: list[str]
    effect_size: float = Field(ge=0.0, le=1.0, validation_alias=AliasChoices("effect_size", "eta_squared", "eta2"))
    explanation: str = ""

    _explanation_text = field_validator("explanation", mode="before")(_text)

    @field_validator("ranking")
    @classmethod
    def _all_levels(cls, value: list[str], info: ValidationInfo) -> list[str]:
        return canonical_ranking(value, _context(info, "levels"))


class GroupEstimate(BaseModel):
    """Ctx+$: predicted mean and SD of dollars sent by one level."""

    model_config = ConfigDict(extra="ignore")

    level: str
    mean: float
    sd: float = Field(ge=0.0)


class DollarBelief(BaseModel):
    """Ctx+$ reply: a mean and SD for every level (means within [0, E]), an explanation."""

    model_config = ConfigDict(extra="ignore")

    groups: list[GroupEstimate]
    explanation: str = ""

    _explanation_text = field_validator("explanation", mode="before")(_text)

    @model_validator(mode="before")
    @classmethod
    def _mapping_form(cls, data: Any) -> Any:
        """Accept ``{"groups": {LEVEL: {"mean": m, "sd": s}}}`` as well as the list form."""
        if isinstance(data, dict) and isinstance(data.get("groups"), dict):
            groups = [{"level": k, **v} if isinstance(v, dict) else {"level": k, "mean": v}
                      for k, v in data["groups"].items()]
            data = {**data, "groups": groups}
        return data

    @model_validator(mode="after")
    def _all_levels(self, info: ValidationInfo) -> DollarBelief:
        levels, endowment = _context(info, "levels"), _context(info, "endowment")
        names = canonical_ranking([g.level for g in self.groups], levels)
        for group, name in zip(self.groups, names):
            if not 0 <= group.mean <= endowment:
                raise ValueError(f"mean {group.mean} for '{name}' is outside [0, {endowment}]")
            group.level = name
        return self


def _send(value: Any) -> Any:
    return value.strip().lstrip("$").strip() if isinstance(value, str) else value


class RoundForecast(BaseModel):
    """One forecast round: the round number (1-based), the whole dollars to send, why."""

    model_config = ConfigDict(extra="ignore")

    round: int = Field(ge=1)
    send: int
    explanation: str = ""

    _send_text = field_validator("send", mode="before")(_send)
    _explanation_text = field_validator("explanation", mode="before")(_text)


class ForecastSet(BaseModel):
    """The forecast for every round 1..R, each a whole amount in [0, E] (a bare list of amounts is accepted)."""

    model_config = ConfigDict(extra="ignore")

    forecasts: list[RoundForecast]

    @model_validator(mode="before")
    @classmethod
    def _bare_amounts(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("forecasts"), list):
            items = data["forecasts"]
            if items and all(not isinstance(v, dict) for v in items):
                data = {**data, "forecasts": [{"round": i, "send": v} for i, v in enumerate(items, 1)]}
        return data

    @model_validator(mode="after")
    def _every_round(self, info: ValidationInfo) -> ForecastSet:
        rounds, endowment = _context(info, "rounds"), _context(info, "endowment")
        got = sorted(f.round for f in self.forecasts)
        if got != list(range(1, rounds + 1)):
            raise ValueError(f"rounds {got}: expected each of 1..{rounds} once")
        for f in self.forecasts:
            if not 0 <= f.send <= endowment:
                raise ValueError(f"round {f.round}: ${f.send} is outside [0, {endowment}]")
        self.forecasts.sort(key=lambda f: f.round)
        return self


def _reason(exc: ValidationError) -> str:
    errors = exc.errors()
    first = errors[0]
    loc = ".".join(str(p) for p in first["loc"])
    msg = str(first["msg"]).removeprefix("Value error, ")
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"schema: {loc + ': ' if loc else ''}{msg}{more}"


# -- parsed results ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ParsedBelief:
    """A validated belief (ranking most -> least, stated η² or per-level means/SDs) or the reason it is invalid."""

    valid: bool
    reason: str | None = None
    ranking: list[str] | None = None
    effect_size: float | None = None
    groups: dict[str, tuple[float, float]] = field(default_factory=dict)
    explanation: str | None = None


def _no_json(finish_reason: str | None) -> str:
    if finish_reason == "length":
        return "truncated: the reply hit the length limit before its JSON object was complete"
    return "no JSON object in the reply"


def parse_belief(reply: str, strategy: str, levels: tuple[str, ...] | list[str], endowment: int,
                 finish_reason: str | None = None) -> ParsedBelief:
    """Validate a belief reply for ``strategy``; a Ctx+$ ranking orders levels by predicted mean (descending, stable)."""
    obj = extract_json(reply)
    if obj is None:
        return ParsedBelief(False, _no_json(finish_reason))
    context = {"levels": tuple(levels), "endowment": endowment}
    try:
        if strategy == DOLLAR_STRATEGY:
            belief = DollarBelief.model_validate(obj, context=context)
        else:
            tr = TrustBelief.model_validate(obj, context=context)
            return ParsedBelief(True, ranking=tr.ranking, effect_size=tr.effect_size, explanation=tr.explanation)
    except ValidationError as exc:
        return ParsedBelief(False, _reason(exc))
    groups = {g.level: (g.mean, g.sd) for g in belief.groups}
    ranking = sorted(levels, key=lambda lv: -groups[lv][0])
    return ParsedBelief(True, ranking=ranking, groups=groups, explanation=belief.explanation)


@dataclass(frozen=True)
class ParsedForecast:
    """Forecast sends for rounds 1..R (index r-1), or the reason the reply is invalid."""

    valid: bool
    reason: str | None = None
    sends: list[int] | None = None
    explanations: list[str] | None = None


def parse_forecast(reply: str, rounds: int, endowment: int, finish_reason: str | None = None) -> ParsedForecast:
    """Validate a forecast reply: every round 1..``rounds`` once, whole amounts in [0, endowment]."""
    obj = extract_json(reply)
    if obj is None:
        return ParsedForecast(False, _no_json(finish_reason))
    try:
        got = ForecastSet.model_validate(obj, context={"rounds": rounds, "endowment": endowment})
    except ValidationError as exc:
        return ParsedForecast(False, _reason(exc))
    return ParsedForecast(True, sends=[f.send for f in got.forecasts], explanations=[f.explanation for f in got.forecasts])


class OneForecast(BaseModel):
    """A per-round forecast (Tables 6–8): the whole dollars to send this round and why."""

    model_config = ConfigDict(extra="ignore")

    send: int
    explanation: str = ""

    _send_text = field_validator("send", mode="before")(_send)
    _explanation_text = field_validator("explanation", mode="before")(_text)

    @model_validator(mode="after")
    def _bounded(self, info: ValidationInfo) -> OneForecast:
        endowment = _context(info, "endowment")
        if not 0 <= self.send <= endowment:
            raise ValueError(f"${self.send} is outside [0, {endowment}]")
        return self


def parse_round_forecast(reply: str, endowment: int, finish_reason: str | None = None) -> ParsedForecast:
    """Validate a per-round forecast reply ({"send": X, "explanation": ...}); ``sends``/``explanations`` of length 1."""
    obj = extract_json(reply)
    if obj is None:
        return ParsedForecast(False, _no_json(finish_reason))
    try:
        got = OneForecast.model_validate(obj, context={"endowment": endowment})
    except ValidationError as exc:
        return ParsedForecast(False, _reason(exc))
    return ParsedForecast(True, sends=[got.send], explanations=[got.explanation])


_THOUGHT = re.compile(r"THOUGHT\s*:\s*(.*?)(?=\n\s*ACTION\s*:|\Z)", re.IGNORECASE | re.DOTALL)


def thought_of(reply: str) -> str | None:
    """The THOUGHT part of a ReAct round reply, if it has one."""
    m = _THOUGHT.search(reply.replace("*", ""))
    return m.group(1).strip() if m else None
