"""Error types shared by the library and the CLI.

``InputError`` means the user gave something malformed (file, field, spec): CLI exit code 2.
``RunFailure`` means something failed while running (endpoint down, model missing): exit code 1.
Messages are one line and name the file/field/reason; they never contain secrets.
"""

from __future__ import annotations


class RoleScopeError(Exception):
    """Base class of every error RoleScope raises on purpose."""

    exit_code = 1


class InputError(RoleScopeError):
    """Malformed user input: a file, a field, a model spec, a CLI option."""

    exit_code = 2


class RunFailure(RoleScopeError):
    """A runtime failure: an endpoint, the embedded server, the store."""

    exit_code = 1


#: Characters that end or rewrite a line on a terminal: C0/C1 controls (newline, carriage return, escape, ...) and
#: the Unicode line and paragraph separators.
_LINE_BREAKING = frozenset({"Cc", "Zl", "Zp"})


def has_control(text: str) -> bool:
    """Whether ``text`` holds a character ``one_line`` would escape (a control or line separator): not allowed in a
    name read from outside."""
    import unicodedata

    return any(unicodedata.category(c) in _LINE_BREAKING for c in text)


def one_line(text: str) -> str:
    """``text`` with every control character and line separator written as its escape (``\\n``, ``\\x1b``,
    ``\\u2028``), so that a name read from a file or typed as an option prints on one line and cannot forge lines
    of the CLI's output (or move the cursor). Other characters, non-ASCII ones included, are kept."""
    import unicodedata

    if text.isprintable():
        return text
    return "".join(repr(c)[1:-1] if unicodedata.category(c) in _LINE_BREAKING else c for c in text)
