"""argparse ``type=`` validators shared by every command's options.

Each turns the option's text into a number or raises ``argparse.ArgumentTypeError`` with the reason, which the CLI's
parser prints as one line (``error: python -m analysis run values: argument --samples: ...``) with exit 2. Floats are
finite: ``float()`` accepts ``nan``, ``inf`` and ``1e400``, which no option means and which an endpoint would receive as
a bare ``NaN`` (not JSON).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
    return value


def csv_list(text: str) -> list[str]:
    """A comma list: its items, stripped, empty ones dropped."""
    return [v.strip() for v in text.split(",") if v.strip()]


def positive_int(text: str) -> int:
    """A whole number >= 1 (a count of things to do, a size, a limit)."""
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}': give a whole number of at least 1")
    return value


def int_between(lowest: int, highest: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``lowest`` to ``highest``."""
    def parse(text: str) -> int:
        value = _int(text)
        if not lowest <= value <= highest:
            raise argparse.ArgumentTypeError(f"'{text}': give a whole number from {lowest:,} to {highest:,}")
        return value

    parse.__name__ = f"int_{lowest}_{highest}"
    return parse


def non_negative_int(text: str) -> int:
    """A whole number >= 0 (0 meaning none)."""
    value = _int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}': give a whole number of at least 0")
    return value


def non_negative_float(text: str) -> float:
    """A finite number >= 0 (a temperature, a number of seconds)."""
    value = _float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}': give a number of at least 0")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (a scale factor)."""
    value = _float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"'{text}': give a number above 0")
    return value


def probability(text: str) -> float:
    """A finite number in (0, 1] (a top_p)."""
    value = _float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"'{text}': give a number above 0 and at most 1")
    return value


#: Longest run id ``--run-id`` takes (ids appear in every table row and every command line).
MAX_RUN_ID = 200


def run_id(text: str) -> str:
    """A run id to create: printable text without spaces at its ends, at most ``MAX_RUN_ID`` characters. A newline or
    other control character would forge lines in ``runs`` and the progress lines."""
    from analysis.errors import one_line

    if not text.strip():
        raise argparse.ArgumentTypeError("the run id is empty")
    if one_line(text) != text:
        raise argparse.ArgumentTypeError(f"'{one_line(text)}' holds a newline or another control character")
    if text != text.strip():
        raise argparse.ArgumentTypeError(f"'{text}' starts or ends with a space")
    if len(text) > MAX_RUN_ID:
        raise argparse.ArgumentTypeError(f"{len(text)} characters; a run id has at most {MAX_RUN_ID}")
    from analysis.errors import InputError
    from analysis.runs.store import check_run_id

    try:
        check_run_id(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("run id ")) from None
    return text
