"""The one error type that the CLI turns into a one-line message and exit 2."""


class UsageError(ValueError):
    """Bad input from a user: an impossible position, an unknown game, a
    damaged table. Its message is one line meant for a person."""
