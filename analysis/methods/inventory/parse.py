"""Reading an inventory reply: the number 1..k it gives, or invalid with the reason (never a guess).

- ``number_from_logprobs``: the argmax over the digit tokens 1..k among the first token's top logprobs (the paper
  ranks the k continuations by likelihood). No digit of the scale among them -> invalid.
- ``number_from_text``: a free reply. Read, strongest evidence first, each tier on its own (one distinct number ->
  that number; two -> invalid):
  1. the whole reply is a number: "4", "(4)", "**4**", "4.", "'4'", {"rating": 4};
  2. a number named as the answer or rating: "Rating: 4", "I would rate this a 4", "my answer is 4", "I'd give it a 4",
     "I choose 2", "4/5", "4 out of 5";
  3. a line opening with a number followed by a label or punctuation: "4 - Moderately accurate", "4. Moderately
     accurate", "4 (moderately accurate)";
  4. an option label alone: "Moderately accurate." (the longest label named; "inaccurate" is not "accurate").
  The echoed scale ("on a scale from 1 to 5", '1 = "very inaccurate"') is removed first, so its numbers are never an
  answer. A number outside 1..k, two numbers ("3 or 4", "between 3 and 4"), a negated label ("not very accurate"), and
  a number whose label in the reply names another option -> invalid.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from analysis.methods.inventory.prompts import OrderMode, numbered

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
_SCALE_ECHO = [
    re.compile(r"(?:on\s+)?a\s+scale\s+(?:from|of)\s+\d+\s*(?:to|-)\s*\d+", re.IGNORECASE),
    re.compile(r"\b\d\s*=\s*[\"“']?[A-Za-z][A-Za-z ]*?[\"”']?(?=\s*[,;)\n]|\s+and\b|\s*$)", re.IGNORECASE),
    re.compile(r"\(\s*where\b[^)]*\)", re.IGNORECASE),
]
_WHOLE = re.compile(r"\A\s*[(\[\"']?\s*(\d+)\s*[)\]\"']?\s*[.!]?\s*\Z")
_NAMED = [
    re.compile(r"\b(?:answer|rating|score|response|choice)\b\s*(?:is|would be|will be|=|:|-)?\s*[(\[\"']?(\d+)(?![\d.,]\d)",
               re.IGNORECASE),
    re.compile(r"\b(?:rate|rated|rating)\s+(?:this|it|that|myself|the statement|this statement|me)?\s*(?:as\s+)?(?:an?\s+)?"
               r"[(\[\"']?(\d+)(?![\d.,]\d)", re.IGNORECASE),
    re.compile(r"\b(?:give|giving|gave)\s+(?:it|this|that|myself)?\s*(?:an?\s+)?[(\[\"']?(\d+)(?![\d.,]\d)", re.IGNORECASE),
    re.compile(r"\b(?:choose|chose|pick|picked|select|selected|say|go with|going with|opt for)\s+(?:an?\s+)?(?:number\s+)?"
               r"[(\[\"']?(\d+)(?![\d.,]\d)", re.IGNORECASE),
    re.compile(r"(?<![\d.])(\d+)\s*(?:/|out of)\s*\d+\b", re.IGNORECASE),
]
_LINE_START = re.compile(r"^[ \t>-]*[(\[]?(\d+)(?=\s*[)\].:=,-]|\s+[A-Za-z(]|\s*$)", re.MULTILINE)
_TWO = re.compile(r"\b(\d)\s*(?:or|and|to|-)\s*(\d)\b|\bbetween\s+(\d)\s+and\s+(\d)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|no|hardly)\s+(?:\w+\s+)?$|n[’']t\s+(?:\w+\s+)?$", re.IGNORECASE)


def _json_number(text: str) -> str:
    """A JSON reply's answer field as text ({"rating": 4} -> "4"); the reply itself otherwise."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            doc = json.loads(stripped)
        except ValueError:
            return text
        if isinstance(doc, dict):
            for key in ("rating", "answer", "score", "response", "choice"):
                if key in doc:
                    return str(doc[key])
    return text


def _without_echo(text: str) -> str:
    for pattern in _SCALE_ECHO:
        text = pattern.sub(" ", text)
    return text


def _labels_named(text: str, labels: list[str]) -> list[int]:
    """Canonical indices of the labels the text names (longest first; a named label's words are consumed), negated
    labels as -1."""
    lowered = text.lower()
    found: list[int] = []
    for index in sorted(range(len(labels)), key=lambda i: -len(labels[i])):
        label = labels[index].lower()
        for m in re.finditer(r"(?<![a-z])" + re.escape(label) + r"(?![a-z])", lowered):
            found.append(-1 if _NEGATION.search(lowered[:m.start()]) else index)
            lowered = lowered[:m.start()] + " " * len(label) + lowered[m.end():]
    return found


def number_from_text(text: str, labels: list[str], order: OrderMode) -> ReadNumber:
    """The number a free reply gives on the scale of ``labels`` numbered in ``order`` (module docstring)."""
    if not text or not text.strip():
        return ReadNumber(None, "empty reply")
    k = len(labels)
    clean = _without_echo(_json_number(text).translate(_MARKUP))
    for tier, patterns in enumerate(([_WHOLE], _NAMED, [_LINE_START])):
        found = {int(m.group(1)) for p in patterns for m in p.finditer(clean)}
        if not found:
            continue
        if tier > 0:
            pairs = [tuple(int(g) for g in m.groups() if g) for m in _TWO.finditer(clean)]
            if any(len(set(p)) == 2 and all(1 <= n <= k for n in p) and set(p) & found for p in pairs):
                return ReadNumber(None, "two numbers given (" + " and ".join(str(n) for n in sorted({n for p in pairs for n in p})) + ")")
        if len(found) > 1:
            return ReadNumber(None, f"several numbers given ({', '.join(str(n) for n in sorted(found))})")
        number = found.pop()
        if not 1 <= number <= k:
            return ReadNumber(None, f"{number} is outside the scale 1-{k}")
        named = set(_labels_named(clean, labels))
        meant = numbered(labels, order)[number - 1]
        others = {labels[i] for i in named if i >= 0} - {meant}
        if others and meant not in {labels[i] for i in named if i >= 0}:
            return ReadNumber(None, f"number {number} ('{meant.lower()}') and label '{sorted(others)[0].lower()}' disagree")
        return ReadNumber(number)
    named = _labels_named(clean, labels)
    if -1 in named:
        return ReadNumber(None, "a negated option label")
    if len(set(named)) > 1:
        return ReadNumber(None, "several option labels named")
    if named:
        return ReadNumber(numbered(labels, order).index(labels[named[0]]) + 1)
    return ReadNumber(None, "no number or option label found")
