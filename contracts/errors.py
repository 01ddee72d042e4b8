"""Errors a user can fix. Their message names what is wrong and how to fix it; the CLI prints it on one line."""

from __future__ import annotations


class InputError(Exception):
    """Bad input from the user or caller (file, flag, request body). CLI exit code 2, HTTP 400."""


class ConfigurationError(InputError):
    """A setting points at something missing or unusable (model path, database, policy bundle)."""


def first_validation_error(exc) -> tuple[str, str]:
    """The dotted location and message of a pydantic ValidationError's first error ("provenance.source", "Input
    should be a valid string"): what a one-line message about bad input names."""
    first = exc.errors()[0]
    return ".".join(str(part) for part in first["loc"]), first["msg"]
