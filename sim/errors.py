"""Errors the command line turns into one-line messages with exit code 2."""


class InputError(ValueError):
    """Bad user input: a value, a file or an option that cannot be used."""


class SpecError(InputError):
    """A part or device spec file that is missing, unreadable or invalid."""
