"""Errors shared by every app (no Django needed to import them)."""


class UserFacingError(Exception):
    """A bad input or a refused request whose message says it all: a job that raises one fails with
    that message (no traceback), and its result holds ``as_dict()``."""

    def as_dict(self):
        """The error as data for the job's result (``{}`` unless a subclass says more)."""
        return {}
