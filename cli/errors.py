"""Errors the CLI shows as one plain sentence (what failed, where, what to do)."""


class UserError(Exception):
    """A problem the user can fix; printed without a traceback, exit code 2."""

    exit_code = 2
