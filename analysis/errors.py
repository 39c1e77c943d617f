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
