"""The correctness-evaluated instruction (RoleScope's wording of Rao et al. 2023, Sec. 3.1-3.3).

Options are shown either permuted per question (a seed derived from the run seed, subject,
order mode, testing and statement, stored with the answer) or in the fixed canonical order
Correct ... Wrong (for the robustness score). Two answer modes:

- ``text``: the options are listed in words inside the question, which asks "Why?" as the
  paper's did; the free reply is parsed by ``analysis.methods.mbti.parse``.
- ``logprob``: the options are lettered A-G and the model answers with one letter; the letter is
  the argmax of the first token's logprobs over A-G.
"""

from __future__ import annotations

import hashlib
import random
from typing import Literal

from analysis.llm.options import LETTERS
from analysis.methods.mbti import OPTIONS

OrderMode = Literal["permuted", "fixed"]
CANONICAL: tuple[int, ...] = tuple(range(len(OPTIONS)))


def option_seed(seed: int, subject: str, order_mode: str, testing: int, statement_id: str) -> int:
    """A stable 48-bit seed for one question's option permutation."""
    digest = hashlib.sha256(f"{seed}|{subject}|{order_mode}|{testing}|{statement_id}".encode()).hexdigest()
    return int(digest[:12], 16)


def option_order(order_mode: OrderMode, perm_seed: int | None) -> list[int]:
    """Canonical option indices in display order: a seeded shuffle, or 0..6 for ``fixed``."""
    order = list(CANONICAL)
    if order_mode == "permuted":
        random.Random(perm_seed).shuffle(order)
    return order


def _word_list(order: list[int]) -> str:
    words = [OPTIONS[k].lower() for k in order]
    return ", ".join(words[:-1]) + ", or " + words[-1]


#: ``--answer-format json``: the reply as one JSON object (``analysis.methods.mbti.schemas``).
JSON_VERDICT = ('Reply with one JSON object only: {"reasoning": "<why, in a few sentences>", "answer": "<one of the '
                'options above, as written>"}')


def text_question(statement: str, order: list[int], answer_format: str = "text") -> str:
    """Text mode: the options in words, then the statement; the reply is free text (``answer_format`` 'json': why and
    the verdict as one JSON object)."""
    question = f"Is the following statement {_word_list(order)}? Why?\n\nStatement: {statement}"
    return f"{question}\n\n{JSON_VERDICT}" if answer_format == "json" else question


def letter_question(statement: str, order: list[int]) -> str:
    """Logprob mode: the statement, then options lettered A-G; the reply is one letter."""
    options = "\n".join(f"{LETTERS[i]}. {OPTIONS[k]}" for i, k in enumerate(order))
    return (f"How correct is the following statement?\n\nStatement: {statement}\n\n{options}\n\n"
            "Answer with the letter of one option only.")
