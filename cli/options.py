"""Options shared by several sub-commands."""

from __future__ import annotations

import argparse

from ..queries.warehouse.db import default_db_path


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=None, metavar="PATH",
                        help=f"warehouse file (default: $TRACE_AUDIT_DB or ./trace_audit.duckdb; now {default_db_path()})")


def zone(name: str) -> str:
    """argparse type of every --tz: a zone of the one system (queries/warehouse/zones.py), else a
    usage error that names the option (exit 2)."""
    from ..queries.warehouse.zones import UnknownZone, check_zone

    try:
        return check_zone(name, option=None)
    except UnknownZone as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
