"""Options shared by several sub-commands."""

from __future__ import annotations

import argparse

from ..queries.warehouse.db import default_db_path


def add_db_option(parser: argparse.ArgumentParser, default_help: str | None = None) -> None:
    """--db; `default_help` says where the file goes without it, for a command whose default is not the
    shared one (demo keeps its own database, never the user's warehouse)."""
    default_help = default_help or f"$TRACE_AUDIT_DB or ./trace_audit.duckdb; now {default_db_path()}"
    parser.add_argument("--db", default=None, metavar="PATH", help=f"warehouse file (default: {default_help})")


def zone(name: str) -> str:
    """argparse type of every --tz: a zone of the one system (queries/warehouse/zones.py), else a
    usage error that names the option (exit 2)."""
    from ..queries.warehouse.zones import UnknownZone, check_zone

    try:
        return check_zone(name, option=None)
    except UnknownZone as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# Argument types: a bad value is a usage error (exit 2, argparse's message), never an internal one.

def _bounded(text: str, parse, ok, what: str):
    try:
        x = parse(text)
    except ValueError:
        x = None
    if x is None or not ok(x):
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
    return x


def port(text: str) -> int:
    return _bounded(text, int, lambda n: 0 <= n <= 65535, "a port (0 to 65535)")


def positive(text: str) -> float:
    return _bounded(text, float, lambda x: 0 < x < float("inf"), "a positive number")


def count(text: str) -> int:
    """A whole number of rows, 0 or more."""
    return _bounded(text, int, lambda n: n >= 0, "a whole number of 0 or more")


DEFAULT_WAIT = 30.0


def seconds(text: str) -> float:
    """A duration of 0 seconds or more (--wait)."""
    return _bounded(text, float, lambda x: 0 <= x < float("inf"), "a number of seconds (0 or more)")
