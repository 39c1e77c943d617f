"""Turning a reply into one of a question's lettered options.

Two modes, recorded with every answer:

- ``logprob``: one generated token with its top-k logprobs; keep only tokens that are an option
  letter (after stripping spaces/punctuation: "A", " A", "(A" all count for A; the best variant's
  logprob is the letter's), choose the argmax. No letter among the top-k -> invalid.
- ``text``: free generation parsed by ``parse_option_text``: an explicit letter first
  ("B", "(B)", "B.", "Answer: B"), else the longest option label quoted in the reply.
  Nothing found, or two different options named -> invalid. Never a random fill-in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

AnswerMode = Literal["logprob", "text"]
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


_LETTER_PATTERNS = (
    r"^\s*\(?([A-Z])\)?(?:[.):\s]|$)",  # "B", "(B)", "B.", "B) text"
    r"\b(?:answer|option|choice)\s*(?:is|:)?\s*\(?([A-Z])\)?(?![A-Za-z])",  # "Answer: B", "option (B)"
)


def parse_option_text(text: str, labels: list[str]) -> ParsedOption:
    """Map a free-text reply to an option index (see module docstring)."""
    if not text or not text.strip():
        return ParsedOption(None, "empty reply")
    letters = LETTERS[: len(labels)]
    for pattern in _LETTER_PATTERNS:
        found = {m.group(1) for m in re.finditer(pattern, text, flags=re.IGNORECASE | re.MULTILINE)}
        found = {f.upper() for f in found if f.upper() in letters}
        # "I" / "A" are also English words: only accept a single unambiguous letter
        if len(found) == 1:
            letter = found.pop()
            if not (letter in "AI" and re.match(rf"^\s*{letter}\s+[a-z]", text)):
                return ParsedOption(letters.index(letter))
    lowered = text.lower()
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
    return ParsedOption(chosen.pop())


def _contains_label(text: str, label: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(label)}(?![a-z0-9])", text) is not None
