"""Free text -> structured answers (the paper's App. E: regex for scalars, pydantic for structures).

Amounts: ``analysis.methods.trust.amounts`` (re-exported here).

Structures (``extract_json`` + pydantic): the first JSON object in the reply, looked for in
```code fences``` first, then anywhere (prose around it is ignored; trailing commas are
forgiven). Beliefs name attribute levels; a level matches after normalising case, dashes,
apostrophes and spacing, or as the only level containing (or contained in) the text.
Without a JSON object, a belief written out is read ("A > B > C" with "effect size 0.05"; "Level: mean $5, SD $2"
lines), and forecasts from a markdown table or "Round r: $x" lines. Whatever fails is invalid with a reason; nothing is
ever filled in.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from analysis.methods.trust import DOLLAR_STRATEGY
from analysis.methods.trust.amounts import (
    FOREIGN_NUMBERS, ParsedAmount, extract_amount, extract_first_integer, without_markdown,
)
from analysis.llm.json_reply import extract_json
from analysis.reading import read_final, whole_number

__all__ = ["ParsedAmount", "extract_amount", "extract_first_integer", "extract_json", "without_markdown"]  # re-exported



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

    @field_validator("effect_size", mode="before")
    @classmethod
    def _percent(cls, value: Any) -> Any:
        """An η² written as a percentage ("4%") is its share (0.04)."""
        if isinstance(value, str) and (m := re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*%\s*", value)):
            return float(m.group(1)) / 100
        return value

    @field_validator("ranking")
    @classmethod
    def _all_levels(cls, value: list[str], info: ValidationInfo) -> list[str]:
        return canonical_ranking(value, _context(info, "levels"))


_DOLLAR_TEXT = re.compile(r"\s*\$?\s*(-?\d+(?:\.\d+)?)\s*(?:dollars?|usd)?\s*\.?\s*", re.IGNORECASE)


_ENGLISH_NUMBERS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}
_WORD_TEXT = re.compile(r"\s*(\w+)\s*(?:dollars?|usd|dólares|美元)?\s*\.?\s*", re.IGNORECASE)


def _dollars(value: Any) -> Any:
    """A dollar amount written as text ("$5.00", "3 dollars", "seven", "sieben") as its number; a whole float (4.0) as
    an int; anything else unchanged, for the schema to reject."""
    if isinstance(value, str) and (m := _DOLLAR_TEXT.fullmatch(value)):
        value = float(m.group(1))
    elif isinstance(value, str) and (m := _WORD_TEXT.fullmatch(value)):
        word = m.group(1).lower()
        value = _ENGLISH_NUMBERS.get(word, FOREIGN_NUMBERS.get(word, value))
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class GroupEstimate(BaseModel):
    """Ctx+$: predicted mean and SD of dollars sent by one level."""

    model_config = ConfigDict(extra="ignore")

    level: str
    mean: float
    sd: float = Field(ge=0.0)

    _dollar_text = field_validator("mean", "sd", mode="before")(_dollars)


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




class RoundForecast(BaseModel):
    """One forecast round: the round number (1-based), the whole dollars to send, why."""

    model_config = ConfigDict(extra="ignore")

    round: int = Field(ge=1)
    send: int
    explanation: str = ""

    _send_text = field_validator("send", mode="before")(_dollars)
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


#: a structure holding text that is no valid Unicode (a lone surrogate): the schema cannot read it
UNREADABLE = "schema: the reply's JSON holds text that is not valid Unicode (a lone surrogate)"


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


def _lower_keys(obj: Any) -> Any:
    """JSON with its keys in lower case ({"Send": 3} is {"send": 3}; level names are matched without case anyway)."""
    if isinstance(obj, dict):
        return {str(k).lower() if isinstance(k, str) else k: _lower_keys(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_lower_keys(v) for v in obj]
    return obj


def _no_json(finish_reason: str | None) -> str:
    if finish_reason == "length":
        return "truncated: the reply hit the length limit before its JSON object was complete"
    return "no JSON object in the reply"


#: the punctuation opening a line ("**", "- ", "> "), within the line: atomic, and never across a line break (it was
#: ``[\W_]*``, which ran over blank lines from every line start and made a reply of blank lines take minutes)
_OPENING = r"(?>(?:[^\w\n]|_)*)"
_RANKING_LINE = re.compile(r"^" + _OPENING + r"(?:ranking|order|most[^\S\n]+to[^\S\n]+least[^:\n]*)?[^\S\n]*+[:=]?"
                           r"[^\S\n]*+([^\n>]*>[^\n]*)$", re.IGNORECASE | re.MULTILINE)
# "Ranking (most to least trusting): Female, Male": a labelled comma list
_RANKING_LIST = re.compile(r"^" + _OPENING + r"(?:ranking|order|(?:from\s+)?most\b[^:\n]*\bleast\b)[^:\n]*+:\s*([^\n]+,[^\n]+)$",
                           re.IGNORECASE | re.MULTILINE)
# "Ranking (most to least trusting):" then one numbered line per level
_RANKING_HEAD = re.compile(r"^" + _OPENING + r"(?:ranking|order|(?:from\s+)?most\b[^:\n]*\bleast\b)[^:\n]*+:\s*\n"
                           r"((?:[ \t]*+\d++[.)][ \t]*+[^\n]+(?:\n|$))+)",
                           re.IGNORECASE | re.MULTILINE)
_EFFECT = re.compile(r"(?:effect[\s_]*size|eta[\s_-]*squared|η²|η2|eta2)[^\d\n]{0,20}?(\d*\.\d+|\d+)(?!\s*%)",
                     re.IGNORECASE)
_GROUP_LINE = re.compile(r"^" + _OPENING + r"(?P<level>[^:\n]{1,60}?)\s*[:\-–]\s*+(?:mean\s*+)?[:=]?\s*+\$?(?P<mean>\d++(?:\.\d+)?)"
                         r"[^\d\n]{1,30}?(?:sd|standard\s+deviation)\s*+[:=]?\s*+\$?(?P<sd>\d+(?:\.\d+)?)",
                         re.IGNORECASE | re.MULTILINE)


def belief_from_text(reply: str, strategy: str) -> dict[str, Any] | None:
    """A belief written without JSON: a ranking line "A > B > C" (or a "Ranking:" heading over numbered lines) with
    the stated effect size ("effect size 0.05", "η² = 0.05"), or (Ctx+$) one "Level: mean $5, SD $2" line per level;
    None when the reply has neither."""
    if strategy == DOLLAR_STRATEGY:
        groups = [{"level": m.group("level").strip(" *"), "mean": float(m.group("mean")), "sd": float(m.group("sd"))}
                  for m in _GROUP_LINE.finditer(reply)]
        return {"groups": groups} if groups else None
    effect = _EFFECT.search(reply)
    ranking = _RANKING_LINE.search(reply)
    parts = ranking.group(1).split(">") if ranking else None
    if parts is None and (listed := _RANKING_LIST.search(reply)):
        parts = listed.group(1).split(",")
    if parts is None and (numbered := _RANKING_HEAD.search(reply)):
        parts = [re.sub(r"^\s*\d+[.)]\s*", "", line) for line in numbered.group(1).splitlines() if line.strip()]
    if parts is None or effect is None:
        return None
    return {"ranking": [part.strip(" *.`'\"") for part in parts], "effect_size": float(effect.group(1))}


def parse_belief(reply: str, strategy: str, levels: tuple[str, ...] | list[str], endowment: int,
                 finish_reason: str | None = None) -> ParsedBelief:
    """Validate a belief reply for ``strategy``; a Ctx+$ ranking orders levels by predicted mean (descending, stable).
    The JSON object the prompt asks for, else a belief written out (``belief_from_text``); read on the reply's final
    part (``analysis.reading``: a JSON object presented as a revision replaces the first)."""
    return read_final(reply or "", lambda part: _belief(part, strategy, levels, endowment, finish_reason),
                      lambda p: p.valid, lambda why: ParsedBelief(False, why), shared_no_answer=False,
                      key=lambda p: (p.ranking, p.effect_size, str(p.groups)))


def _belief(reply: str, strategy: str, levels: tuple[str, ...] | list[str], endowment: int,
            finish_reason: str | None) -> ParsedBelief:
    obj = _lower_keys(extract_json(reply) or belief_from_text(reply, strategy))
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
    except UnicodeError:  # pydantic reads no lone surrogate ("\ud800")
        return ParsedBelief(False, UNREADABLE)
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


_ROUND_LINE = re.compile(r"^" + _OPENING + r"round\s*+(\d++)\s*[:=\-–—]\s*(?:[^$\d\n]{0,30}?)(\$?\s*\d+(?:\.\d+)?)(?:\s*dollars?)?\b",
                         re.IGNORECASE | re.MULTILINE)


def _table_cells(line: str) -> list[str]:
    return [c.strip().replace("*", "") for c in line.strip().strip("|").split("|")]


_EVERY_ROUND = re.compile(r"(\$\s*+\d++(?:\.\d+)?|(?<!\d)\d++(?:\.\d+)?\s*+dollars?)\s+(?:in|for|on)\s+(?:every|each|all(?:\s+the)?)\s+rounds?\b"
                          r"|\b(?:every|each)\s+round\s*[:,]?\s*(\$\s*\d+(?:\.\d+)?)", re.IGNORECASE)


def forecasts_from_text(reply: str, rounds: int | None = None) -> dict[str, Any] | None:
    """Forecasts written without JSON: a markdown table with a Round column and a Send (or Amount/Forecast) column,
    one "Round 1: $4" line per round, or (given ``rounds``) one amount for every round stated once ("I'll send $4 in
    every round"); None when there is none of these."""
    rows = [ln for ln in reply.splitlines() if ln.strip().startswith("|")]
    if len(rows) >= 2:
        header = [c.lower() for c in _table_cells(rows[0])]
        r_col = next((i for i, c in enumerate(header) if "round" in c), None)
        s_col = next((i for i, c in enumerate(header) if re.search(r"send|amount|forecast|\$|dollar", c)), None)
        if r_col is not None and s_col is not None:
            found = []
            for line in rows[1:]:
                cells = _table_cells(line)
                if len(cells) <= max(r_col, s_col) or re.fullmatch(r"[:\- ]*", cells[r_col]):
                    continue
                r = re.fullmatch(r"(?:round\s*)?(\d+)", cells[r_col], re.IGNORECASE)
                found.append({"round": whole_number(r.group(1)) if r else cells[r_col], "send": cells[s_col]})
            if found:
                return {"forecasts": found}
    lines = _ROUND_LINE.findall(reply)
    if lines:
        return {"forecasts": [{"round": whole_number(r), "send": v} for r, v in lines]}
    every = {re.sub(r"\s+", "", m.group(1) or m.group(2)).replace("dollars", "").replace("dollar", "")
             for m in _EVERY_ROUND.finditer(reply)}
    if rounds and len(every) == 1:
        send = every.pop()
        return {"forecasts": [{"round": r, "send": send} for r in range(1, rounds + 1)]}
    return None


def parse_forecast(reply: str, rounds: int, endowment: int, finish_reason: str | None = None) -> ParsedForecast:
    """Validate a forecast reply: every round 1..``rounds`` once, whole amounts in [0, endowment]. The JSON object
    the prompt asks for, else a markdown table or "Round r: $x" lines (``forecasts_from_text``); read on the reply's
    final part (``analysis.reading``: a revised JSON object replaces the first)."""
    return read_final(reply or "", lambda part: _forecast(part, rounds, endowment, finish_reason), lambda p: p.valid,
                      lambda why: ParsedForecast(False, why), shared_no_answer=False,
                      key=lambda p: p.sends)


def _forecast(reply: str, rounds: int, endowment: int, finish_reason: str | None) -> ParsedForecast:
    obj = _lower_keys(extract_json(reply) or forecasts_from_text(reply, rounds))
    if obj is None:
        return ParsedForecast(False, _no_json(finish_reason))
    try:
        got = ForecastSet.model_validate(obj, context={"rounds": rounds, "endowment": endowment})
    except ValidationError as exc:
        return ParsedForecast(False, _reason(exc))
    except UnicodeError:  # pydantic reads no lone surrogate ("\ud800")
        return ParsedForecast(False, UNREADABLE)
    return ParsedForecast(True, sends=[f.send for f in got.forecasts], explanations=[f.explanation for f in got.forecasts])


class OneForecast(BaseModel):
    """A per-round forecast (Tables 6–8): the whole dollars to send this round and why."""

    model_config = ConfigDict(extra="ignore")

    send: int
    explanation: str = ""

    _send_text = field_validator("send", mode="before")(_dollars)
    _explanation_text = field_validator("explanation", mode="before")(_text)

    @model_validator(mode="after")
    def _bounded(self, info: ValidationInfo) -> OneForecast:
        endowment = _context(info, "endowment")
        if not 0 <= self.send <= endowment:
            raise ValueError(f"${self.send} is outside [0, {endowment}]")
        return self


def parse_round_forecast(reply: str, endowment: int, finish_reason: str | None = None) -> ParsedForecast:
    """Validate a per-round forecast reply ({"send": X, "explanation": ...}); ``sends``/``explanations`` of length 1.
    Without a JSON object, the amount the reply states as a decision ("I will send $4", ``extract_amount``). Read on the
    reply's final part (``analysis.reading``: a revised JSON object replaces the first; a forecast taken back with none
    after it is no forecast)."""
    return read_final(reply or "", lambda part: _round_forecast(part, endowment, finish_reason), lambda p: p.valid,
                      lambda why: ParsedForecast(False, why), shared_no_answer=False,
                      key=lambda p: p.sends)


def _round_forecast(reply: str, endowment: int, finish_reason: str | None) -> ParsedForecast:
    obj = _lower_keys(extract_json(reply))
    if obj is None:
        stated = extract_amount(reply, endowment, finish_reason)
        if stated.valid:
            return ParsedForecast(True, sends=[int(stated.amount)], explanations=[""])
        return ParsedForecast(False, _no_json(finish_reason))
    try:
        got = OneForecast.model_validate(obj, context={"endowment": endowment})
    except ValidationError as exc:
        return ParsedForecast(False, _reason(exc))
    except UnicodeError:  # pydantic reads no lone surrogate ("\ud800")
        return ParsedForecast(False, UNREADABLE)
    return ParsedForecast(True, sends=[got.send], explanations=[got.explanation])


_THOUGHT = re.compile(r"THOUGHT\s*:\s*(.*?)(?=\n\s*ACTION\s*:|\Z)", re.IGNORECASE | re.DOTALL)


def thought_of(reply: str) -> str | None:
    """The THOUGHT part of a ReAct round reply (or the "thought" of its JSON form), if it has one."""
    obj = _lower_keys(extract_json(reply))
    if isinstance(obj, dict) and isinstance(obj.get("thought"), str):
        return obj["thought"].strip()
    m = _THOUGHT.search(reply.replace("*", ""))
    return m.group(1).strip() if m else None
